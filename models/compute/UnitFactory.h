// The closed set of functional-unit models, picked by the YAML key `impl` (default `table`).
#pragma once

#include <memory>
#include <string>

#include "sim/config/Reader.h"
#include "sim/engine/FunctionalUnit.h"

namespace tessim {

struct UnitContext {
    unsigned registerBytes = 32;  // of the owning engine
    double clockHz = 1e9;
};

std::unique_ptr<FunctionalUnit> makeUnit(config::Reader& r, const std::string& name,
                                         const UnitContext& context);

}  // namespace tessim
