// `tessim diff A B`: what changed between two runs — two reports (tessim.report/1) or two sweeps'
// results (results.jsonl, or the sweep's directory) — quantity by quantity, and whether any
// watched quantity of B is worse than A's by more than a threshold (a regression).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

struct DiffOptions {
    // A watched quantity of B above A's by more than this many percent is a regression; none when
    // unset (the diff is only printed).
    std::optional<double> thresholdPercent;
    // The quantities that can regress (lower is better); empty: seconds and energy_j.total.
    std::vector<std::string> watch;
};

struct DiffRow {
    std::string point;           // the sweep point's id; "" for a report
    std::string key;             // dotted, as in the report (`traffic_bytes.ddr.read`) or the sweep's metric
    std::optional<double> a, b;  // absent where one side lacks the quantity
    std::string unit;
    bool watched = false;
    bool regression = false;
};

struct DiffResult {
    std::string kind;  // "report" or "sweep"
    std::string a, b;  // the inputs as given
    std::vector<DiffRow> rows;
    std::vector<std::string> onlyInA, onlyInB;  // sweep points one side lacks, by id
    std::vector<std::string> watch;
    std::optional<double> thresholdPercent;
    int regressions = 0;
};

// Reads both inputs (the same kind on both sides) and compares them. Bad input throws
// config::ConfigError naming the file (and line and column for malformed JSON).
DiffResult diffRuns(const std::string& a, const std::string& b, const DiffOptions& options);

// {"schema": "tessim.diff/1", "a", "b", "kind", "threshold_percent", "watch", "regressions",
//  "rows": [{"point", "key", "a", "b", "delta", "change", "unit", "regression"}], ...}; SI units.
nlohmann::ordered_json diffJson(const DiffResult& diff);

// A table of the quantities that changed (all with `all`), then the verdict line.
std::string diffMarkdown(const DiffResult& diff, bool all);

}  // namespace tessim
