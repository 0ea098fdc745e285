#include "run/pipeline/WorkloadTargets.h"

#include <exception>
#include <memory>

#include "models/targets/ConfiguredTarget.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/Simulation.h"
#include "sim/core/SimulationSetup.h"
#include "workloads/WorkloadFactory.h"

namespace tessim {

std::map<std::string, std::vector<std::string>> libraryWorkloadTargets() {
    const auto targets = listLibrary(LibraryKind::Target);
    const auto workloads = listLibrary(LibraryKind::Workload);
    std::map<std::string, std::vector<std::string>> runs;
    if (targets.empty())
        return runs;
    // Each workload's tree once (includes and defaults resolved as a run resolves them).
    std::map<std::string, config::Node> trees;
    for (const auto& w : workloads) {
        runs[w.name];
        try {
            RunRequest request;
            request.target = targets.front().path;
            request.workload = w.path;
            trees[w.name] = resolveInputs(request).workload;
        } catch (const std::exception&) {
            // A workload that does not load runs nowhere; `tessim run` says why.
        }
    }
    initSystemC();
    for (const auto& t : targets) {
        std::unique_ptr<ConfiguredTarget> target;
        try {
            RunRequest request;
            request.target = t.path;
            target = std::make_unique<ConfiguredTarget>(resolveInputs(request).target);
        } catch (const std::exception&) {
            continue;
        }
        for (const auto& [name, tree] : trees) {
            try {
                makeWorkload(tree, config::Node(), target->info());
                runs[name].push_back(t.name);
            } catch (const std::exception&) {
                // Refused: the run would say where and why.
            }
        }
    }
    return runs;
}

}  // namespace tessim
