#include "analysis/reproduce/TtTrReproduction.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/HybridPlan.h"
#include "analysis/tensornet/TnLayer.h"
#include "analysis/tensornet/TnRuns.h"
#include "analysis/tensornet/TnWorkloads.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/report/HumanUnits.h"

namespace tessim {

namespace {

using namespace tn;

// Four significant digits: simulated times span microseconds to seconds.
std::string num(double v) {
    return fmt::format("{:.4g}", v);
}

std::vector<std::uint64_t> counts(const config::Reader& r, const std::string& key, std::size_t size = 0) {
    std::vector<std::uint64_t> v;
    for (const auto& item : r.node(key).items()) {
        std::uint64_t x = 0;
        try {
            if (!item.isScalar())
                throw std::invalid_argument("not a scalar");
            x = std::stoull(item.scalar());
        } catch (const std::exception&) {
            throw config::ConfigError(item.location(), r.path().empty() ? key : r.path() + "." + key,
                                      "expected a list of positive integers");
        }
        if (x == 0)
            throw config::ConfigError(item.location(), r.path().empty() ? key : r.path() + "." + key,
                                      "expected a list of positive integers");
        v.push_back(x);
    }
    if (size && v.size() != size)
        r.fail(key, fmt::format("expected {} values, not {}", size, v.size()));
    return v;
}

// A conv layer of the paper file: weight [O, I, Kh, Kw], input [H, W], stride, pad.
struct ConvSite {
    std::vector<std::uint64_t> weight, input;
    std::uint64_t stride = 1, pad = 0;
};

ConvSite readSite(const config::Reader& r) {
    ConvSite s;
    s.weight = counts(r, "weight", 4);
    s.input = counts(r, "input", 2);
    s.stride = r.get<std::uint64_t>("stride", 1, config::Range<std::uint64_t>{1, 255});
    s.pad = r.get<std::uint64_t>("pad", 0, config::Range<std::uint64_t>{0, 255});
    return s;
}

TnLayer siteLayer(const std::string& name, const ConvSite& s, Format f,
                  const std::vector<std::uint64_t>& ranks) {
    const auto& w = s.weight;
    TnLayer l = convLayer(name, f, w[0], w[1], w[2], w[3], {}, {}, Spatial::Split, ranks,
                          convOutputPixels(s.input[0], s.input[1], w[2], w[3], s.stride, s.pad));
    l.convH = s.input[0];
    l.convW = s.input[1];
    l.stride = s.stride;
    l.pad = s.pad;
    return l;
}

struct Claim {
    std::string id, quantity, unit, source, reading, layer, target;
    double published = 0, tolerance = 0;
    bool bound = false, above = false;  // published "> x" / "< x"
};

}  // namespace

ReproResult reproduceTtTrPaper(const std::string& paperPath, const ReproRunner& runner, unsigned jobs) {
    using namespace config;
    const Node root = loadYamlFile(paperPath);
    Reader r(root);
    ReproResult res = readPaperHeader(r);
    r.oneOf("reproduction", {"tt-tr"});
    const ConvSite seed = readSite(r.child("layer"));
    const std::vector<std::uint64_t> ttRanks = counts(r, "tt_ranks", 4);
    const std::vector<std::uint64_t> trRanks = counts(r, "tr_ranks", 4);
    const std::vector<std::uint64_t> entropyRanks = counts(r, "entropy_ranks");
    const Reader balancedReader = r.child("balanced_layer");
    const ConvSite balanced = readSite(balancedReader);
    const std::uint64_t balancedRank =
        balancedReader.get<std::uint64_t>("ranks", Range<std::uint64_t>{1, 4096});
    const double ratio = r.get<double>("rule_ratio", Range<double>{1.0, 1e9});
    struct Example {
        std::vector<std::uint64_t> weight;
        std::string form;
    };
    std::vector<Example> examples;
    for (const auto& e : r.children("rule_examples"))
        examples.push_back({counts(e, "weight"), e.oneOf("form", {"TT", "TR"})});
    const std::string modelPath =
        (std::filesystem::path(paperPath).parent_path() / r.get<std::string>("model"))
            .lexically_normal()
            .string();
    const Reader modelRanks = r.child("model_ranks");
    HybridOptions hybrid;
    hybrid.ttRank = modelRanks.get<std::uint64_t>("tt", Range<std::uint64_t>{1, 4096});
    hybrid.trRank = modelRanks.get<std::uint64_t>("tr", Range<std::uint64_t>{1, 4096});
    hybrid.ratio = ratio;
    std::vector<std::string> targets = r.get<std::vector<std::string>>("targets");
    for (const auto& t : targets)
        if (!tnTargetSupported(t))
            r.fail("targets", "target '" + t + "': the TT / TR layers run on k1 or npu");
    std::vector<Claim> claims;
    for (const auto& c : r.children("claims")) {
        Claim cl;
        cl.id = c.get<std::string>("id");
        cl.quantity = c.oneOf("quantity", {"dense_parameters", "entropy_product", "tt_parameters",
                                           "tt_compression", "ring_mean_rank", "tr_over_tt_parameters",
                                           "rule_examples", "tr_over_tt_time", "hybrid_compression_gain"});
        cl.unit = c.get<std::string>("unit", std::string());
        cl.source = c.get<std::string>("source", std::string());
        cl.tolerance = c.get<double>("tolerance", 0.0, Range<double>{0.0, 10.0});
        if (cl.quantity == "tt_parameters" || cl.quantity == "tt_compression")
            cl.reading = c.oneOf("reading", {"as-written", "tt"});
        if (cl.quantity == "hybrid_compression_gain")
            cl.reading = c.oneOf("over", {"tt", "tr"});
        if (cl.quantity == "tr_over_tt_time") {
            cl.layer = c.oneOf("layer", {"seed", "balanced"});
            cl.target = c.get<std::string>("target");
            if (std::find(targets.begin(), targets.end(), cl.target) == targets.end())
                c.fail("target", "target '" + cl.target + "' is not among the paper's targets");
        }
        const Node& published = c.node("published");
        const std::string text = published.isScalar() ? published.scalar() : "";
        try {
            if (text.size() > 1 && (text[0] == '>' || text[0] == '<')) {
                cl.bound = true;
                cl.above = text[0] == '>';
                cl.published = std::stod(text.substr(1));
            } else {
                cl.published = std::stod(text);
            }
        } catch (const std::exception&) {
            throw ConfigError(published.location(), c.path() + ".published",
                              "expected a number or \"> x\" / \"< x\"");
        }
        c.finish();
        claims.push_back(cl);
    }
    r.finish();

    // The arithmetic, from the closed form Σ r_(k−1) · I_k · r_k over the weight's modes.
    const auto& w = seed.weight;
    const std::uint64_t dense = w[0] * w[1] * w[2] * w[3];
    const std::uint64_t entropyProduct =
        std::accumulate(entropyRanks.begin(), entropyRanks.end(), std::uint64_t{1}, std::multiplies<>());
    // As written: the term list takes [2, 16, 4, 4] as r_0 … r_3 with r_4 = 1.
    std::uint64_t asWritten = 0;
    for (unsigned k = 0; k < 4; ++k)
        asWritten += ttRanks[k] * w[k] * (k + 1 < 4 ? ttRanks[k + 1] : 1);
    // As a tensor train (r_0 = r_4 = 1): the seed's TTConv2d uses [2, 16, 4, 4] as r_1, r_2, r_3.
    const TnLayer tt = siteLayer("seed", seed, Format::TT, {ttRanks[0], ttRanks[1], ttRanks[2]});
    const TnLayer tr = siteLayer("seed", seed, Format::TR, trRanks);
    const double ringMean =
        static_cast<double>(std::accumulate(ttRanks.begin(), ttRanks.end(), std::uint64_t{0})) / 4.0;
    unsigned ruleAgrees = 0;
    std::string ruleNote;
    for (const auto& e : examples) {
        TnLayer probe;
        probe.weightDims = e.weight;
        const bool trChosen = probe.imbalance() > ratio;
        ruleAgrees += (trChosen ? "TR" : "TT") == e.form ? 1 : 0;
        ruleNote += fmt::format("{}{} max/min {} → {} (seed {})", ruleNote.empty() ? "" : "; ",
                                listText(e.weight), num(probe.imbalance()), trChosen ? "TR" : "TT", e.form);
    }

    // The model's parameters as all-TT, all-TR and the rule's hybrid (closed form, no simulation).
    std::uint64_t modelTt = 0, modelTr = 0, modelHybrid = 0, modelDense = 0;
    unsigned modelTrLayers = 0;
    const auto modelLayers = readConvLayers(modelPath);
    for (const auto& conv : modelLayers) {
        const HybridLayer l = decomposeConv(conv, hybrid);
        modelDense += l.denseParameters;
        if (!l.factorised) {  // a grouped conv stays dense in every form
            modelTt += l.denseParameters;
            modelTr += l.denseParameters;
            modelHybrid += l.denseParameters;
            continue;
        }
        modelTt += l.tt.parameters();
        modelTr += l.tr.parameters();
        modelHybrid += l.ruleTr ? l.tr.parameters() : l.tt.parameters();
        modelTrLayers += l.ruleTr ? 1 : 0;
    }

    // The simulated layers, each in its fewest-FLOPs contraction order.
    const TnLayer balTt = siteLayer("balanced", balanced, Format::TT, {balancedRank});
    const TnLayer balTr = siteLayer("balanced", balanced, Format::TR, {balancedRank, balancedRank});
    std::vector<ReproRun> runs;
    std::map<std::string, std::pair<const TnLayer*, ContractionPlan>> forms;
    for (const auto& target : targets) {
        const unsigned bytes = target == "npu" ? 1 : 4;
        for (const auto& [tag, layer] : {std::pair<std::string, const TnLayer*>{"seed-tt", &tt},
                                         {"seed-tr", &tr},
                                         {"balanced-tt", &balTt},
                                         {"balanced-tr", &balTr}}) {
            const ContractionPlan plan = chooseContraction(*layer, Objective::Flops, bytes);
            runs.push_back(layerRun(target + "-" + tag, target, *layer, plan));
            forms.emplace(target + "-" + tag, std::make_pair(layer, plan));
        }
        runs.push_back(denseRun(target + "-seed-dense", target, tt));
    }
    const auto measured = tn::runMeasured(runs, runner, jobs);
    for (const auto& run : runs)
        res.commands[run.name] = reproCommand("tessim", run);

    for (const auto& c : claims) {
        ReproClaim cl;
        cl.id = c.id;
        cl.quantity = c.quantity;
        cl.quantityLabel = c.quantity;
        cl.unit = c.unit;
        cl.published = c.published;
        cl.run = "closed form";
        std::string note;
        bool timeRatio = false;
        if (c.quantity == "dense_parameters") {
            cl.simulated = static_cast<double>(dense);
            note = fmt::format("{} = {}", listText(w), dense);
        } else if (c.quantity == "entropy_product") {
            cl.simulated = static_cast<double>(entropyProduct);
            note =
                fmt::format("product of {} = {}, {} of the dense {}", listText(entropyRanks), entropyProduct,
                            num(static_cast<double>(entropyProduct) / static_cast<double>(dense)), dense);
        } else if (c.quantity == "tt_parameters" || c.quantity == "tt_compression") {
            const bool written = c.reading == "as-written";
            const double params =
                written ? static_cast<double>(asWritten) : static_cast<double>(tt.parameters());
            cl.simulated = c.quantity == "tt_parameters" ? params : static_cast<double>(dense) / params;
            note =
                written
                    ? fmt::format("the seed's own terms {}×{}×{} + {}×{}×{} + {}×{}×{} + {}×{}×1 sum to {} "
                                  "({}x of {}), not 3272; they take r_0 = {}, which a tensor train "
                                  "(r_0 = 1) does not have",
                                  ttRanks[0], w[0], ttRanks[1], ttRanks[1], w[1], ttRanks[2], ttRanks[2],
                                  w[2], ttRanks[3], ttRanks[3], w[3], asWritten,
                                  num(static_cast<double>(dense) / static_cast<double>(asWritten)), dense,
                                  ttRanks[0])
                    : fmt::format("as a tensor train r{} (the seed's TTConv2d reading of {}) the cores hold "
                                  "{} parameters, {}x of {}; 3272 would be {}x",
                                  listText(tt.ranks), listText(ttRanks), tt.parameters(),
                                  num(tt.compression()), dense, num(static_cast<double>(dense) / 3272.0));
        } else if (c.quantity == "ring_mean_rank") {
            cl.simulated = ringMean;
            note = fmt::format("mean of {} = {}; the ring {} holds {} parameters ({}x)", listText(ttRanks),
                               num(ringMean), listText(trRanks), tr.parameters(), num(tr.compression()));
        } else if (c.quantity == "tr_over_tt_parameters") {
            cl.simulated = static_cast<double>(tr.parameters()) / static_cast<double>(tt.parameters());
            note = fmt::format("TR r{} {} against TT r{} {}", listText(tr.ranks), tr.parameters(),
                               listText(tt.ranks), tt.parameters());
        } else if (c.quantity == "rule_examples") {
            cl.simulated = ruleAgrees;
            note = ruleNote + "; dimensions of 1 left out (else [32,32,1,1] has max/min 32 and would be TR)";
        } else if (c.quantity == "hybrid_compression_gain") {
            const std::uint64_t single = c.reading == "tt" ? modelTt : modelTr;
            cl.simulated = static_cast<double>(single) / static_cast<double>(modelHybrid);
            note = fmt::format(
                "{} ({} conv layers, TT ranks {}, TR ranks {}): dense {}, all-TT {}, all-TR {}, "
                "hybrid ({} TR layers) {} parameters; the hybrid compresses {}x against all-{}'s {}x",
                std::filesystem::path(modelPath).stem().string(), modelLayers.size(), hybrid.ttRank,
                hybrid.trRank, modelDense, modelTt, modelTr, modelTrLayers, modelHybrid,
                num(static_cast<double>(modelDense) / static_cast<double>(modelHybrid)),
                c.reading == "tt" ? "TT" : "TR",
                num(static_cast<double>(modelDense) / static_cast<double>(single)));
        } else {
            timeRatio = true;
            const std::string prefix = c.target + "-" + c.layer;
            const Measurement& ttRun = measured.at(prefix + "-tt");
            const Measurement& trRun = measured.at(prefix + "-tr");
            cl.run = prefix + "-tr / " + prefix + "-tt";
            cl.simulated = trRun.seconds / ttRun.seconds;
            const auto& ttForm = forms.at(prefix + "-tt");
            const auto& trForm = forms.at(prefix + "-tr");
            note =
                fmt::format("{}: TT {} ({} params, {} FLOPs, {}) {}; TR {} ({} params, {} FLOPs, {}) {}",
                            c.target, listText(ttForm.first->ranks), ttForm.first->parameters(),
                            ttForm.second.flops, ttForm.second.name(Format::TT), humanSi(ttRun.seconds, "s"),
                            listText(trForm.first->ranks), trForm.first->parameters(), trForm.second.flops,
                            trForm.second.name(Format::TR), humanSi(trRun.seconds, "s"));
            if (c.layer == "seed")
                note +=
                    fmt::format("; dense {}", humanSi(measured.at(c.target + "-seed-dense").seconds, "s"));
        }
        bool ok;
        if (c.bound)
            ok = c.above ? cl.simulated > c.published : cl.simulated < c.published;
        else
            ok = std::fabs(cl.simulated - c.published) <= c.tolerance * std::fabs(c.published) + 1e-12;
        cl.tolerance = c.bound
                           ? fmt::format("{} {} (the published bound)", c.above ? ">" : "<", num(c.published))
                           : fmt::format("±{} % (set by the paper's claim file)", num(c.tolerance * 100));
        const bool sameSide = timeRatio && !c.bound && (cl.simulated < 1.0) == (c.published < 1.0);
        if (ok)
            cl.verdict = "match";
        else if (sameSide && withinTrendFactor(cl.simulated, c.published))
            cl.verdict = "trend-match";
        else
            cl.verdict = "mismatch";
        if (!ok && sameSide && cl.verdict == "mismatch")
            note += beyondTrendFactorNote(cl);
        if (c.bound)
            note = fmt::format("published: {} {}; ", c.above ? ">" : "<", num(c.published)) + note;
        cl.note = note + (c.source.empty() ? "" : " [" + c.source + "]");
        res.claims.push_back(cl);
    }
    return res;
}

}  // namespace tessim
