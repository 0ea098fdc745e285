// The tensor-train reproduction (configs/papers/k1-ttd.yaml, `reproduction: tt-layers`): seed 000's
// claims about TT fully connected layers on the K1, each computed from simulated runs — the
// design-space reduction of the 600× example, the register-blocking optimum and its load/store
// saving, the vectorisation speed-up, the FLOPs at which 2, 3 and 4 threads become best (from
// simulated scaling), and TT against dense over a list of FC layers (time and memory).
#pragma once

#include <string>

#include "analysis/reproduce/Reproduction.h"

namespace tessim {

// Reads the paper file (ConfigError on bad input), runs its simulations (`jobs` at a time) and
// computes the claims' verdicts: match inside the published range or tolerance, trend-match when
// only the ordering across claims of the quantity agrees, mismatch otherwise.
ReproResult reproduceTtPaper(const std::string& paperPath, const ReproRunner& runner, unsigned jobs = 0);

}  // namespace tessim
