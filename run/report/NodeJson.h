// A configuration tree as JSON for reports: numbers become numbers, booleans booleans, and
// quantities keep the text the user wrote ("1 MiB"), so a report echoes its inputs faithfully.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/config/Node.h"

namespace tessim {

nlohmann::ordered_json nodeToJson(const config::Node& node);
// A target's tree as built, with the energy table it read under `energy_table_resolved`.
nlohmann::ordered_json targetToJson(const config::Node& target, const config::Node* energyTable);

}  // namespace tessim
