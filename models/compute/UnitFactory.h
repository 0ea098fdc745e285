// The closed set of functional-unit models, picked by the YAML key `impl` (default `table`).
// Every unit may name its VLIW slot class (`slot: vector`); see EngineConfig.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/Reader.h"
#include "sim/engine/FunctionalUnit.h"

namespace tessim {

struct UnitContext {
    unsigned registerBytes = 32;  // of the owning engine
    double clockHz = 1e9;
    // The engine's VLIW slot classes: when there are any, each unit names its own (`slot:`).
    std::vector<std::string> slotClasses;
};

std::unique_ptr<FunctionalUnit> makeUnit(config::Reader& r, const std::string& name,
                                         const UnitContext& context);

}  // namespace tessim
