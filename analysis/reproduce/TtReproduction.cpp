#include "analysis/reproduce/TtReproduction.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/dse/TtDesignSpace.h"
#include "analysis/reproduce/CompiledBaseline.h"
#include "run/pipeline/ConfigLibrary.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "sim/report/HumanUnits.h"
#include "workloads/conv/ConvShapeReader.h"
#include "workloads/tt/TensorTrainKernel.h"
#include "workloads/tt/TensorTrainShape.h"

namespace tessim {

namespace {

using Json = nlohmann::json;

// Whole numbers (FLOPs, solutions, bounds) as integers, ratios to three decimals (times: humanSi).
std::string num(double v) {
    if (std::isnan(v))
        return "n/a";
    if (std::fabs(v) >= 1e5 || (v == std::floor(v) && std::fabs(v) < 1e15))
        return fmt::format("{:.0f}", v);
    if (v != 0 && std::fabs(v) < 1e-3)
        return fmt::format("{:.3g}", v);
    return fmt::format("{:.3f}", v);
}

std::vector<std::uint64_t> counts(const config::Reader& r, const std::string& key) {
    std::vector<std::uint64_t> v;
    for (const auto& item : r.node(key).items()) {
        if (!item.isScalar())
            throw config::ConfigError(item.location(), r.path() + "." + key, "expected a list of integers");
        try {
            v.push_back(std::stoull(item.scalar()));
        } catch (const std::exception&) {
            throw config::ConfigError(item.location(), r.path() + "." + key, "expected a list of integers");
        }
    }
    return v;
}

std::string listValue(const std::vector<std::uint64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

struct Layer {
    std::string id, name;
    std::uint64_t in = 0, out = 0;
    TtShape shape;
};

// A whole model run on the target (a library layer list): which of its layers are fully
// connected, which of those a TT layer of `layers` replaces, and the weights of each layer.
struct Network {
    std::string id, workload;
    std::vector<std::string> fcLayers;
    std::map<std::string, std::string> tt;         // network layer → TT layer id
    std::map<std::string, std::uint64_t> weights;  // per convolution / FC layer of the network
    std::uint64_t totalWeights = 0;
};

struct Claim {
    std::string id, quantity, unit, layer, network, baseline, source;
    std::string step;  // dse_space: `candidates` (every shape and rank) or `pruned` (before simulation)
    unsigned threads = 0;
    double lo = 0, hi = 0;  // published range (lo = hi: a value)
    double relTol = 0.1;
};

// A network of the paper file: its workload's layer list read for each layer's weights (filters ×
// channels per group × kernel taps; element-wise and pooling rows hold none), its FC and TT layers
// checked against it before anything runs.
Network readNetwork(const config::Reader& n, const std::map<std::string, Layer>& layers) {
    using namespace config;
    Network net;
    net.id = n.get<std::string>("id");
    net.workload = n.get<std::string>("workload");
    const Node workload = loadYamlFile(resolveLibraryPath(LibraryKind::Workload, net.workload));
    const Node* list = workload.find("layers");
    if (!list || !list->isSequence())
        n.fail("workload", "'" + net.workload + "' has no layer list");
    // Each convolution or FC row read as every conv2d row reads it (its name, its shape and their
    // errors); element-wise and pooling rows (`op`) hold no weights.
    std::map<std::string, std::size_t> names;
    for (std::size_t i = 0; i < list->items().size(); ++i) {
        Reader row(list->items()[i]);
        const std::string name = readLayerName(row, i, names);
        if (row.has("op"))
            continue;
        const ConvShape shape = readConvShape(row);
        const std::uint64_t w = std::uint64_t{shape.filters} * shape.groupChannels() * shape.taps();
        net.weights[name] = w;
        net.totalWeights += w;
    }
    for (const auto& item : n.node("fc_layers").items()) {
        if (!item.isScalar() || !net.weights.count(item.scalar()))
            throw ConfigError(item.location(), n.path() + ".fc_layers",
                              "no convolution or FC layer '" +
                                  (item.isScalar() ? item.scalar() : std::string()) + "' in workload '" +
                                  net.workload + "'");
        net.fcLayers.push_back(item.scalar());
    }
    if (n.has("tt")) {
        for (const auto& [layer, id] : n.node("tt").entries()) {
            const std::string where = n.path() + ".tt." + layer;
            if (!id.isScalar() || !layers.count(id.scalar()))
                throw ConfigError(id.location(), where,
                                  "no layer '" + (id.isScalar() ? id.scalar() : std::string()) +
                                      "' in 'layers'");
            if (std::find(net.fcLayers.begin(), net.fcLayers.end(), layer) == net.fcLayers.end())
                throw ConfigError(id.location(), where, "'" + layer + "' is not one of fc_layers");
            const Layer& l = layers.at(id.scalar());
            if (net.weights.at(layer) != l.in * l.out)
                throw ConfigError(id.location(), where,
                                  fmt::format("{}'s {} weights are not the {} of {} ({} → {})", layer,
                                              net.weights.at(layer), l.in * l.out, l.id, l.in, l.out));
            net.tt[layer] = l.id;
        }
    }
    return net;
}

// Every block {Rm, Rb, Rr, Rk} within the budget (Rr, Rk up to 2: larger ones add no reuse here).
std::vector<std::array<unsigned, 4>> blocksWithin(unsigned budget) {
    std::vector<std::array<unsigned, 4>> blocks;
    for (unsigned rm = 1; rm <= 12; ++rm)
        for (unsigned rb = 1; rb <= 12; ++rb)
            for (unsigned rr = 1; rr <= 2; ++rr)
                for (unsigned rk = 1; rk <= 2; ++rk)
                    if (ttBlockRegisters(rm, rb, rr, rk) <= budget)
                        blocks.push_back({rm, rb, rr, rk});
    return blocks;
}

std::string blockName(const std::array<unsigned, 4>& b) {
    return fmt::format("{{{},{},{},{}}}", b[0], b[1], b[2], b[3]);
}

double memoryOps(const Json& report) {
    return report.at("stats").at("k1").at("core0").at("memory_ops").at("value").get<double>();
}

// Runs every named simulation, `jobs` at a time; the reports by name.
std::map<std::string, Json> runAll(const std::map<std::string, ReproRun>& runs, const ReproRunner& runner,
                                   unsigned jobs) {
    std::vector<const ReproRun*> list;
    for (const auto& [name, run] : runs)
        list.push_back(&run);
    std::map<std::string, Json> reports;
    std::mutex lock;
    std::atomic<std::size_t> next{0};
    std::size_t failed = list.size();  // the first run that failed, in the runs' order
    std::string failure;
    auto worker = [&] {
        for (std::size_t i = next++; i < list.size(); i = next++) {
            try {
                Json report = runner(*list[i]);
                std::lock_guard<std::mutex> g(lock);
                reports[list[i]->name] = std::move(report);
            } catch (const std::exception& e) {
                // The error reported does not depend on which thread failed first.
                std::lock_guard<std::mutex> g(lock);
                if (i < failed) {
                    failed = i;
                    failure = e.what();
                }
            }
        }
    };
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < std::max(1u, jobs); ++j)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    if (failed < list.size())
        throw std::runtime_error(failure);
    return reports;
}

// A network run's time, its FC layers' and each layer's (seconds, from the report's layers).
struct NetworkTimes {
    double total = 0.0, fc = 0.0;
    std::map<std::string, double> layer;
};

NetworkTimes networkTimes(const Json& report, const Network& net) {
    NetworkTimes t;
    t.total = report.at("seconds").get<double>();
    for (const auto& l : report.at("layers"))
        t.layer[l.at("name").get<std::string>()] = l.at("seconds").get<double>();
    for (const auto& name : net.fcLayers) {
        if (!t.layer.count(name))
            throw std::runtime_error(fmt::format("network {}: the run reports no layer '{}'", net.id, name));
        t.fc += t.layer.at(name);
    }
    return t;
}

}  // namespace

ReproResult reproduceTtPaper(const std::string& paperPath, const ReproRunner& runner, unsigned jobs) {
    using namespace config;
    const Node root = loadYamlFile(paperPath);
    Reader r(root);
    ReproResult res = readPaperHeader(r);
    r.oneOf("reproduction", {"tt-layers"});
    const std::string target = r.get<std::string>("target");
    const std::string example = r.get<std::string>("example");
    Reader ex = r.child("example_shape");
    TtShape exampleShape;
    exampleShape.in = counts(ex, "in");
    exampleShape.out = counts(ex, "out");
    const unsigned budget = r.get<unsigned>("register_budget", Range<unsigned>{4, 32});
    Reader study = r.child("thread_study");
    const std::string studyWorkload = study.get<std::string>("workload");
    const std::vector<std::uint64_t> batches = counts(study, "batches");
    const std::vector<std::uint64_t> threadCounts = counts(study, "threads");
    const unsigned denseThreads = r.get<unsigned>("dense_threads", Range<unsigned>{1, 8});
    std::vector<double> thresholds;
    for (const auto& item : r.node("thread_flops").items())
        thresholds.push_back(std::stod(item.scalar()));
    std::map<std::string, Layer> layers;
    std::vector<std::string> layerOrder;
    for (Reader l : r.children("layers")) {
        Layer layer;
        layer.id = l.get<std::string>("id");
        layer.name = l.get<std::string>("name");
        layer.in = l.get<std::uint64_t>("in");
        layer.out = l.get<std::uint64_t>("out");
        Reader tt = l.child("tt");
        layer.shape.in = counts(tt, "in");
        layer.shape.out = counts(tt, "out");
        std::vector<std::uint64_t> ranks = counts(tt, "ranks");
        ranks.insert(ranks.begin(), 1);
        ranks.push_back(1);
        layer.shape.ranks = ranks;
        if (layer.shape.inSize() != layer.in || layer.shape.outSize() != layer.out ||
            layer.shape.out.size() != layer.shape.in.size() || ranks.size() != layer.shape.in.size() + 1)
            l.fail("tt", fmt::format("the TT shape {} is not a {} → {} layer", layer.shape.describe(),
                                     layer.in, layer.out));
        layerOrder.push_back(layer.id);
        layers[layer.id] = layer;
    }
    std::map<std::string, Network> networks;
    std::vector<std::string> networkOrder;
    if (r.has("networks"))
        for (Reader n : r.children("networks")) {
            Network net = readNetwork(n, layers);
            networkOrder.push_back(net.id);
            networks[net.id] = std::move(net);
        }
    std::optional<CompiledBaselines> compiled;
    if (r.has("compiled_baselines"))
        compiled = readCompiledBaselines(r, [&](const std::string& id) { return layers.count(id) > 0; });
    std::vector<Claim> claims;
    for (Reader c : r.children("claims")) {
        Claim cl;
        cl.id = c.get<std::string>("id");
        cl.quantity =
            c.oneOf("quantity", {"dse_reduction", "dse_space", "rb_optimum", "rb_ls_reduction",
                                 "vectorisation_speedup", "thread_threshold", "tt_speedup", "tt_memory",
                                 "fc_share", "end_to_end_speedup", "model_memory", "tt_over_compiled"});
        cl.unit = c.get<std::string>("unit");
        cl.source = c.get<std::string>("source", std::string());
        const Node& p = c.node("published");
        if (p.isSequence()) {
            if (p.items().size() != 2)
                c.fail("published", "a range is [low, high]");
            cl.lo = std::stod(p.items()[0].scalar());
            cl.hi = std::stod(p.items()[1].scalar());
        } else {
            cl.lo = cl.hi = c.get<double>("published");
        }
        cl.relTol = c.get<double>("tolerance", 0.1);
        if (cl.quantity == "thread_threshold")
            cl.threads = c.get<unsigned>("threads", Range<unsigned>{2, 8});
        if (cl.quantity == "dse_space")
            cl.step = c.oneOf("step", {"candidates", "pruned"});
        if (cl.quantity == "tt_speedup" || cl.quantity == "tt_memory") {
            cl.layer = c.get<std::string>("layer");
            if (!layers.count(cl.layer))
                c.fail("layer", "no layer '" + cl.layer + "' in 'layers'");
        }
        if (cl.quantity == "fc_share" || cl.quantity == "end_to_end_speedup" ||
            cl.quantity == "model_memory") {
            cl.network = c.get<std::string>("network");
            if (!networks.count(cl.network))
                c.fail("network", "no network '" + cl.network + "' in 'networks'");
        }
        if (cl.quantity == "tt_over_compiled") {
            cl.baseline = c.get<std::string>("baseline");
            if (!compiled)
                c.fail("baseline", "tt_over_compiled needs a `compiled_baselines` section");
            if (!compiled->find(cl.baseline))
                c.fail("baseline", "no compiler '" + cl.baseline + "' in compiled_baselines.compilers");
        }
        claims.push_back(cl);
    }
    r.finish();

    // The runs.
    std::map<std::string, ReproRun> runs;
    auto add = [&](const std::string& name, const std::string& workload, const std::string& plan,
                   std::vector<std::string> sets) {
        ReproRun run;
        run.name = name;
        run.target = target;
        run.workload = workload;
        run.plan = plan;
        run.sets = std::move(sets);
        runs[name] = std::move(run);
    };
    add("vec-packed", example, "tt/packed", {});
    add("vec-vectorised", example, "tt/vectorised", {});
    add("vec-blocked-scalar", example, "tt/blocked", {"plan.vector_length=1"});
    add("vec-blocked", example, "tt/blocked", {});
    const auto blocks = blocksWithin(budget);
    for (const auto& b : blocks)
        add("rb-" + blockName(b), example, "tt/vectorised",
            {fmt::format("plan.rm={}", b[0]), fmt::format("plan.rb={}", b[1]),
             fmt::format("plan.rr={}", b[2]), fmt::format("plan.rk={}", b[3]),
             fmt::format("plan.registers={}", budget)});
    for (auto batch : batches)
        for (auto t : threadCounts)
            add(fmt::format("threads-b{:03}-t{}", batch, t), studyWorkload, "tt/tiled",
                {fmt::format("workload.batch={}", batch), fmt::format("plan.threads={}", t)});
    for (const auto& id : layerOrder) {
        const Layer& l = layers[id];
        const std::vector<std::string> shape{fmt::format("workload.in={}", l.in),
                                             fmt::format("workload.out={}", l.out), "workload.batch=1"};
        std::vector<std::string> dense = shape;
        dense.push_back(fmt::format("plan.threads={}", denseThreads));
        add("dense-" + id, "fc", "", dense);
        std::vector<unsigned> per;
        for (const auto& e : l.shape.einsums(1))
            per.push_back(threadsForFlops(static_cast<double>(e.flops()), thresholds, denseThreads));
        std::string perText = "[";
        for (std::size_t i = 0; i < per.size(); ++i)
            perText += (i ? ", " : "") + std::to_string(per[i]);
        perText += "]";
        std::vector<std::uint64_t> inner(l.shape.ranks.begin() + 1, l.shape.ranks.end() - 1);
        std::vector<std::string> tt = shape;
        tt.push_back("workload.tt={in: " + listValue(l.shape.in) + ", out: " + listValue(l.shape.out) +
                     ", ranks: " + listValue(inner) + "}");
        tt.push_back(fmt::format("plan.threads={}", *std::max_element(per.begin(), per.end())));
        tt.push_back("plan.einsum_threads=" + perText);
        add("tt-" + id, "fc", "tt/tiled", tt);
    }
    // Each network as the dense model, on the dense baseline's threads.
    for (const auto& id : networkOrder)
        add("net-" + id, networks.at(id).workload, "", {fmt::format("plan.threads={}", denseThreads)});
    // The compiled baselines: the program built by each compiler, run on every layer of the list
    // (batch 1, the dense baseline's threads), each from its own scratch folder's executable.
    std::optional<ScratchFolder> scratch;
    if (compiled) {
        scratch.emplace("tessim-compiled");
        for (const auto& b : compiled->baselines) {
            const std::string exe = compileBaseline(*compiled, b, scratch->path());
            for (const auto& id : compiled->layers) {
                ReproRun run;
                run.name = "compiled-" + b.id + "-" + id;
                run.target = target;
                run.program = exe;
                run.programName = compiled->executable(b);
                run.reportFile = scratch->path() + "/" + run.name + ".json";
                run.programArguments = {std::to_string(layers.at(id).in), std::to_string(layers.at(id).out),
                                        "1", std::to_string(denseThreads)};
                runs[run.name] = run;
            }
        }
    }
    if (jobs == 0)
        jobs = std::max(1u, std::thread::hardware_concurrency());
    const std::map<std::string, Json> rep = runAll(runs, runner, jobs);

    // Register blocking: the fewest loads and stores within the budget.
    std::array<unsigned, 4> bestBlock = blocks.front();
    double bestOps = std::numeric_limits<double>::infinity();
    std::vector<std::string> tied;
    for (const auto& b : blocks) {
        const double ops = memoryOps(rep.at("rb-" + blockName(b)));
        if (ops < bestOps) {
            bestOps = ops;
            bestBlock = b;
            tied.clear();
        }
        if (ops == bestOps)
            tied.push_back(blockName(b));
    }
    // The seed's block, when the budget holds it (else the best one stands in for the saving).
    const std::array<unsigned, 4> seedBlock{4, 3, 1, 1};
    const bool seedFits = ttBlockRegisters(4, 3, 1, 1) <= budget;
    const double seedOps = seedFits ? memoryOps(rep.at("rb-" + blockName(seedBlock))) : bestOps;
    const double unblockedOps = memoryOps(rep.at("rb-" + blockName({1, 1, 1, 1})));

    // Thread scaling: per einsum and batch, the thread count with the fewest cycles (ties: fewer).
    struct Sample {
        double flops;
        unsigned best;
    };
    std::vector<Sample> samples;
    for (auto batch : batches) {
        const Json& first = rep.at(fmt::format("threads-b{:03}-t{}", batch, threadCounts.front()));
        const std::size_t einsums = first.at("layers").size();
        for (std::size_t e = 0; e < einsums; ++e) {
            unsigned best = 0;
            double bestCycles = std::numeric_limits<double>::infinity();
            for (auto t : threadCounts) {
                const Json& l = rep.at(fmt::format("threads-b{:03}-t{}", batch, t)).at("layers").at(e);
                const double cycles = l.at("cycles").get<double>();
                if (cycles < bestCycles) {
                    bestCycles = cycles;
                    best = static_cast<unsigned>(t);
                }
            }
            samples.push_back({first.at("layers").at(e).at("flops").get<double>(), best});
        }
    }
    // A total order (ties in FLOPs: the smaller best count first), so that the scan below sees the
    // same sequence with any standard library's sort.
    std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) {
        return a.flops != b.flops ? a.flops < b.flops : a.best < b.best;
    });
    // The FLOPs at which t threads become best: the smallest einsum from which on the best count is
    // always at least t.
    auto threshold = [&](unsigned t) {
        double at = std::numeric_limits<double>::quiet_NaN();
        for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
            if (it->best < t)
                break;
            at = it->flops;
        }
        return at;
    };

    for (const Claim& c : claims) {
        ReproClaim cl;
        cl.id = c.id;
        cl.quantity = c.quantity;
        cl.unit = c.unit;
        cl.published = c.lo == c.hi ? c.lo : (c.lo + c.hi) / 2;
        std::string note;
        std::string run = "-";
        bool range = c.lo != c.hi;
        if (c.quantity == "dse_reduction") {
            // Brute force: the distinct orderings of each factor list, by enumeration.
            auto orderings = [](std::vector<std::uint64_t> v) {
                std::sort(v.begin(), v.end());
                double n = 0;
                do
                    ++n;
                while (std::next_permutation(v.begin(), v.end()));
                return n;
            };
            cl.simulated = alignmentReduction(exampleShape.in, exampleShape.out);
            const double enumerated = orderings(exampleShape.in) * orderings(exampleShape.out);
            TtSpaceOptions o;
            o.in = exampleShape.inSize();
            o.out = exampleShape.outSize();
            o.minCores = o.maxCores = exampleShape.d();
            const TtSpace s = exploreTtSpace(o);
            note = fmt::format("(d!)²/(k1!…kj!) for {} × {}; enumerated orderings {}; over all {}-core "
                               "factorisations of {} → {} the aligned step keeps {} of {} solutions",
                               listText(exampleShape.in), listText(exampleShape.out), num(enumerated),
                               exampleShape.d(), o.in, o.out, num(s.steps[1].count), num(s.steps[0].count));
        } else if (c.quantity == "dse_space") {
            // The example layer's design space as `tessim dse` counts it with its defaults (2–5
            // cores, ranks 4, 8, 12, 16, vector length 8, the seed's scalability rule).
            TtSpaceOptions o;
            o.in = exampleShape.inSize();
            o.out = exampleShape.outSize();
            const TtSpace s = exploreTtSpace(o);
            cl.simulated = c.step == "candidates" ? s.steps.front().count : s.steps.back().count;
            std::string steps;
            for (const auto& st : s.steps)
                steps += fmt::format("{}{} {}", steps.empty() ? "" : ", ", st.name, num(st.count));
            note = fmt::format("{} → {} ({}–{} cores, ranks {}): {}", o.in, o.out, o.minCores, o.maxCores,
                               listText(o.ranks), steps);
        } else if (c.quantity == "rb_optimum") {
            cl.simulated = seedFits ? seedOps / bestOps : std::numeric_limits<double>::quiet_NaN();
            run = "rb-*";
            note = fmt::format(
                "L/S of {{4,3,1,1}} over the fewest L/S of {} blocks within {} registers: {} vs {} "
                "(best: {}){}",
                blocks.size(), budget, num(seedOps), num(bestOps), fmt::join(tied, " "),
                seedFits ? "" : "; {4,3,1,1} needs 16 registers, over this budget");
        } else if (c.quantity == "rb_ls_reduction") {
            cl.simulated = 100.0 * (1.0 - seedOps / unblockedOps);
            run = "rb-" + blockName(seedFits ? seedBlock : bestBlock);
            note = fmt::format("vector and scalar loads and stores of {} {} vs {{1,1,1,1}} {}", run.substr(3),
                               num(seedOps), num(unblockedOps));
        } else if (c.quantity == "vectorisation_speedup") {
            const double scalar = rep.at("vec-packed").at("seconds").get<double>();
            const double vector = rep.at("vec-vectorised").at("seconds").get<double>();
            cl.simulated = scalar / vector;
            run = "vec-*";
            const double blockedScalar = rep.at("vec-blocked-scalar").at("seconds").get<double>();
            const double blockedVector = rep.at("vec-blocked").at("seconds").get<double>();
            note = fmt::format("packed, as scalar code (flw, fmadd) {} vs RVV {}, both unblocked; with "
                               "{{4,3,1,1}} blocks {} vs {} = {}x",
                               humanSi(scalar, "s"), humanSi(vector, "s"), humanSi(blockedScalar, "s"),
                               humanSi(blockedVector, "s"), num(blockedScalar / blockedVector));
        } else if (c.quantity == "thread_threshold") {
            cl.simulated = threshold(c.threads);
            run = "threads-*";
            std::string seen;
            for (const auto& s : samples)
                seen += fmt::format(" {}:{}", num(s.flops), s.best);
            note = fmt::format(
                "smallest einsum FLOPs from which {} threads or more are always fastest "
                "(einsum FLOPs:best threads —{}); where threads pay off is set by the target's fork_latency "
                "and barrier_latency (cycles; assumptions in configs/targets/k1.yaml)",
                c.threads, seen);
        } else if (c.quantity == "tt_speedup") {
            const double dense = rep.at("dense-" + c.layer).at("seconds").get<double>();
            const double tt = rep.at("tt-" + c.layer).at("seconds").get<double>();
            cl.simulated = dense / tt;
            run = "tt-" + c.layer;
            const Layer& l = layers.at(c.layer);
            note = fmt::format(
                "{} ({} → {}), TT {}: dense {} on {} threads vs TT {}; TT FLOPs {} vs dense {}", l.name, l.in,
                l.out, l.shape.describe(), humanSi(dense, "s"), denseThreads, humanSi(tt, "s"),
                num(static_cast<double>(l.shape.flops(1))), num(2.0 * l.in * l.out));
        } else if (c.quantity == "tt_over_compiled") {
            // The mean over the list's layers of compiled dense time over TT time.
            const CompiledBaseline& b = *compiled->find(c.baseline);
            double sum = 0.0;
            std::string parts;
            for (const auto& id : compiled->layers) {
                const std::string name = "compiled-" + b.id + "-" + id;
                const double dense = programCounterSeconds(rep.at(name), "fc_cycles", name);
                const double tt = rep.at("tt-" + id).at("seconds").get<double>();
                const double kernel = rep.at("dense-" + id).at("seconds").get<double>();
                sum += dense / tt;
                parts += fmt::format("; {} {:.2f}× ({} compiled, {} TT, the generated dense kernel {})", id,
                                     dense / tt, humanSi(dense, "s"), humanSi(tt, "s"), humanSi(kernel, "s"));
            }
            cl.simulated = sum / static_cast<double>(compiled->layers.size());
            run = "compiled-" + b.id + "-*";
            note =
                fmt::format("{}: `{}`, run with `tessim run --program` on {} threads, batch 1; mean over "
                            "{} layers of its time (its own rdcycle count of the layer) over the TT "
                            "layer's{}",
                            b.what, compiled->commandLine(b), denseThreads, compiled->layers.size(), parts);
        } else if (c.quantity == "tt_memory") {
            const Layer& l = layers.at(c.layer);
            cl.simulated = static_cast<double>(l.in * l.out) / static_cast<double>(l.shape.parameters());
            note = fmt::format("{}: dense {} weights vs TT {} core elements", l.name, l.in * l.out,
                               l.shape.parameters());
        } else if (c.quantity == "fc_share" || c.quantity == "end_to_end_speedup" ||
                   c.quantity == "model_memory") {
            const Network& net = networks.at(c.network);
            run = "net-" + net.id;
            if (c.quantity == "model_memory") {
                std::uint64_t withTt = net.totalWeights;
                std::string parts;
                for (const auto& [layer, id] : net.tt) {
                    withTt = withTt - net.weights.at(layer) + layers.at(id).shape.parameters();
                    parts += fmt::format("; {} {} → {} TT core elements", layer, net.weights.at(layer),
                                         layers.at(id).shape.parameters());
                }
                cl.simulated = static_cast<double>(net.totalWeights) / static_cast<double>(withTt);
                note = fmt::format(
                    "{}: {} weights of its convolution and FC layers dense vs {} with TT layers{} "
                    "(biases and activations left out)",
                    net.workload, net.totalWeights, withTt, parts);
            } else {
                const NetworkTimes t = networkTimes(rep.at(run), net);
                if (c.quantity == "fc_share") {
                    cl.simulated = 100.0 * t.fc / t.total;
                    note =
                        fmt::format("{} on {} threads: FC layers ({}) {} of {}", net.workload, denseThreads,
                                    fmt::join(net.fcLayers, ", "), humanSi(t.fc, "s"), humanSi(t.total, "s"));
                } else {
                    // Each TT layer's own simulated speed-up (dense fc kernel against TT, above) applied
                    // to that layer's time in the network.
                    double saved = 0.0;
                    std::string parts;
                    for (const auto& [layer, id] : net.tt) {
                        const double dense = rep.at("dense-" + id).at("seconds").get<double>();
                        const double tt = rep.at("tt-" + id).at("seconds").get<double>();
                        const double inNet = t.layer.at(layer);
                        saved += inNet * (1.0 - tt / dense);
                        parts += fmt::format("; {} {} in the network, {:.2f}× faster as TT alone ({} vs {})",
                                             layer, humanSi(inNet, "s"), dense / tt, humanSi(dense, "s"),
                                             humanSi(tt, "s"));
                    }
                    cl.simulated = t.total / (t.total - saved);
                    note = fmt::format(
                        "{} on {} threads: {} dense, {} with TT layers{}; FC share {:.1f} %, so at most "
                        "{:.2f}× (Amdahl)",
                        net.workload, denseThreads, humanSi(t.total, "s"), humanSi(t.total - saved, "s"),
                        parts, 100.0 * t.fc / t.total, t.total / (t.total - t.fc));
                }
            }
        }
        cl.run = run;
        cl.quantityLabel = c.quantity;
        const double tol = range ? 0.0 : c.relTol * std::fabs(c.lo);
        cl.tolerance = range ? fmt::format("{}–{} {} (the published range)", num(c.lo), num(c.hi), c.unit)
                             : fmt::format("±{} % (set by the paper's claim file)", num(c.relTol * 100));
        const bool inside =
            !std::isnan(cl.simulated) && cl.simulated >= c.lo - tol && cl.simulated <= c.hi + tol;
        if (inside) {
            cl.verdict = "match";
            note = (range ? fmt::format("inside the published {}–{} {}", num(c.lo), num(c.hi), c.unit)
                          : fmt::format("within ±{} %", num(c.relTol * 100))) +
                   "; " + note;
        } else {
            cl.verdict = "mismatch";
            note = (range ? fmt::format("outside the published {}–{} {}", num(c.lo), num(c.hi), c.unit)
                          : fmt::format("outside ±{} %", num(c.relTol * 100))) +
                   "; " + note;
        }
        if (!c.source.empty())
            note += "; " + c.source;
        cl.note = note;
        res.claims.push_back(cl);
    }
    // Thresholds: a trend-match when the simulated ones rise with the thread count as published.
    std::vector<ReproClaim*> th;
    for (auto& cl : res.claims)
        if (cl.quantity == "thread_threshold")
            th.push_back(&cl);
    bool rising = !th.empty();
    for (std::size_t i = 1; i < th.size(); ++i)
        if (std::isnan(th[i]->simulated) || std::isnan(th[i - 1]->simulated) ||
            (th[i]->simulated - th[i - 1]->simulated) * (th[i]->published - th[i - 1]->published) <= 0)
            rising = false;
    for (auto* cl : th)
        if (cl->verdict == "mismatch" && rising && th.size() > 1) {
            if (!withinTrendFactor(cl->simulated, cl->published)) {
                cl->note += "; the simulated thresholds rise with the thread count as the published ones" +
                            beyondTrendFactorNote(*cl);
                continue;
            }
            cl->verdict = "trend-match";
            cl->note += "; the simulated thresholds rise with the thread count as the published ones";
        }
    res.commands["vec-packed"] = reproCommand("tessim", runs.at("vec-packed"));
    res.commands["vec-vectorised"] = reproCommand("tessim", runs.at("vec-vectorised"));
    res.commands["vec-blocked-scalar"] = reproCommand("tessim", runs.at("vec-blocked-scalar"));
    const std::string blockRun = "rb-" + blockName(seedFits ? seedBlock : bestBlock);
    res.commands[blockRun] = reproCommand("tessim", runs.at(blockRun));
    res.commands["threads-b" + std::to_string(batches.back())] = reproCommand(
        "tessim", runs.at(fmt::format("threads-b{:03}-t{}", batches.back(), threadCounts.back())));
    for (const auto& id : networkOrder)
        res.commands["net-" + id] = reproCommand("tessim", runs.at("net-" + id));
    for (const auto& id : layerOrder) {
        res.commands["dense-" + id] = reproCommand("tessim", runs.at("dense-" + id));
        res.commands["tt-" + id] = reproCommand("tessim", runs.at("tt-" + id));
    }
    if (compiled)
        for (const auto& b : compiled->baselines) {
            res.commands["compile-" + b.id] = compiled->commandLine(b);
            for (const auto& id : compiled->layers) {
                const std::string name = "compiled-" + b.id + "-" + id;
                res.commands[name] = reproCommand("tessim", runs.at(name));
            }
        }
    return res;
}

}  // namespace tessim
