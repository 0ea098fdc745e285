// The kinds of reproduction, one row each, picked by a paper file's `reproduction` key: `claims`
// (the default: each claim one simulated run, Reproduction.h), `tt-layers` (TtReproduction.h)
// and `tt-tr` (TtTrReproduction.h). A new kind is one file plus one row.
#pragma once

#include <string>
#include <vector>

#include "analysis/reproduce/Reproduction.h"

namespace tessim {

struct ReproductionKind {
    std::string name;         // the paper's `reproduction:` value
    std::string description;  // one line
    ReproResult (*reproduce)(const std::string& paperPath, const ReproRunner& runner);
};

const std::vector<ReproductionKind>& reproductionKinds();
// Runs the paper with its kind's row; a kind no row has is a ConfigError at the paper's
// `reproduction` key that lists the kinds.
ReproResult reproduce(const std::string& paperPath, const ReproRunner& runner);

}  // namespace tessim
