// Looking up the execution unit of an engine that runs an op.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/machine/TargetInfo.h"

namespace tessim {

// The timing of `op` on the first unit of `engine` that runs it, with that unit's instances in
// `instances`; nullptr (instances untouched) when no unit runs it.
inline const OpTimingInfo* findUnitOp(const EngineInfo& engine, const std::string& op, unsigned& instances) {
    for (const auto& u : engine.units)
        if (const OpTimingInfo* t = u.findOp(op)) {
            instances = u.instances;
            return t;
        }
    return nullptr;
}

// Cycles a memory unit of `engine` that executes `op` spends on a vector of `lanes` elements of
// `elem` bytes, unit-stride or strided (at least 1; 1 where the unit states no throughput).
inline double vectorAccessCycles(const EngineInfo& engine, const std::string& op, unsigned lanes,
                                 unsigned elem, bool strided) {
    for (const auto& u : engine.units)
        if (u.findOp(op)) {
            const double cycles =
                strided ? (u.stridedElementsPerCycle > 0 ? lanes / u.stridedElementsPerCycle : 1.0)
                        : (u.bytesPerCycle > 0 ? lanes * elem / u.bytesPerCycle : 1.0);
            return std::max(1.0, std::ceil(cycles));
        }
    return 1.0;
}

// What a modulo-scheduled vector loop needs of a VLIW engine: latencies, unit counts and slots.
struct VliwVectorUnits {
    unsigned fmaLatency = 4, loadLatency = 1, broadcastLatency = 2;
    unsigned fmacs = 1, lsus = 1, broadcasters = 1, scalarAlus = 1, branchUnits = 1;
    unsigned vectorSlots = 0, scalarSlots = 1, vectorRegisters = 64, lanes = 1;
    // The slot class a broadcast issues from, as a modulo schedule's slot index: 1 (scalar) where
    // the broadcast unit sits with the scalar units (ftm2000's SPU), 0 (vector) where it is a
    // vector unit (the npu's vpu).
    unsigned broadcastSlot = 1;
    bool complete = false;  // the engine has add, vload and broadcast
};

// Of `engine`, for elements of `elem` bytes (add's unit stands for every op timed as add).
inline VliwVectorUnits vliwVectorUnits(const EngineInfo& engine, unsigned elem) {
    VliwVectorUnits u;
    unsigned n = 0;
    const OpTimingInfo* add = findUnitOp(engine, "add", n);
    u.fmacs = n;
    const OpTimingInfo* load = findUnitOp(engine, "vload", n);
    u.lsus = n;
    const OpTimingInfo* broadcast = findUnitOp(engine, "broadcast", n);
    u.broadcasters = n;
    u.complete = add && load && broadcast;
    if (!u.complete)
        return u;
    u.fmaLatency = static_cast<unsigned>(std::ceil(add->latency));
    u.loadLatency = static_cast<unsigned>(std::ceil(load->latency));
    u.broadcastLatency = static_cast<unsigned>(std::ceil(broadcast->latency));
    for (const auto& unit : engine.units)
        if (unit.findOp("broadcast")) {
            u.broadcastSlot = unit.slotClass == "vector" ? 0 : 1;
            break;
        }
    if (findUnitOp(engine, "sadd", n))
        u.scalarAlus = n;
    if (findUnitOp(engine, "branch", n))
        u.branchUnits = n;
    u.vectorSlots = u.fmacs + u.lsus;
    for (const auto& sc : engine.slots) {
        if (sc.name == "vector")
            u.vectorSlots = sc.count;
        if (sc.name == "scalar")
            u.scalarSlots = sc.count;
    }
    u.vectorRegisters = engine.vectorRegisters;
    u.lanes = std::max(1u, engine.registerBytes / elem);
    return u;
}

}  // namespace tessim
