// The Pareto front of finished points over the sweep's objectives (metrics or parameters;
// parameters with units compare as numbers: "512 KiB" < "1 MiB").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run/sweep/ResultRow.h"
#include "run/sweep/SweepSpec.h"

namespace tessim::sweep {

/// The row's value for a metric or parameter as a number; std::nullopt if it has none.
std::optional<double> columnNumber(const ResultRow& row, const std::string& key);

/// Indices of the ok rows that no other ok row dominates (rows lacking an objective are left
/// out), ordered by the objectives (best first) and then by id.
std::vector<size_t> paretoFront(const std::vector<ResultRow>& rows, const std::vector<Objective>& objectives);

}  // namespace tessim::sweep
