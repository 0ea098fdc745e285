// Which engines a plan runs on. One engine: the plan's `engine` key, checked against the target,
// or the target's main compute engine. Several (a kernel split across cores): `engines: [...]`
// in core order, or `cores: N`, the first N main compute engines in target order.
#pragma once

#include <vector>

#include "sim/config/Reader.h"
#include "sim/machine/TargetInfo.h"

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

// Reads `engine`, `engines` and `cores` (default: one core, as planEngine). ConfigError when both
// `engine` and `engines` are given, when `cores` and `engines` disagree, when an engine is
// unknown or named twice, or when the target has fewer main compute engines than `cores`.
// `countKey` names the count key for kernels that speak of threads pinned to cores ("threads");
// `defaultCount` is its value when the plan names neither it nor an engine (0: every main engine).
std::vector<const EngineInfo*> planEngines(const config::Reader& plan, const TargetInfo& target,
                                           const std::string& countKey = "cores", unsigned defaultCount = 1);

}  // namespace tessim
