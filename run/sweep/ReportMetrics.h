// Metrics out of a run's JSON report by dotted path ("energy_j.total",
// "traffic_bytes.ddr.read"), whether the report nests the keys or spells them with dots.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tessim::sweep {

/// The value at `path`, or nullptr. A {"value": v, "unit": u} leaf (the stats tree) gives v.
const nlohmann::ordered_json* findMetric(const nlohmann::ordered_json& report, const std::string& path);

}  // namespace tessim::sweep
