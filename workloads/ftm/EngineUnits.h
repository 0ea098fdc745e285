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

}  // namespace tessim
