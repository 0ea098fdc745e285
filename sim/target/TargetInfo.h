// What a schedule generator and the bounds need to know about a target, independent of its
// SystemC module tree: memory spaces, engines and their peak rates.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/Time.h"
#include "sim/target/MacArrayInfo.h"

namespace tessim {

struct MemorySpaceInfo {
    std::string name;            // "sram", "ddr", "am", "l1_3", ...
    std::uint8_t id = 0;         // Op::space
    std::string level;           // traffic level in reports ("ddr", "sram", "l2", ...)
    std::uint64_t size = 0;      // bytes
    double peakBandwidth = 0.0;  // B/s, for bandwidth bounds (of one instance for a role)
    std::string key;             // the YAML key it was declared under ("l1" for l1_3)
    int cluster = -1;            // index into TargetInfo::clusters; −1: chip level
    unsigned index = 0;          // instance index among its key's instances
    // A role is the key of a replicated memory ("l1", "am"): each engine maps it to the instance
    // it reaches, so one op stream runs on any core. It holds no bytes of its own.
    bool role = false;
    std::vector<std::uint8_t> instances;  // a role's instances, in index order
};

// A named set of memories that one DMA transfer can write at once (DmaArgs::group).
struct MulticastGroupInfo {
    std::string name;
    std::uint8_t id = 0;                // 1, 2, ... (0 in an op: no group)
    std::vector<std::uint8_t> members;  // memory spaces, in order
};

struct ClusterInfo {
    std::string name;  // cluster0, cluster1, ...
    unsigned index = 0;
    std::vector<std::string> engines;    // engines (cores) of the cluster
    std::vector<std::uint8_t> memories;  // memories declared in the cluster (its L2, ...)
};

struct EngineInfo {
    std::string name;
    ClockDomain clock;
    unsigned registerBytes = 0;
    double peakWorkPerCycle = 0.0;  // work units (FLOP, MAC) per cycle
    bool mainCompute = true;
    std::optional<MacArrayInfo> macArray;  // the engine's MAC array, if it has one
    std::string key;                       // YAML key it was declared under ("core" for core3)
    int cluster = -1;                      // index into TargetInfo::clusters; −1: chip level
    unsigned index = 0;                    // instance index among its key's instances
    // Memory roles this engine resolves ("l1" → its own l1_3): role name → memory space id.
    std::map<std::string, std::uint8_t> roles;
    // The memories it reaches, in the order of its YAML `memories:` list (roles where it has them):
    // kernels default to the first.
    std::vector<std::uint8_t> memories;
};

struct TargetInfo {
    std::string name;
    ClockDomain mainClock;
    std::vector<MemorySpaceInfo> spaces;
    std::vector<EngineInfo> engines;
    std::vector<std::string> dmaEngines;
    std::vector<ClusterInfo> clusters;  // empty when the target declares none
    std::vector<MulticastGroupInfo> groups;

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
    // The main compute engines (cores), in declaration order: what a kernel splits work over.
    std::vector<const EngineInfo*> cores() const {
        std::vector<const EngineInfo*> out;
        for (const auto& e : engines)
            if (e.mainCompute)
                out.push_back(&e);
        return out;
    }
    const MulticastGroupInfo* findGroup(const std::string& groupName) const {
        for (const auto& g : groups)
            if (g.name == groupName)
                return &g;
        return nullptr;
    }
    const EngineInfo* findEngine(const std::string& engineName) const {
        for (const auto& e : engines)
            if (e.name == engineName)
                return &e;
        return nullptr;
    }
};

}  // namespace tessim
