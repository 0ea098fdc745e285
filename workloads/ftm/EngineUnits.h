// Looking up the execution unit of an engine that runs an op.
#pragma once

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

}  // namespace tessim
