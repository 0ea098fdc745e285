// What a schedule generator and the bounds need to know about a target, independent of its
// SystemC module tree: memory spaces, engines and their peak rates.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/Time.h"
#include "sim/ir/Op.h"
#include "sim/machine/MacArrayInfo.h"

namespace tessim {

struct MemorySpaceInfo {
    std::string name;                 // "sram", "ddr", "am", "l1_3", ...
    std::uint8_t id = 0;              // Op::space
    std::string level;                // traffic level in reports ("ddr", "sram", "l2", ...)
    std::uint64_t size = 0;           // bytes (a cache: of the addresses it serves)
    std::uint64_t cacheBytes = 0;     // a cache's capacity, what it holds at once (0: not a cache)
    double peakBandwidth = 0.0;       // B/s, for bandwidth bounds (of one instance for a role)
    double peakWriteBandwidth = 0.0;  // B/s of writes (a cache's store rate, or its write-backs' from above)
    std::string key;                  // the YAML key it was declared under ("l1" for l1_3)
    int cluster = -1;                 // index into TargetInfo::clusters; −1: chip level
    unsigned index = 0;               // instance index among its key's instances
    // A DDR's burst: what a partly used burst still moves (0: accesses move exactly their bytes).
    std::uint64_t burstBytes = 0;
    // A role is the key of a replicated memory ("l1", "am"): each engine maps it to the instance
    // it reaches, so one op stream runs on any core. It holds no bytes of its own.
    bool role = false;
    std::vector<std::uint8_t> instances;  // a role's instances, in index order
    int next = -1;                        // a cache's next level (a space id); −1: none
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

// Timing of one op on one unit instance, in cycles of the engine's clock. Where the YAML gives a
// table per register group (LMUL m1, m2, m4, m8), it is here; otherwise an op spanning G
// registers costs G × reciprocal.
struct OpTimingInfo {
    double latency = 0.0;
    double reciprocal = 1.0;
    std::optional<std::array<double, 4>> latencyByLmul;     // m1, m2, m4, m8
    std::optional<std::array<double, 4>> reciprocalByLmul;  // m1, m2, m4, m8
    // With a per-LMUL reciprocal table, the fractional groups' (mf8, mf4, mf2) for ops that state
    // their LMUL (Op::lmul8); each defaults to the next larger group's.
    std::array<double, 3> fractionalReciprocal{};

    // lmul: 1, 2, 4 or 8.
    double reciprocalAt(unsigned lmul) const {
        return reciprocalByLmul ? (*reciprocalByLmul)[lmulIndex(lmul)] : reciprocal * lmul;
    }
    static std::size_t lmulIndex(unsigned lmul) { return lmul >= 8 ? 3 : lmul >= 4 ? 2 : lmul >= 2 ? 1 : 0; }
};

// A functional unit as a planner sees it.
struct UnitInfo {
    std::string name;
    std::string unitClass;  // "compute" or "memory"
    unsigned instances = 1;
    std::string slotClass;  // VLIW slot class it issues from ("" when the engine has none)
    // A memory unit's throughput: bytes per cycle of a unit-stride access, elements per cycle of a
    // strided one (0: not a memory unit, or not stated).
    double bytesPerCycle = 0.0, stridedElementsPerCycle = 0.0;
    // The element types it executes, by name ("i8", "f32"); empty: every one.
    std::vector<std::string> dtypes;
    bool executes(const std::string& dtype) const {
        return dtypes.empty() || std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
    }
    // By op name as in the YAML: "fma", "vgather", "reduce", "reduce_ordered", ... (empty for
    // units whose cost is not a table, such as MAC arrays: see EngineInfo::macArray).
    std::map<std::string, OpTimingInfo> ops;

    const OpTimingInfo* findOp(const std::string& op) const {
        auto it = ops.find(op);
        return it == ops.end() ? nullptr : &it->second;
    }
};

struct SlotClassInfo {
    std::string name;    // "scalar", "vector", ...
    unsigned count = 0;  // ops of this class one bundle may hold
};

// Where an engine's vector loads and stores may start (and, strided, how far apart their
// elements may lie): anywhere, at a multiple of the element's size, or of a whole register.
enum class VectorAlignment : std::uint8_t { None, Element, Register };

// The front end's branch predictor, for op streams that know their branches' addresses and
// outcomes (RISC-V programs): they predict and flag Op::kMispredicted; the engine charges
// mispredictPenalty for those.
struct BranchPredictorInfo {
    std::string kind = "none";       // gshare, bimodal or none (every branch predicted right)
    unsigned entries = 0;            // 2-bit counters
    unsigned historyBits = 0;        // global history XORed into the index (gshare)
    unsigned returnStack = 0;        // return-address stack depth
    unsigned indirectEntries = 0;    // last-target table for other indirect jumps
    unsigned mispredictPenalty = 0;  // cycles
};

struct EngineInfo {
    std::string name;
    ClockDomain clock;
    unsigned registerBytes = 0;
    double peakWorkPerCycle = 0.0;  // work units (FLOP, MAC) per cycle, in f32
    // Per element type (DType order): narrower elements fill more lanes of a register. 0: none.
    std::array<double, kDTypeCount> peakWorkByDType{};
    double peakWorkPerCycleFor(DType t) const {
        const double peak = peakWorkByDType[static_cast<std::size_t>(t)];
        return peak > 0 ? peak : peakWorkPerCycle;
    }
    bool mainCompute = true;
    std::optional<MacArrayInfo> macArray;  // the engine's MAC array, if it has one
    unsigned dmaChannels = 0;              // channels of the DMA engine it starts (0: it has none)
    std::uint64_t dmaAlignment = 1;        // its DMA's addresses and strides are multiples of this (bytes)
    VectorAlignment vectorAlignment = VectorAlignment::None;
    std::string key;     // YAML key it was declared under ("core" for core3)
    int cluster = -1;    // index into TargetInfo::clusters; −1: chip level
    unsigned index = 0;  // instance index among its key's instances
    // Memory roles this engine resolves ("l1" → its own l1_3): role name → memory space id.
    std::map<std::string, std::uint8_t> roles;
    // The memories it reaches, in the order of its YAML `memories:` list (roles where it has them):
    // kernels default to the first.
    std::vector<std::uint8_t> memories;
    unsigned vectorRegisters = 0;
    unsigned scalarRegisters = 0;
    bool registerGroups = false;  // LMUL: an op spanning G registers uses vd..vd+G−1
    unsigned issueWidth = 1;
    BranchPredictorInfo predictor;
    bool vliw = false;
    std::vector<SlotClassInfo> slots;  // VLIW slot classes (empty: bundles limited by issueWidth)
    std::vector<UnitInfo> units;
    // By op kind: bit d set when a unit executing the kind executes DType d (0: no unit executes it).
    std::vector<std::uint8_t> dtypesByKind;

    const UnitInfo* findUnit(const std::string& unitName) const {
        for (const auto& u : units)
            if (u.name == unitName)
                return &u;
        return nullptr;
    }
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
