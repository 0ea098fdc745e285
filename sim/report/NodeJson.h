// A configuration tree as JSON for reports: numbers become numbers, booleans booleans, and
// quantities keep the text the user wrote ("1 MiB"), so a report echoes its inputs faithfully.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/config/Node.h"

namespace tessim {

nlohmann::ordered_json nodeToJson(const config::Node& node);

}  // namespace tessim
