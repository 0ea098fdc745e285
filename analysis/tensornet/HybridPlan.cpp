#include "analysis/tensornet/HybridPlan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "analysis/tensornet/TnWorkloads.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

namespace tessim::tn {

namespace {

using Json = nlohmann::ordered_json;

ConvSpec readConv(const config::Reader& r, const std::string& fallbackName) {
    using config::Range;
    ConvSpec c;
    c.name = r.get<std::string>("name", fallbackName);
    const Range<std::uint64_t> size{1, 1 << 16};
    c.h = r.get<std::uint64_t>("h", size);
    c.w = r.get<std::uint64_t>("w", size);
    c.channels = r.get<std::uint64_t>("channels", size);
    c.filters = r.get<std::uint64_t>("filters", size);
    c.k = r.get<std::uint64_t>("k", Range<std::uint64_t>{1, 255});
    c.stride = r.get<std::uint64_t>("stride", 1, Range<std::uint64_t>{1, 255});
    c.pad = r.get<std::uint64_t>("pad", 0, Range<std::uint64_t>{0, 255});
    c.groups = r.get<std::uint64_t>("groups", 1, Range<std::uint64_t>{1, 65535});
    if (c.channels % c.groups != 0 || c.filters % c.groups != 0)
        r.fail("groups", fmt::format("groups {} must divide both channels ({}) and filters ({})", c.groups,
                                     c.channels, c.filters));
    if (c.h + 2 * c.pad < c.k || c.w + 2 * c.pad < c.k)
        r.fail("k", fmt::format("a {}x{} kernel does not fit a {}x{} input with padding {}", c.k, c.k, c.h,
                                c.w, c.pad));
    return c;
}

// Four significant digits: simulated times span microseconds to seconds.
std::string num(double v) {
    return fmt::format("{:.4g}", v);
}

struct Total {
    std::uint64_t parameters = 0, flops = 0;
    double seconds = 0, energyJ = 0;
    unsigned trLayers = 0;

