// libFuzzer harness: the JSON Lines schedule reader against a small target. Bad input must end
// in config::ConfigError (or std::runtime_error for ops the target cannot run), never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "sim/config/ConfigError.h"
#include "sim/ir/OpJsonl.h"

namespace {

tessim::TargetInfo fuzzTarget() {
    tessim::TargetInfo t;
    t.name = "fuzz";
    for (const char* name : {"sram", "ddr"}) {
        tessim::MemorySpaceInfo m;
        m.name = name;
        m.id = static_cast<std::uint8_t>(t.spaces.size());
        m.level = name;
        m.size = 1 << 20;
        m.peakBandwidth = 1e9;
        t.spaces.push_back(m);
    }
    tessim::EngineInfo e;
    e.name = "core";
    e.dmaChannels = 4;
    e.vectorRegisters = 32;
    e.scalarRegisters = 32;
    t.engines.push_back(e);
    return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tessim::TargetInfo target = fuzzTarget();
    static const std::string path = "/tmp/tessim-schedule-fuzz-" + std::to_string(::getpid()) + ".jsonl";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        auto streams = tessim::readSchedule(path, target);
        for (auto& s : streams)
            while (s.stream->next()) {
            }
    } catch (const tessim::config::ConfigError&) {
    } catch (const std::runtime_error&) {
    }
    return 0;
}
