// `tessim sweep SWEEP.yaml [--jobs N] [--out DIR] [--resume] [--timeout S] [--mpi] [--plot]`.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"
#include "run/pipeline/Simulation.h"
#include "run/report/NodeJson.h"
#include "run/sweep/Sweep.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"

namespace tessim::cli {

namespace {

// The run a point's `run` arguments describe.
RunRequest requestFrom(const std::vector<std::string>& args) {
    RunRequest request;
    for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
        const std::string &option = args[i], &value = args[i + 1];
        if (option == "--target")
            request.target = value;
        else if (option == "--workload")
            request.workload = value;
        else if (option == "--plan")
            request.plan = value;
        else if (option == "--set")
            request.sets.push_back(value);
    }
    return request;
}

// The sweep file's entry that gave a point's `set`-th --set (1-based), where the file sets the
// key under base.set or sweeps it (grid, zip, sample); nullopt when none does.
std::optional<std::pair<config::Location, std::string>>
sweepKeyOf(const std::string& specPath, const std::vector<std::string>& sets, int set) {
    if (set < 1 || static_cast<std::size_t>(set) > sets.size())
        return std::nullopt;
    const std::string assignment = sets[static_cast<std::size_t>(set) - 1];
    const std::string key = assignment.substr(0, assignment.find('='));
    config::Node spec;
    try {
        spec = config::loadYamlFile(specPath);
    } catch (const config::ConfigError&) {
        return std::nullopt;  // a library name: the error keeps its command-line location
    }
    for (const char* section : {"grid", "zip", "sample", "base.set"}) {
        const std::string name(section);
        const config::Node* parent = name == "base.set"
                                         ? (spec.find("base") ? spec.find("base")->find("set") : nullptr)
                                         : spec.find(name);
        if (const config::Node* entry = parent ? parent->find(key) : nullptr)
            return std::make_pair(entry->keyLocation(), name + "." + key);
    }
    return std::nullopt;
}

}  // namespace

void addSweepCommand(CLI::App& app) {
    auto* sub =
        app.add_subcommand("sweep", "Run a parameter sweep: one process per point, results streamed to DIR, "
                                    "resumable, optionally over MPI");
    auto options = std::make_shared<sweep::SweepOptions>();
    auto timeout = std::make_shared<double>(0.0);
    sub->add_option("sweep", options->specPath,
                    "sweep file (YAML), or the name of a library sweep (tessim list sweeps)")
        ->required();
    sub->add_option("--jobs,-j", options->jobs,
                    "points run at once (per MPI worker); "
                    "default: all cores")
        ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
    sub->add_option("--out,-o", options->outDir, "results directory (default: out/sweeps/<sweep name>)");
    sub->add_flag("--resume", options->resume, "continue the sweep in DIR: run only the points it lacks");
    sub->add_option("--timeout", *timeout,
                    "seconds a point may run before it is killed and recorded as timeout "
                    "(default: the file's timeout, else none)")
        ->check(positiveSeconds());
    sub->add_flag("--mpi", options->mpi,
                  "distribute points over MPI ranks (mpirun / srun): rank 0 coordinates and "
                  "writes the files, the other ranks run points");
    sub->add_flag("--plot", options->plot, "draw the plots the sweep file lists into DIR/plots");
    sub->callback([options, timeout] {
        options->specPath = resolveLibraryPath(LibraryKind::Sweep, options->specPath);
        if (*timeout > 0.0)
            options->timeoutSeconds = *timeout;
        options->inputsDigest = [](const std::vector<std::string>& args) {
            const ResolvedInputs in = resolveInputs(requestFrom(args));
            const std::string text = nodeToJson(in.target).dump() + "\n" + nodeToJson(in.workload).dump() +
                                     "\n" + nodeToJson(in.plan).dump();
            std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a
            for (unsigned char c : text) {
                hash ^= c;
                hash *= 0x100000001b3ULL;
            }
            return fmt::format("{:016x}", hash);
        };
        options->checkFirstPoint = [specPath = options->specPath](const std::vector<std::string>& args) {
            const RunRequest request = requestFrom(args);
            try {
                checkRunInputs(request);
            } catch (const config::ConfigError& e) {
                // Keys are the same at every point; values may suit some points and not others,
                // and those are recorded per point.
                if (e.detail().rfind("unknown key", 0) == 0 ||
                    e.detail().find("--set") != std::string::npos) {
                    // A point's --set came from the sweep file: the error is at its key there.
                    auto where = std::make_pair(e.location(), e.key());
                    if (e.location().file == "<command line>")
                        where = sweepKeyOf(specPath, request.sets, e.location().column).value_or(where);
                    throw config::ConfigError(where.first, where.second,
                                              e.detail() +
                                                  " (in every point of the sweep; no point was run)");
                }
            }
        };
        commandExitCode() = sweep::runSweep(*options, std::cout, std::cerr);
    });
}

}  // namespace tessim::cli
