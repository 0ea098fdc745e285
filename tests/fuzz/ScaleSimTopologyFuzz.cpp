// libFuzzer harness: the SCALE-Sim topology reader (.csv, conv and GEMM forms) and the geometry
// of every layer it accepts. Bad input must end in config::ConfigError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/config/ConfigError.h"
#include "tests/fuzz/FuzzInputFile.h"
#include "workloads/scalesim/ScaleSimTopology.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = tessim::fuzz::writeInputFile(data, size, ".csv");
    try {
        const tessim::config::Node workload = tessim::loadScaleSimTopology(path);
        for (const auto& row : workload.find("layers")->items()) {
            tessim::ScaleSimLayer l;
            auto field = [&](const char* key, std::uint64_t fallback) {
                const auto* v = row.find(key);
                return v ? std::stoull(v->scalar()) : fallback;
            };
            l.ifmapH = field("ifmap_h", 1), l.ifmapW = field("ifmap_w", 1);
            l.filterH = field("filter_h", 1), l.filterW = field("filter_w", 1);
            l.channels = field("channels", 1), l.filters = field("filters", 1);
            l.strideH = field("stride", 1), l.strideW = field("stride_w", l.strideH);
            for (const char* dataflow : {"os", "ws", "is"})
                tessim::scaleSimMapping(l, 32, 32, dataflow);
        }
    } catch (const tessim::config::ConfigError&) {
        // The expected outcome for bad input.
    }
    return 0;
}
