// libFuzzer harness: the SCALE-Sim architecture config reader (.cfg, INI) and its conversion to
// a target tree on top of the shipped npu target. Bad input must end in config::ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "tests/fuzz/FuzzInputFile.h"
#include "workloads/scalesim/ScaleSimConfig.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tessim::config::Node npu =
        tessim::config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/npu.yaml");
    const std::string& path = tessim::fuzz::writeInputFile(data, size, ".cfg");
    try {
        tessim::loadScaleSimTarget(path, npu);
    } catch (const tessim::config::ConfigError&) {
        // The expected outcome for bad input.
    }
    return 0;
}
