// libFuzzer harness: what a user types after `tessim run`. Each input line is one `--set`
// assignment, applied to the shipped minimal target and axpy workload, then to the k1 target
// and fc workload (clusters, lists) and a plan; a line starting with `--max-memory ` gives that
// flag's value. Bad input must end in config::ConfigError.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "sim/config/CommandLineSets.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/core/MemoryLimit.h"

namespace {

tessim::config::Node load(const std::string& relative) {
    return tessim::config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/" + relative);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tessim::config::Node minimal = load("configs/targets/minimal.yaml");
    static const tessim::config::Node axpy = load("workloads/library/axpy.yaml");
    static const tessim::config::Node k1 = load("configs/targets/k1.yaml");
    static const tessim::config::Node fc = load("workloads/library/fc.yaml");
    std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
    std::vector<std::string> sets;
    std::string line;
    const std::string maxMemory = "--max-memory ";
    try {
        while (std::getline(lines, line)) {
            if (line.rfind(maxMemory, 0) == 0)
                tessim::parseMemoryLimit(line.substr(maxMemory.size()));
            else
                sets.push_back(line);
        }
        tessim::config::Node target = minimal, workload = axpy, plan;
        tessim::config::applyCommandLineSets(sets, {&target, &workload, &plan});
        target = k1, workload = fc, plan = tessim::config::Node();
        tessim::config::applyCommandLineSets(sets, {&target, &workload, &plan});
    } catch (const tessim::config::ConfigError&) {
        // The expected outcome for bad input.
    }
    return 0;
}
