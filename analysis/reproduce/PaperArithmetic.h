// The papers' own numbers checked against each other (a paper file's `consistency:` list): each
// check recomputes an inequality or an agreement from published figures, and its verdict is
// `consistent` or `inconsistent`, with the arithmetic in its note. Nothing simulated enters.
//
//   consistency:
//     - id: amdahl
//       what: "2.1x end to end with FC layers at most 60 % of the time made at most 4x faster"
//       source: "seed 000, abstract and section 4.3"
//       value: "2.1"                          # what the paper states
//       at_most: "1 / ((1 - 0.6) + 0.6 / 4)"  # what its own figures allow (or at_least)
//     - id: busy-time
//       what: "the same MACs on the same array: busy time (1 - stall) x time"
//       values: {naive: "(1 - 0.825) * 85", static: "(1 - 0.42) * 38.5"}
//       agree_within: 0.10                   # max / min - 1 allowed
//       unit: ms
// Expressions: numbers, + - * /, parentheses, sqrt, log2, floor, ceil, min, max.
#pragma once

#include <string>
#include <vector>

#include "analysis/reproduce/Reproduction.h"

namespace tessim {

namespace config {
class Reader;
}

// The value of an arithmetic expression; false with `error` set on a syntax error.
bool evaluateArithmetic(const std::string& expression, double& value, std::string& error);

// Reads and evaluates the paper file's `consistency` list (empty when absent).
std::vector<ConsistencyCheck> readConsistencyChecks(const config::Reader& paper);

}  // namespace tessim
