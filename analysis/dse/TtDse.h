// `tessim dse`: the design-space exploration of tensor-train (TT) shapes for one fc layer. It
// enumerates and prunes the space (TtDesignSpace.h), simulates the survivors as a sweep (one process
// per point, `jobs` at a time, resumable in DIR/runs) and the dense layer once, and ranks the
// survivors by simulated time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/dse/TtDesignSpace.h"

namespace tessim {

struct DseOptions {
    std::string target = "k1";
    std::string workload = "fc";
    std::string plan;               // TT plan of every survivor (default: the kernel's defaults)
    std::vector<std::string> sets;  // --set overrides (workload.in/out/batch pick the layer)
    TtSpaceOptions space;
    unsigned maxThreads = 4;
    std::vector<double> threadThresholds{2e6, 4e6, 8e6};  // the seed's FLOPs per extra thread
    unsigned simulate = 256;                              // survivors simulated, fewest FLOPs first
    unsigned top = 10;                                    // best solutions reported
    std::size_t jobs = 0;                                 // 0: every core
    std::string outDir;                                   // default out/dse/<target>-<in>x<out>
    bool resume = false;
    bool breakdown = true;  // rerun the best solution with each optimisation added in turn
    bool plot = false;      // DIR/runs/plots: simulated time against TT weights, with the Pareto front
};

struct DseResult {
    nlohmann::ordered_json json;  // {"steps": [{name, count}], "best": [...], "dense": {...}, ...}
    std::string markdown;
};

// Runs the exploration; throws ConfigError / std::runtime_error on bad input or failed runs.
DseResult runTtDse(DseOptions options, std::ostream& progress);

// The einsum thread counts of a TT shape by the seed's FLOPs rule.
std::vector<unsigned> einsumThreads(const TtShape& shape, std::uint64_t batch, const DseOptions& options);

}  // namespace tessim
