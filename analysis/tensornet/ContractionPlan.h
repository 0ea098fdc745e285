// How the forward pass of a TT or TR layer contracts the input with the cores, one core at a time.
//
// A plan is a direction and the rank where the chain is broken: a train is a ring whose closing
// rank r_0 = r_d is 1, so it may start at any core as a ring does (its mode order free, the 2·d
// orders a ring has), the rank r_k where it starts then carried as a ring's is. It is realised as a
// chain shape (TtShape, ends r_0 = r_d = 1) that the TT einsum chain runs last core first:
//   right to left: the cores as they are (the chain's first einsum is core d − 1);
//   left to right: the cores reversed (the input's modes are then laid out in reverse order);
//   broken before core k: the cores rotated to start at k; rank r_k is carried as r_k
//     separate chains (end cores sliced at ring index a), whose outputs are summed — the FLOPs
//     are r_k times the chain's, since the ring index rides through every step.
// For each candidate the plan reports per step its FLOPs, operand sizes and the bytes it moves
// (input read, core read, output written, at the given element size), and the largest
// intermediate. The planner picks the candidate with the fewest FLOPs or the smallest peak
// intermediate; left to right (a ring broken before core 0) is always among the candidates.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/tensornet/TnLayer.h"
#include "workloads/tt/TensorTrainShape.h"

namespace tessim::tn {

enum class Objective { Flops, Peak };

struct ContractionStep {
    unsigned core = 0;         // the layer's core (before rotation or reversal) this step contracts
    TtEinsum einsum;           // in the chain's terms: Out[m][b][r] = Σ_(n,r1) G[m][r][n,r1] · In[b][n,r1]
    std::uint64_t repeat = 1;  // times it runs: the ring rank carried
    std::uint64_t flops = 0;   // all repeats
    std::uint64_t inputElements = 0, coreElements = 0, outputElements = 0;  // one run
    std::uint64_t trafficBytes = 0;                                         // all repeats
};

struct ContractionPlan {
    bool leftToRight = false;
    unsigned breakAt = 0;         // the chain is broken before this core
    std::uint64_t ringRank = 1;   // chains summed: r_breakAt (1 for a train broken before core 0)
    TtShape chain;                // rotated / reversed cores, ends 1, run last core first
    std::vector<unsigned> cores;  // the layer's core held by chain core c
    std::vector<ContractionStep> steps;
    std::uint64_t flops = 0;
    std::uint64_t peakIntermediate = 0;  // elements, of one chain
    std::uint64_t trafficBytes = 0;

    // "left-to-right", "right-to-left" (a train from core 0), "train@2 left-to-right", "ring@2 left-to-right"
    std::string name(Format format) const;
};

// Every candidate of the layer: both directions at every break point (TT and TR alike).
std::vector<ContractionPlan> contractionCandidates(const TnLayer& layer, unsigned elementBytes);
// The plan that runs core 0 first, as the cores stand (a ring broken before core 0).
ContractionPlan leftToRightPlan(const TnLayer& layer, unsigned elementBytes);
// The best candidate by the objective; ties go to fewer FLOPs, then fewer chains, then the smaller
// peak, then less traffic, then the first.
ContractionPlan chooseContraction(const TnLayer& layer, Objective objective, unsigned elementBytes);

Objective parseObjective(const std::string& text);  // "flops" | "peak"; std::invalid_argument else

nlohmann::ordered_json planJson(const TnLayer& layer, const ContractionPlan& plan);

}  // namespace tessim::tn
