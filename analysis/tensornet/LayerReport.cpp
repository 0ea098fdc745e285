#include "analysis/tensornet/LayerReport.h"

#include <cmath>

#include <fmt/format.h>

namespace tessim::tn {

namespace {

// Four significant digits: simulated times span microseconds to seconds.
std::string num(double v) {
    return fmt::format("{:.4g}", v);
}

}  // namespace

LayerReport layerReport(const TnLayer& layer, Objective objective, unsigned elementBytes,
                        const std::optional<SimulatedLayer>& simulated) {
    const auto candidates = contractionCandidates(layer, elementBytes);
    const ContractionPlan chosen = chooseContraction(layer, objective, elementBytes);
    const ContractionPlan ltr = leftToRightPlan(layer, elementBytes);
    LayerReport r;
    auto& j = r.json;
    j["layer"] = layer.name;
    j["format"] = formatName(layer.format);
    j["weight"] = layer.weightDims;
    j["cores"] = {{"out", layer.out}, {"in", layer.in}, {"ranks", layer.ranks}};
    j["rows"] = layer.rows;
    j["parameters"] = layer.parameters();
    j["dense_parameters"] = layer.denseParameters();
    j["compression"] = layer.compression();
    j["dense_flops"] = layer.denseFlops();
    j["reconstruction_flops"] = layer.reconstructionFlops();
    j["imbalance"] = layer.imbalance();
    j["objective"] = objective == Objective::Flops ? "flops" : "peak";
    j["element_bytes"] = elementBytes;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& c : candidates)
        all.push_back({{"order", c.name(layer.format)},
                       {"flops", c.flops},
                       {"peak_intermediate_elements", c.peakIntermediate},
                       {"traffic_bytes", c.trafficBytes}});
    j["candidates"] = all;
    j["left_to_right_flops"] = ltr.flops;
    j["chosen"] = planJson(layer, chosen);

    std::string& md = r.markdown;
    md += fmt::format("## {} as {}\n\n", layer.name, layer.describe());
    md += fmt::format("| quantity | value |\n|---|---|\n| weight | {} |\n| rows | {} |\n| parameters | {} |\n"
                      "| dense parameters | {} |\n| compression | {}x |\n| dense FLOPs | {} |\n"
                      "| rebuilding the dense weight (once) | {} FLOPs |\n"
                      "| {} FLOPs (chosen) | {} |\n| max/min weight dimension | {} |\n\n",
                      listText(layer.weightDims), layer.rows, layer.parameters(), layer.denseParameters(),
                      num(layer.compression()), layer.denseFlops(), layer.reconstructionFlops(),
                      formatName(layer.format), chosen.flops, num(layer.imbalance()));
    md += "| order | FLOPs | peak intermediate (elements) | traffic (B) |\n|---|---|---|---|\n";
    for (const auto& c : candidates)
        md += fmt::format("| {}{} | {} | {} | {} |\n", c.name(layer.format),
                          c.name(layer.format) == chosen.name(layer.format) ? " (chosen)" : "", c.flops,
                          c.peakIntermediate, c.trafficBytes);
    md +=
        fmt::format("\nChosen by {}: {}, chain in {} out {} ranks {}{}.\n\n",
                    objective == Objective::Flops ? "FLOPs" : "peak intermediate", chosen.name(layer.format),
                    listText(chosen.chain.in), listText(chosen.chain.out), listText(chosen.chain.ranks),
                    chosen.ringRank > 1 ? fmt::format(", {} ring chains summed", chosen.ringRank) : "");
    md += "| step | core | m | b | r | n | r1 | runs | FLOPs | input | core | output | traffic (B) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t t = 0; t < chosen.steps.size(); ++t) {
        const auto& s = chosen.steps[t];
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", t, s.core,
                          s.einsum.m, s.einsum.b, s.einsum.r, s.einsum.n, s.einsum.r1, s.repeat, s.flops,
                          s.inputElements, s.coreElements, s.outputElements, s.trafficBytes);
    }
    if (simulated) {
        j["simulated"] = {{"target", simulated->target},
                          {"dense",
                           {{"seconds", simulated->dense.seconds},
                            {"cycles", simulated->dense.cycles},
                            {"energy_j", simulated->dense.energyJ}}},
                          {"layer",
                           {{"seconds", simulated->layer.seconds},
                            {"cycles", simulated->layer.cycles},
                            {"energy_j", simulated->layer.energyJ}}},
                          {"speedup", simulated->dense.seconds / simulated->layer.seconds}};
        md += fmt::format("\nSimulated on {}: dense {} s ({} J), {} {} s ({} J), speed-up {}x.\n",
                          simulated->target, num(simulated->dense.seconds), num(simulated->dense.energyJ),
                          formatName(layer.format), num(simulated->layer.seconds),
                          num(simulated->layer.energyJ),
                          num(simulated->dense.seconds / simulated->layer.seconds));
    }
    return r;
}

}  // namespace tessim::tn
