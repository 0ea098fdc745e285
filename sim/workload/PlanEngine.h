// Which engine a plan runs on: its `engine` key, checked against the target, or the target's main
// compute engine.
#pragma once

#include "sim/config/Reader.h"
#include "sim/target/TargetInfo.h"

namespace tessim {

inline const EngineInfo& planEngine(const config::Reader& plan, const TargetInfo& target) {
    if (!plan.has("engine"))
        return target.mainEngine();
    const std::string name = plan.get<std::string>("engine");
    const EngineInfo* engine = target.findEngine(name);
    if (!engine)
        plan.fail("engine", "target '" + target.name + "' has no engine '" + name + "'");
    return *engine;
}

}  // namespace tessim
