#include "analysis/tensornet/ContractionPlan.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace tessim::tn {

namespace {

ContractionPlan makePlan(const TnLayer& layer, unsigned breakAt, bool leftToRight, unsigned elementBytes) {
    const unsigned d = layer.d();
    ContractionPlan p;
    p.leftToRight = leftToRight;
    p.breakAt = breakAt;
    p.ringRank = layer.ranks[breakAt];  // a train's r_0 is 1: broken there, nothing is carried
    // Rotated: core c of the chain is the layer's core (breakAt + c) mod d, rank j is r_(breakAt + j).
    std::vector<unsigned> cores;
    std::vector<std::uint64_t> ranks;
    for (unsigned c = 0; c < d; ++c)
        cores.push_back((breakAt + c) % d);
    for (unsigned j = 0; j <= d; ++j)
        ranks.push_back(layer.ranks[(breakAt + j) % d]);
    if (leftToRight) {  // the chain runs its last core first: reverse it so core breakAt runs first
        std::reverse(cores.begin(), cores.end());
        std::reverse(ranks.begin(), ranks.end());
    }
    ranks.front() = ranks.back() = 1;
    p.cores = cores;
    for (unsigned c : cores) {
        p.chain.in.push_back(layer.in[c]);
        p.chain.out.push_back(layer.out[c]);
    }
    p.chain.ranks = ranks;
    for (const TtEinsum& e : p.chain.einsums(layer.rows)) {
        ContractionStep s;
        s.core = cores[e.core];
        s.einsum = e;
        s.repeat = p.ringRank;
        s.flops = e.flops() * p.ringRank;
        s.inputElements = e.inputElements();
        s.coreElements = e.coreElements();
        s.outputElements = e.outputElements();
        s.trafficBytes = (s.inputElements + s.coreElements + s.outputElements) * elementBytes * p.ringRank;
        p.flops += s.flops;
        p.trafficBytes += s.trafficBytes;
        p.steps.push_back(s);
    }
    p.peakIntermediate = p.chain.largestIntermediate(layer.rows);
    return p;
}

}  // namespace

std::string ContractionPlan::name(Format format) const {
    const char* dir = leftToRight ? "left-to-right" : "right-to-left";
    if (format == Format::TT)
        return breakAt == 0 ? std::string(dir) : fmt::format("train@{} {}", breakAt, dir);
    return fmt::format("ring@{} {}", breakAt, dir);
}

std::vector<ContractionPlan> contractionCandidates(const TnLayer& layer, unsigned elementBytes) {
    layer.validate();
    std::vector<ContractionPlan> plans;
    for (unsigned k = 0; k < layer.d(); ++k)
        for (bool ltr : {true, false})
            plans.push_back(makePlan(layer, k, ltr, elementBytes));
    return plans;
}

ContractionPlan leftToRightPlan(const TnLayer& layer, unsigned elementBytes) {
    layer.validate();
    return makePlan(layer, 0, true, elementBytes);
}

ContractionPlan chooseContraction(const TnLayer& layer, Objective objective, unsigned elementBytes) {
    const auto plans = contractionCandidates(layer, elementBytes);
    // Among equal FLOPs (a train broken where its ranks meet a 1 costs no more), fewer chains:
    // each is a pass of its own over the input (the balanced 1x1 layer's TT [1,4,1] started at
    // core 1 ties in FLOPs and ran 2.6x slower on k1 as four chains).
    auto key = [&](const ContractionPlan& p) {
        return objective == Objective::Flops
                   ? std::make_tuple(p.flops, p.ringRank, p.peakIntermediate, p.trafficBytes)
                   : std::make_tuple(p.peakIntermediate, p.flops, p.ringRank, p.trafficBytes);
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < plans.size(); ++i)
        if (key(plans[i]) < key(plans[best]))
            best = i;
    return plans[best];
}

Objective parseObjective(const std::string& text) {
    if (text == "flops")
        return Objective::Flops;
    if (text == "peak")
        return Objective::Peak;
    throw std::invalid_argument("objective '" + text + "': expected flops or peak");
}

nlohmann::ordered_json planJson(const TnLayer& layer, const ContractionPlan& plan) {
    nlohmann::ordered_json j;
    j["order"] = plan.name(layer.format);
    j["direction"] = plan.leftToRight ? "left-to-right" : "right-to-left";
    j["break_at"] = plan.breakAt;
    j["ring_rank"] = plan.ringRank;
    j["chain"] = {{"in", plan.chain.in}, {"out", plan.chain.out}, {"ranks", plan.chain.ranks}};
    j["cores"] = plan.cores;
    j["flops"] = plan.flops;
    j["peak_intermediate_elements"] = plan.peakIntermediate;
    j["traffic_bytes"] = plan.trafficBytes;
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : plan.steps) {
        nlohmann::ordered_json st;
        st["core"] = s.core;
        st["m"] = s.einsum.m;
        st["b"] = s.einsum.b;
        st["r"] = s.einsum.r;
        st["n"] = s.einsum.n;
        st["r1"] = s.einsum.r1;
        st["repeat"] = s.repeat;
        st["flops"] = s.flops;
        st["input_elements"] = s.inputElements;
        st["core_elements"] = s.coreElements;
        st["output_elements"] = s.outputElements;
        st["traffic_bytes"] = s.trafficBytes;
        steps.push_back(st);
    }
    j["steps"] = steps;
    return j;
}

}  // namespace tessim::tn
