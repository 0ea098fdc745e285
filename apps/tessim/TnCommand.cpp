// `tessim tn plan|hybrid`: tensor-train and tensor-ring layers (analysis/tensornet/).
//   plan    one conv or fc layer: decomposition, contraction candidates, the chosen order per step,
//           and with --simulate the layer and its dense baseline on k1 or npu
//   hybrid  a conv model (workload with `layers:`): dense, all-TT, all-TR and the hybrids, simulated
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "analysis/reproduce/Reproduction.h"
#include "analysis/tensornet/HybridPlan.h"
#include "analysis/tensornet/LayerReport.h"
#include "analysis/tensornet/TnWorkloads.h"
#include "apps/tessim/Commands.h"
#include "run/pipeline/ConfigLibrary.h"
#include "sim/core/SelfExecutable.h"

namespace tessim::cli {

namespace {

using namespace tessim::tn;

struct PlanOptions {
    std::vector<std::uint64_t> conv, fc, outModes, inModes, ranks, input;
    std::string format = "tt", spatial = "split", pairing = "modes", objective = "flops", simulate, name,
                json;
    std::uint64_t rows = 0, stride = 1, pad = 0;
    unsigned jobs = 0;
};

TnLayer buildLayer(const PlanOptions& o) {
    const Format f = o.format == "tr" ? Format::TR : Format::TT;
    if (o.conv.empty() == o.fc.empty())
        throw std::invalid_argument("give the layer as --conv O,I,Kh,Kw or --fc O,I");
    if (!o.conv.empty()) {
        if (o.conv.size() != 4)
            throw std::invalid_argument("--conv takes O,I,Kh,Kw");
        std::uint64_t rows = o.rows;
        if (!o.input.empty()) {
            if (o.input.size() != 2)
                throw std::invalid_argument("--input takes H,W");
            rows = convOutputPixels(o.input[0], o.input[1], o.conv[2], o.conv[3], o.stride, o.pad);
        }
        TnLayer l = convLayer(o.name.empty() ? "conv" : o.name, f, o.conv[0], o.conv[1], o.conv[2], o.conv[3],
                              o.outModes, o.inModes, o.spatial == "merged" ? Spatial::Merged : Spatial::Split,
                              o.ranks, rows ? rows : 1);
        if (!o.input.empty()) {
            l.convH = o.input[0];
            l.convW = o.input[1];
            l.stride = o.stride;
            l.pad = o.pad;
        }
        return l;
    }
    if (o.fc.size() != 2)
        throw std::invalid_argument("--fc takes O,I");
    return fcLayer(o.name.empty() ? "fc" : o.name, f, o.fc[0], o.fc[1], o.outModes, o.inModes,
                   o.pairing == "matrix" ? Pairing::Matrix : Pairing::Modes, o.ranks, o.rows ? o.rows : 1);
}

void writeJson(const std::string& path, const nlohmann::ordered_json& j) {
    if (path.empty())
        return;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent);
    std::ofstream out(path);
    out << j.dump(2) << '\n';
    if (!out)
        throw std::runtime_error("cannot write '" + path + "'");
}

ReproRunner childRunner() {
    const std::string exe = selfExecutable();
    return [exe](const ReproRun& run) { return runChildSimulation(exe, run); };
}

void addPlan(CLI::App& tn) {
    auto o = std::make_shared<PlanOptions>();
    auto* sub =
        tn.add_subcommand("plan", "one TT or TR layer: parameters, contraction orders, the chosen one step "
                                  "by step, optionally simulated against the dense layer");
    sub->add_option("--conv", o->conv, "conv weight O,I,Kh,Kw")->delimiter(',');
    sub->add_option("--fc", o->fc, "fc weight O,I (out × in)")->delimiter(',');
    sub->add_option("--out-modes", o->outModes, "factors of O (default: O itself)")->delimiter(',');
    sub->add_option("--in-modes", o->inModes, "factors of I (default: I itself)")->delimiter(',');
    sub->add_option("--ranks", o->ranks, "TT: the d−1 inner ranks; TR: r_0 … r_{d−1}")
        ->delimiter(',')
        ->required();
    sub->add_option("--format", o->format, "tt or tr (default tt)")->check(CLI::IsMember({"tt", "tr"}));
    sub->add_option("--spatial", o->spatial, "conv kernel as two cores (split) or one (merged)")
        ->check(CLI::IsMember({"split", "merged"}));
    sub->add_option("--pairing", o->pairing, "fc cores: one per factor (modes) or TT-matrix pairs (matrix)")
        ->check(CLI::IsMember({"modes", "matrix"}));
    sub->add_option("--rows", o->rows, "input vectors: batch, or a conv's output pixels (default 1)");
    sub->add_option("--input", o->input, "conv input H,W (rows = output pixels)")->delimiter(',');
    sub->add_option("--stride", o->stride, "conv stride (default 1)")->check(CLI::Range(1, 255));
    sub->add_option("--pad", o->pad, "conv padding (default 0)")->check(CLI::Range(0, 255));
    sub->add_option("--objective", o->objective, "contraction order by fewest flops or smallest peak")
        ->check(CLI::IsMember({"flops", "peak"}));
    sub->add_option("--simulate", o->simulate, "also simulate the layer and its dense baseline on k1 or npu")
        ->check(CLI::IsMember({"k1", "npu"}));
    sub->add_option("--name", o->name, "layer name");
    sub->add_option("--json", o->json, "also write the report as JSON to this file");
    sub->add_option("--jobs,-j", o->jobs, "simulations at once (default: all cores)");
    sub->callback([o] {
        runGuarded([&] {
            TnLayer layer;
            try {
                layer = buildLayer(*o);
            } catch (const std::invalid_argument& e) {
                throw std::runtime_error(e.what());
            }
            const Objective objective = parseObjective(o->objective);
            const unsigned bytes = o->simulate == "npu" ? 1 : 4;
            std::optional<SimulatedLayer> simulated;
            if (!o->simulate.empty()) {
                const ContractionPlan plan = chooseContraction(layer, objective, bytes);
                const ReproRun dense = denseRun(layer.name + "-dense", o->simulate, layer);
                const ReproRun run = layerRun(layer.name + "-" + o->format, o->simulate, layer, plan);
                const auto m = runMeasured({dense, run}, childRunner(), o->jobs);
                simulated = SimulatedLayer{o->simulate, m.at(dense.name), m.at(run.name)};
            }
            const LayerReport r = layerReport(layer, objective, bytes, simulated);
            writeJson(o->json, r.json);
            std::cout << r.markdown << std::flush;
        });
    });
}

void addHybrid(CLI::App& tn) {
    struct Options {
        std::string model = "resnet18", objective = "flops", out;
        HybridOptions h;
    };
    auto o = std::make_shared<Options>();
    auto* sub =
        tn.add_subcommand("hybrid", "a conv model as dense, all-TT, all-TR and the TT/TR hybrids, simulated "
                                    "layer by layer");
    sub->add_option("--model", o->model, "conv2d workload with layers: (default resnet18)");
    sub->add_option("--target", o->h.target, "k1 or npu (default npu)")->check(CLI::IsMember({"k1", "npu"}));
    sub->add_option("--tt-rank", o->h.ttRank, "TT inner ranks (default 8)")->check(CLI::Range(1, 4096));
    sub->add_option("--tr-rank", o->h.trRank, "TR ranks (default 8)")->check(CLI::Range(1, 4096));
    sub->add_option("--ratio", o->h.ratio, "TR when max/min weight dimension exceeds it (default 5)");
    sub->add_option("--objective", o->objective, "contraction order by fewest flops or smallest peak")
        ->check(CLI::IsMember({"flops", "peak"}));
    sub->add_option("--jobs,-j", o->h.jobs, "simulations at once (default: all cores)");
    sub->add_option("--out,-o", o->out, "also write DIR/hybrid.json");
    sub->callback([o] {
        runGuarded([&] {
            const std::string path = resolveLibraryPath(LibraryKind::Workload, o->model);
            const std::string model = std::filesystem::path(path).stem().string();
            o->h.objective = parseObjective(o->objective);
            HybridResult r;
            try {
                r = runHybrid(model, readConvLayers(path), o->h, childRunner());
            } catch (const std::invalid_argument& e) {
                throw std::runtime_error(e.what());
            }
            if (!o->out.empty())
                writeJson((std::filesystem::path(o->out) / "hybrid.json").string(), r.json);
            std::cout << r.markdown << std::flush;
        });
    });
}

}  // namespace

void addTnCommand(CLI::App& app) {
    auto* tn =
        app.add_subcommand("tn", "tensor-train and tensor-ring layers: plan one layer, or compare a model's "
                                 "dense, TT, TR and hybrid forms");
    tn->require_subcommand(1);
    addPlan(*tn);
    addHybrid(*tn);
}

}  // namespace tessim::cli
