// The TT / TR reproduction (configs/papers/tt-tr.yaml, `reproduction: tt-tr`): seed 002's
// arithmetic for its [64, 32, 3, 3] example recomputed from the closed form of the core count, its
// ring-mean rank rule, its max/min dimension rule on its own examples, and its cost claims (TR
// against TT on the imbalanced layer, TT against TR on a balanced 1×1 layer) from simulated runs
// of the layers in their planned contraction orders (analysis/tensornet/).
#pragma once

#include <string>

#include "analysis/reproduce/Reproduction.h"

namespace tessim {

// Reads the paper file (ConfigError on bad input), runs its simulations (`jobs` at a time, 0: every
// core) and computes the verdicts: match within the tolerance or bound, trend-match when a time ratio
// is off but on the same side of 1, mismatch otherwise (the note gives the correct figure).
ReproResult reproduceTtTrPaper(const std::string& paperPath, const ReproRunner& runner, unsigned jobs = 0);

}  // namespace tessim
