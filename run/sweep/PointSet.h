// The points of a sweep: the grid's cartesian product × the zipped rows × the samples, each a
// list of key=value texts with its stable id.
#pragma once

#include <string>
#include <vector>

#include "run/sweep/PointId.h"
#include "run/sweep/SweepSpec.h"

namespace tessim::sweep {

struct Point {
    std::string id;
    ParameterValues params;  // in SweepSpec::parameterKeys() order
};

/// Values of a range walked by a grid or zip (step or count, linear or log), deduplicated.
std::vector<std::string> expandRange(const NumericRange& range);

/// The text of one range value after rounding ("768 KiB", "24", "1.25 GHz").
std::string rangeValueText(const NumericRange& range, double value);

/// Every point, in a deterministic order; points with equal parameters appear once.
/// `duplicates` (optional) receives how many were dropped.
std::vector<Point> generatePoints(const SweepSpec& spec, size_t* duplicates = nullptr);

/// Number of points before deduplication (grid size × zip length × sample count).
double pointCountEstimate(const SweepSpec& spec);

/// At least pointCountEstimate, computed without expanding any axis, so a huge grid is measured at
/// once.
double pointCountUpperBound(const SweepSpec& spec);
/// At most pointCountEstimate, also without expanding any axis.
double pointCountLowerBound(const SweepSpec& spec);

}  // namespace tessim::sweep
