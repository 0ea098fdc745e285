// The report of one TT / TR layer (`tessim tn plan`): its decomposition (parameters, compression,
// dense FLOPs), every contraction candidate, the chosen order step by step, and optionally the
// simulated layer beside its simulated dense baseline.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/TnLayer.h"
#include "analysis/tensornet/TnRuns.h"

namespace tessim::tn {

struct LayerReport {
    nlohmann::ordered_json json;
    std::string markdown;
};

struct SimulatedLayer {
    std::string target;
    Measurement dense, layer;
};

LayerReport layerReport(const TnLayer& layer, Objective objective, unsigned elementBytes,
                        const std::optional<SimulatedLayer>& simulated);

}  // namespace tessim::tn
