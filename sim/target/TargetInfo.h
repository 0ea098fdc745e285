// What a schedule generator and the bounds need to know about a target, independent of its
// SystemC module tree: memory spaces, engines and their peak rates.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/Time.h"
#include "sim/target/MacArrayInfo.h"

namespace tessim {

struct MemorySpaceInfo {
    std::string name;            // "sram", "ddr", "am", ...
    std::uint8_t id = 0;         // Op::space
    std::string level;           // traffic level in reports ("ddr", "sram", "l2", ...)
    std::uint64_t size = 0;      // bytes
    double peakBandwidth = 0.0;  // B/s, for bandwidth bounds
};

struct EngineInfo {
    std::string name;
    ClockDomain clock;
    unsigned registerBytes = 0;
    double peakWorkPerCycle = 0.0;  // work units (FLOP, MAC) per cycle
    bool mainCompute = true;
    std::optional<MacArrayInfo> macArray;  // the engine's MAC array, if it has one
};

struct TargetInfo {
    std::string name;
    ClockDomain mainClock;
    std::vector<MemorySpaceInfo> spaces;
    std::vector<EngineInfo> engines;
    std::vector<std::string> dmaEngines;

    const MemorySpaceInfo* findSpace(const std::string& spaceName) const {
        for (const auto& s : spaces)
            if (s.name == spaceName)
                return &s;
        return nullptr;
    }
    const MemorySpaceInfo& space(const std::string& spaceName) const {
        if (const auto* s = findSpace(spaceName))
            return *s;
        throw std::runtime_error("target '" + name + "' has no memory named '" + spaceName + "'");
    }
    // The engine a schedule runs on when its plan names none: the first main compute engine.
    const EngineInfo& mainEngine() const {
        for (const auto& e : engines)
            if (e.mainCompute)
                return e;
        if (engines.empty())
            throw std::runtime_error("target '" + name + "' has no engine");
        return engines.front();
    }
    const EngineInfo* findEngine(const std::string& engineName) const {
        for (const auto& e : engines)
            if (e.name == engineName)
                return &e;
        return nullptr;
    }
};

}  // namespace tessim