    void add(std::uint64_t p, std::uint64_t f, const Measurement& m, bool tr) {
        parameters += p;
        flops += f;
        seconds += m.seconds;
        energyJ += m.energyJ;
        trLayers += tr ? 1 : 0;
    }
    Json json() const {
        return Json{{"parameters", parameters},
                    {"flops", flops},
                    {"seconds", seconds},
                    {"energy_j", energyJ},
                    {"tr_layers", trLayers}};
    }
};

}  // namespace

std::vector<ConvSpec> readConvLayers(const std::string& path) {
    const config::Node root = config::loadYamlFile(path);
    config::Reader r(root);
    if (r.get<std::string>("kernel", std::string("conv2d")) != "conv2d")
        r.fail("kernel", "a model for the TT / TR comparison is a conv2d workload");
    for (const char* key : {"name", "description", "source", "dtype", "output_dtype", "batch"})
        r.ignore(key);
    std::vector<ConvSpec> convs;
    if (r.has("layers")) {
        const auto rows = r.children("layers");
        for (std::size_t i = 0; i < rows.size(); ++i) {
            convs.push_back(readConv(rows[i], fmt::format("layer{}", i)));
            rows[i].finish();
        }
    } else {
        convs.push_back(readConv(r, r.get<std::string>("name", std::string("layer"))));
    }
    r.finish();
    return convs;
}

std::vector<std::uint64_t> cappedTtRanks(const std::vector<std::uint64_t>& in,
                                         const std::vector<std::uint64_t>& out, std::uint64_t rank) {
    const std::size_t d = in.size();
    std::vector<std::uint64_t> ranks;
    for (std::size_t c = 1; c < d; ++c) {
        std::uint64_t left = 1, right = 1;
        for (std::size_t j = 0; j < c; ++j)
            left = std::min<std::uint64_t>(left * in[j] * out[j], std::uint64_t{1} << 40);
        for (std::size_t j = c; j < d; ++j)
            right = std::min<std::uint64_t>(right * in[j] * out[j], std::uint64_t{1} << 40);
        ranks.push_back(std::min({rank, left, right}));
    }
    return ranks;
}

HybridLayer decomposeConv(const ConvSpec& conv, const HybridOptions& options) {
    HybridLayer l;
    l.conv = conv;
    const std::uint64_t rows = convOutputPixels(conv.h, conv.w, conv.k, conv.k, conv.stride, conv.pad);
    if (2.0 * static_cast<double>(rows) * static_cast<double>(conv.filters) *
            static_cast<double>(conv.channels / conv.groups) * static_cast<double>(conv.k * conv.k) >
        9.0e18)
        throw std::invalid_argument(conv.name + ": the layer's FLOPs are too large to count in 64 bits");
    l.denseParameters = conv.filters * (conv.channels / conv.groups) * conv.k * conv.k;
    l.denseFlops = 2 * rows * l.denseParameters;
    if (conv.groups > 1) {
        l.factorised = false;
        return l;
    }
    auto make = [&](Format f, const std::vector<std::uint64_t>& ranks) {
        TnLayer t = convLayer(conv.name, f, conv.filters, conv.channels, conv.k, conv.k,
                              balancedFactors(conv.filters), balancedFactors(conv.channels), Spatial::Split,
                              ranks, rows);
        t.convH = conv.h;
        t.convW = conv.w;
        t.stride = conv.stride;
        t.pad = conv.pad;
        return t;
    };
    const TnLayer shape =
        convCores(conv.name, Format::TT, conv.filters, conv.channels, conv.k, conv.k,
                  balancedFactors(conv.filters), balancedFactors(conv.channels), Spatial::Split, rows);
    const unsigned d = static_cast<unsigned>(shape.in.size());
    if (d < 2)
        throw std::invalid_argument(conv.name + ": a 1-core layer cannot be factorised");
    l.tt = make(Format::TT, cappedTtRanks(shape.in, shape.out, options.ttRank));
    l.tr = make(Format::TR, std::vector<std::uint64_t>(d, options.trRank));
    const unsigned bytes = options.target == "npu" ? 1 : 4;
    l.ttPlan = chooseContraction(l.tt, options.objective, bytes);
    l.trPlan = chooseContraction(l.tr, options.objective, bytes);
    l.ruleTr = l.tt.imbalance() > options.ratio;
    return l;
}

HybridResult runHybrid(const std::string& model, const std::vector<ConvSpec>& convs,
                       const HybridOptions& options, const ReproRunner& runner) {
    if (!tnTargetSupported(options.target))
        throw std::invalid_argument("target '" + options.target +
                                    "': the TT / TR comparison runs on k1 or npu");
    HybridResult res;
    std::vector<ReproRun> runs;
    for (const auto& conv : convs) {
        HybridLayer l = decomposeConv(conv, options);
        const std::string base = fmt::format("{:02d}-{}", res.layers.size(), conv.name);
        if (l.factorised) {
            runs.push_back(denseRun(base + "-dense", options.target, l.tt));
            runs.push_back(layerRun(base + "-tt", options.target, l.tt, l.ttPlan));
            runs.push_back(layerRun(base + "-tr", options.target, l.tr, l.trPlan));
        } else {
            runs.push_back(groupedDenseRun(base + "-dense", options.target,
                                           GroupedConv{conv.name, conv.h, conv.w, conv.channels, conv.filters,
                                                       conv.k, conv.stride, conv.pad, conv.groups}));
        }
        res.layers.push_back(std::move(l));
    }
    const auto measured = runMeasured(runs, runner, options.jobs);
    Total dense, tt, tr, rule, byTime;
    Json layers = Json::array();
    std::string md =
        fmt::format("## TT / TR / hybrid on {} ({})\n\nTT ranks {} (capped at the full-rank bound), "
                    "TR ranks {}, rule: TR when max/min weight dimension > {}, contraction order by {}.\n\n"
                    "| layer | weight | max/min | rule | dense s | TT params | TT s | TR params | TR s | "
                    "faster |\n|---|---|---|---|---|---|---|---|---|---|\n",
                    model, options.target, options.ttRank, options.trRank, num(options.ratio),
                    options.objective == Objective::Flops ? "FLOPs" : "peak intermediate");
    unsigned groupedLayers = 0;
    std::uint64_t groupedParameters = 0;
    for (std::size_t i = 0; i < res.layers.size(); ++i) {
        HybridLayer& l = res.layers[i];
        const std::string base = fmt::format("{:02d}-{}", i, l.conv.name);
        l.dense = measured.at(base + "-dense");
        if (!l.factorised) {
            // Dense in every variant.
            for (Total* t : {&dense, &tt, &tr, &rule, &byTime})
                t->add(l.denseParameters, l.denseFlops, l.dense, false);
            ++groupedLayers;
            groupedParameters += l.denseParameters;
            const std::vector<std::uint64_t> weight{l.conv.filters, l.conv.channels / l.conv.groups, l.conv.k,
                                                    l.conv.k};
            layers.push_back(Json{
                {"name", l.conv.name},
                {"weight", weight},
                {"groups", l.conv.groups},
                {"rows", convOutputPixels(l.conv.h, l.conv.w, l.conv.k, l.conv.k, l.conv.stride, l.conv.pad)},
                {"factorised", false},
                {"rule", "dense"},
                {"faster", "dense"},
                {"dense", Json{{"parameters", l.denseParameters},
                               {"flops", l.denseFlops},
                               {"seconds", l.dense.seconds},
                               {"energy_j", l.dense.energyJ},
                               {"simulated_as", "the grouped conv"}}}});
            md += fmt::format("| {} | {} groups {} | – | dense | {} | – | – | – | – | – |\n", l.conv.name,
                              listText(weight), l.conv.groups, num(l.dense.seconds));
            continue;
        }
        l.ttRun = measured.at(base + "-tt");
        l.trRun = measured.at(base + "-tr");
        l.timeTr = l.trRun.seconds < l.ttRun.seconds;
        const std::uint64_t ttP = l.tt.parameters(), trP = l.tr.parameters();
        dense.add(l.tt.denseParameters(), l.tt.denseFlops(), l.dense, false);
        tt.add(ttP, l.ttPlan.flops, l.ttRun, false);
        tr.add(trP, l.trPlan.flops, l.trRun, true);
        rule.add(l.ruleTr ? trP : ttP, l.ruleTr ? l.trPlan.flops : l.ttPlan.flops,
                 l.ruleTr ? l.trRun : l.ttRun, l.ruleTr);
        byTime.add(l.timeTr ? trP : ttP, l.timeTr ? l.trPlan.flops : l.ttPlan.flops,
                   l.timeTr ? l.trRun : l.ttRun, l.timeTr);
        auto form = [](const TnLayer& t, const ContractionPlan& p, const Measurement& m) {
            return Json{{"shape", t.describe()},
                        {"parameters", t.parameters()},
                        {"compression", t.compression()},
                        {"order", p.name(t.format)},
                        {"flops", p.flops},
                        {"peak_intermediate_elements", p.peakIntermediate},
                        {"seconds", m.seconds},
                        {"energy_j", m.energyJ}};
        };
        layers.push_back(Json{{"name", l.conv.name},
                              {"weight", l.tt.weightDims},
                              {"rows", l.tt.rows},
                              {"imbalance", l.tt.imbalance()},
                              {"rule", l.ruleTr ? "TR" : "TT"},
                              {"faster", l.timeTr ? "TR" : "TT"},
                              {"dense", Json{{"parameters", l.tt.denseParameters()},
                                             {"flops", l.tt.denseFlops()},
                                             {"seconds", l.dense.seconds},
                                             {"energy_j", l.dense.energyJ}}},
                              {"tt", form(l.tt, l.ttPlan, l.ttRun)},
                              {"tr", form(l.tr, l.trPlan, l.trRun)}});
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", l.conv.name,
                          listText(l.tt.weightDims), num(l.tt.imbalance()), l.ruleTr ? "TR" : "TT",
                          num(l.dense.seconds), ttP, num(l.ttRun.seconds), trP, num(l.trRun.seconds),
                          l.timeTr ? "TR" : "TT");
    }
    if (groupedLayers > 0)
        md += fmt::format("\n{} grouped layers ({} parameters) are not factorised: they run dense in every "
                          "variant.\n",
                          groupedLayers, groupedParameters);
    md += "\n| model variant | parameters | FLOPs | simulated s | energy J | TR layers "
          "|\n|---|---|---|---|---|---|\n";
    const std::pair<const char*, const Total*> totals[] = {{"dense", &dense},
                                                           {"all-TT", &tt},
                                                           {"all-TR", &tr},
                                                           {"hybrid (rule)", &rule},
                                                           {"hybrid (time)", &byTime}};
    Json variants;
    for (const auto& [name, t] : totals) {
        variants[name] = t->json();
        md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", name, t->parameters,
                          num(static_cast<double>(t->flops)), num(t->seconds), num(t->energyJ), t->trLayers);
    }
    res.json = Json{{"model", model},
                    {"target", options.target},
                    {"tt_rank", options.ttRank},
                    {"tr_rank", options.trRank},
                    {"ratio", options.ratio},
                    {"objective", options.objective == Objective::Flops ? "flops" : "peak"},
                    {"layers", layers},
                    {"variants", variants}};
    res.markdown = md;
    return res;
}

}  // namespace tessim::tn
