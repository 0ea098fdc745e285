// Runs a sweep's points on this machine: a process pool `jobs` wide, rows handed to a sink as
// points finish.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "run/sweep/PointSet.h"
#include "run/sweep/ResultRow.h"
#include "run/sweep/SweepSpec.h"

namespace tessim::sweep {

struct ExecutionSettings {
    std::vector<std::string> command;  // argv prefix of a point, e.g. {"/proc/self/exe", "run"}
    size_t jobs = 1;
    double timeoutSeconds = 0.0;  // <= 0: none
};

using RowSink = std::function<void(const ResultRow&)>;
/// Called often with the number of points running; returning false stops the sweep.
using Tick = std::function<bool(size_t running)>;

/// Runs points[i] for every i in `pending`; false when `tick` stopped it (running points are
/// killed and not reported).
bool runPointsLocally(const SweepSpec& spec, const std::vector<Point>& points,
                      const std::vector<size_t>& pending, const ExecutionSettings& settings,
                      const RowSink& sink, const Tick& tick);

}  // namespace tessim::sweep
