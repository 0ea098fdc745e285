// A sweep file, validated: the base run, the parameter space, the metrics to record, the
// objectives of the Pareto front and the plots to draw.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/Location.h"

namespace tessim::config {
class Node;
}

namespace tessim::sweep {

/// A numeric range of values; `unit` keeps the unit of `from` ("KiB", "GHz"; empty for plain
/// numbers) so generated values are text the run accepts ("768 KiB").
struct NumericRange {
    double from = 0.0;  // in the base unit (bytes, Hz, ...) when the range has a unit
    double to = 0.0;
    std::optional<double> step;    // grid/zip: linear step
    std::optional<int64_t> count;  // grid/zip: number of values (with `log`, geometric)
    bool log = false;
    bool integer = false;    // round to whole numbers (always for sizes, to whole bytes)
    double round = 0.0;      // snap to a multiple of this (base unit); 0: no snapping
    bool isSize = false;     // values are sizes: printed exactly in B/KiB/MiB/GiB
    std::string unit;        // display unit for non-size quantities
    double unitScale = 1.0;  // base units per display unit
};

/// The values one parameter takes: a list of texts or a range.
struct ValueDomain {
    std::vector<std::string> values;
    std::optional<NumericRange> range;
};

/// The parameter key of an axis over whole plans: its values are what `--plan` takes (library
/// names such as double-buffer, or paths), so a point runs exactly as `tessim run --plan V`.
inline constexpr const char* kPlanAxis = "plan";

struct Axis {
    std::string key;  // dotted --set path (target.*, workload.* or plan.*), or kPlanAxis
    ValueDomain domain;
    config::Location where;
};

enum class SampleMethod { Random, LatinHypercube };

struct SampleBlock {
    SampleMethod method = SampleMethod::Random;
    int64_t count = 0;
    uint64_t seed = 1;
    std::vector<Axis> axes;
};

enum class Direction { Minimize, Maximize };

struct Objective {
    std::string key;  // a metric or a parameter
    Direction direction = Direction::Minimize;
};

struct PlotRequest {
    std::string kind;  // heatmap | pareto | lines
    std::string x;
    std::vector<std::string> y;
    std::string group;
    std::string metric;
};

struct SweepSpec {
    std::string file;
    std::string name;
    std::string description;  // one line, for `tessim list sweeps`
    std::string target;
    std::string workload;
    std::string plan;  // empty: the run's default
    // Where base.target, base.workload and base.plan are written (a name no library holds is an
    // error there, not on the command line the points are run with).
    std::map<std::string, config::Location> baseWhere;
    std::vector<std::pair<std::string, std::string>> fixed;  // base.set, in file order
    std::vector<Axis> grid;                                  // cartesian product, first key outermost
    std::vector<Axis> zip;                                   // equal-length lists walked together
    std::optional<SampleBlock> sample;
    std::vector<std::string> metrics;
    std::vector<Objective> objectives;
    std::vector<PlotRequest> plots;
    std::optional<double> timeoutSeconds;
    /// Undocumented test hook (`_test_point_command: [argv...]`): replaces `/proc/self/exe run`
    /// so the CLI and MPI tests can run stand-in points that fail or hang on purpose.
    std::vector<std::string> testPointCommand;

    /// Swept keys in column order: grid, then zip, then sample.
    std::vector<std::string> parameterKeys() const;
};

/// Metrics recorded when the sweep file names none.
const std::vector<std::string>& defaultMetrics();

/// Parses and validates; every error is a config::ConfigError naming file:line:col and key.
SweepSpec loadSweepSpec(const std::string& path);
SweepSpec parseSweepSpec(const config::Node& root, const std::string& file);

}  // namespace tessim::sweep
