// The model-level TT / TR comparison of seed 002's "complement" strategy: every conv layer of a
// model held as a tensor train and as a tensor ring, each simulated in its planned contraction
// order beside the dense layer, and four whole-model variants totalled — dense, all-TT, all-TR
// and the hybrid that picks per layer TR when the weight's max / min dimension (those above 1)
// exceeds the ratio (5 in the seed), else TT — plus the hybrid that picks the faster form per
// layer by simulated time.
//
// Decomposition of each layer [O, I, K, K]: O and I split into two balanced factors (64 → 8·8),
// the kernel into K and K (one core each); TT inner ranks all `ttRank`, capped at the full-rank
// bound min(Π left factors, Π right factors) so a rank never exceeds what its cut can hold; TR
// ranks all `trRank`.
//
// Grouped convolutions (groups > 1, depthwise when groups = channels) are not factorised: a depthwise
// weight [C, 1, K, K] is C filters of K·K values (MobileNetV2's 17 hold 64224 of its 3.5 M
// parameters: nothing worth a train), and the contraction chain does not apply, since each output
// channel reads its own input channel, not a shared input row the cores could be contracted with.
// They run dense in every variant, so a model's totals cover the whole model: the grouped conv
// itself (on k1 conv2d's grouped layer on one core, on the npu the MAC array's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/reproduce/Reproduction.h"
#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/TnLayer.h"
#include "analysis/tensornet/TnRuns.h"

namespace tessim::tn {

struct ConvSpec {
    std::string name;
    std::uint64_t h = 0, w = 0, channels = 0, filters = 0, k = 0, stride = 1, pad = 0, groups = 1;
};

// The conv layers of a conv2d workload file (`layers:` or a single layer); ConfigError on bad input.
std::vector<ConvSpec> readConvLayers(const std::string& path);

struct HybridOptions {
    std::string target = "npu";
    std::uint64_t ttRank = 8, trRank = 8;
    double ratio = 5.0;
    Objective objective = Objective::Flops;
    unsigned jobs = 0;
};

struct HybridLayer {
    ConvSpec conv;
    bool factorised = true;  // false: a grouped conv, dense in every variant (tt, tr, plans, runs unset)
    std::uint64_t denseParameters = 0, denseFlops = 0;
    TnLayer tt, tr;
    ContractionPlan ttPlan, trPlan;
    Measurement dense, ttRun, trRun;
    bool ruleTr = false;  // the seed's rule picks TR
    bool timeTr = false;  // TR simulates faster
};

struct HybridResult {
    std::vector<HybridLayer> layers;
    nlohmann::ordered_json json;
    std::string markdown;
};

// The TT and TR forms of one conv layer and their plans (no simulation); a grouped conv only its
// dense parameters and FLOPs.
HybridLayer decomposeConv(const ConvSpec& conv, const HybridOptions& options);

// TT inner ranks of a chain of cores (in·out factors per core), each min(rank, full-rank bound).
std::vector<std::uint64_t> cappedTtRanks(const std::vector<std::uint64_t>& in,
                                         const std::vector<std::uint64_t>& out, std::uint64_t rank);

// Decomposes, simulates (3 runs per factorised layer: dense, TT, TR; 1 per grouped one) and totals
// the model.
HybridResult runHybrid(const std::string& model, const std::vector<ConvSpec>& convs,
                       const HybridOptions& options, const ReproRunner& runner);

}  // namespace tessim::tn
