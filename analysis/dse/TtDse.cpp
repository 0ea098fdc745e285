#include "analysis/dse/TtDse.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/reproduce/Reproduction.h"
#include "run/pipeline/Simulation.h"
#include "run/sweep/ResultRow.h"
#include "run/sweep/Sweep.h"
#include "sim/config/Reader.h"
#include "sim/core/SelfExecutable.h"

namespace tessim {

namespace fs = std::filesystem;

namespace {

// `{in: [..], out: [..], ranks: [..]}`: the workload.tt value of a shape, inner ranks only.
std::string ttValue(const TtShape& s) {
    std::vector<std::uint64_t> inner(s.ranks.begin() + 1, s.ranks.end() - 1);
    auto list = [](const std::vector<std::uint64_t>& v) {
        std::string t = "[";
        for (std::size_t i = 0; i < v.size(); ++i)
            t += (i ? ", " : "") + std::to_string(v[i]);
        return t + "]";
    };
    return "{in: " + list(s.in) + ", out: " + list(s.out) + ", ranks: " + list(inner) + "}";
}

std::string threadsValue(const std::vector<unsigned>& t) {
    std::string s = "[";
    for (std::size_t i = 0; i < t.size(); ++i)
        s += (i ? ", " : "") + std::to_string(t[i]);
    return s + "]";
}

double metric(const sweep::ResultRow& row, const std::string& key) {
    for (const auto& [k, v] : row.metrics)
        if (k == key && v.is_number())
            return v.get<double>();
    return -1.0;
}

std::string countText(double c) {
    return c < 1e15 ? fmt::format("{:.0f}", c) : fmt::format("{:.3g}", c);
}

}  // namespace

std::vector<unsigned> einsumThreads(const TtShape& shape, std::uint64_t batch, const DseOptions& o) {
    std::vector<unsigned> t;
    for (const auto& e : shape.einsums(batch))
        t.push_back(threadsForFlops(static_cast<double>(e.flops()), o.threadThresholds, o.maxThreads));
    return t;
}

DseResult runTtDse(DseOptions o, std::ostream& progress) {
    // The layer: the workload after the overrides (a library fc, or in/out/batch set).
    RunRequest request;
    request.target = o.target;
    request.workload = o.workload;
    request.sets = o.sets;
    const ResolvedInputs inputs = resolveInputs(request);
    {
        config::Reader w(inputs.workload);
        const std::string kernel = w.get<std::string>("kernel");
        if (kernel != "fc")
            w.fail("kernel", "the TT design-space exploration takes an fc workload, not '" + kernel + "'");
        if (w.has("tt"))
            w.fail("tt", "give the dense layer (in, out, batch); the exploration chooses the TT shape");
        // A TT factorisation needs at least two factors of each side.
        o.space.in = w.get<std::uint64_t>("in", config::Range<std::uint64_t>::atLeast(2));
        o.space.out = w.get<std::uint64_t>("out", config::Range<std::uint64_t>::atLeast(2));
        o.space.batch = w.get<std::uint64_t>("batch", 1, config::Range<std::uint64_t>::atLeast(1));
        // A TT of d cores splits both sides into d factors of at least 2 (a side that splits into d
        // also splits into d − 1, so both splitting at --min-cores is enough): without it the space
        // is empty, which is an error rather than a table of zeros.
        const std::string cores = fmt::format("{}–{} factors of at least 2 (one per TT core; --min-cores, "
                                              "--max-cores)",
                                              o.space.minCores, o.space.maxCores);
        for (const auto& [key, n] : {std::pair{"in", o.space.in}, std::pair{"out", o.space.out}})
            if (sortedFactorisations(n, o.space.minCores).empty())
                w.fail(key, fmt::format("{} has no factorisation into {}: no tensor-train shape exists", n,
                                        cores));
    }
    TtSpace space = exploreTtSpace(o.space);
    const std::size_t simulated = std::min<std::size_t>(o.simulate, space.survivors.size());
    space.survivors.resize(simulated);
    space.steps.push_back({"simulated (fewest FLOPs first)", static_cast<double>(simulated)});

    if (o.outDir.empty())
        o.outDir =
            fmt::format("out/dse/{}-{}x{}", fs::path(o.target).stem().string(), o.space.in, o.space.out);
    fs::create_directories(o.outDir);

    // The dense baseline on the same threads, once per directory.
    const fs::path densePath = fs::path(o.outDir) / "dense.json";
    nlohmann::json dense;
    if (o.resume && fs::exists(densePath)) {
        std::ifstream in(densePath);
        dense = nlohmann::json::parse(in);
    } else {
        ReproRun run;
        run.name = "dense";
        run.target = o.target;
        run.workload = o.workload;
        run.sets = o.sets;
        run.sets.push_back("plan.threads=" + std::to_string(o.maxThreads));
        dense = runChildSimulation(selfExecutable(), run);
        std::ofstream out(densePath);
        out << dense.dump() << '\n';
    }
    const double denseSeconds = dense.at("seconds").get<double>();

    // The survivors as a sweep: one zipped point per shape.
    std::ostringstream spec;
    spec << "# written by tessim dse: the TT shapes that survived pruning\n";
    spec << "name: dse\nbase:\n  target: \"" << o.target << "\"\n  workload: \"" << o.workload << "\"\n";
    if (!o.plan.empty())
        spec << "  plan: \"" << o.plan << "\"\n";
    spec << "  set:\n";
    for (const auto& s : o.sets) {
        const auto eq = s.find('=');
        if (eq == std::string::npos)
            throw std::runtime_error("--set '" + s + "' is not key=value");
        spec << "    " << s.substr(0, eq) << ": \"" << s.substr(eq + 1) << "\"\n";
    }
    if (simulated > 0) {
        spec << "zip:\n  workload.tt:\n";
        for (const auto& s : space.survivors)
            spec << "    - \"" << ttValue(s) << "\"\n";
        spec << "  plan.threads:\n";
        for (const auto& s : space.survivors) {
            const auto t = einsumThreads(s, o.space.batch, o);
            spec << "    - " << *std::max_element(t.begin(), t.end()) << "\n";
        }
        spec << "  plan.einsum_threads:\n";
        for (const auto& s : space.survivors)
            spec << "    - \"" << threadsValue(einsumThreads(s, o.space.batch, o)) << "\"\n";
        spec << "metrics: [seconds, cycles, traffic_bytes.ddr.read, stats.workload.flops, "
                "stats.workload.parameters]\n";
        spec << "objectives:\n  - minimize: seconds\n  - minimize: stats.workload.parameters\n";
        spec << "plots:\n  - {kind: pareto, x: stats.workload.parameters, y: seconds}\n";
        const std::string specPath = (fs::path(o.outDir) / "sweep.yaml").string();
        {
            std::ofstream f(specPath);
            f << spec.str();
        }
        sweep::SweepOptions so;
        so.specPath = specPath;
        so.jobs = o.jobs;
        so.outDir = (fs::path(o.outDir) / "runs").string();
        so.resume = o.resume;
        so.terminal = false;
        so.plot = o.plot;
        std::ostringstream summary;
        const int rc = sweep::runSweep(so, summary, progress);
        if (rc == 130)
            throw std::runtime_error("interrupted");
    }

    // Rank the finished points.
    std::map<std::string, const TtShape*> byValue;
    for (const auto& s : space.survivors)
        byValue[ttValue(s)] = &s;
    struct Ranked {
        const TtShape* shape;
        double seconds, ddrRead;
        std::string threads;
    };
    std::vector<Ranked> ranked;
    unsigned failed = 0;
    std::ifstream results(fs::path(o.outDir) / "runs" / "results.jsonl");
    std::string line;
    while (std::getline(results, line)) {
        const auto row = sweep::parseJsonLine(line);
        if (!row)
            continue;
        std::string tt, threads;
        for (const auto& [k, v] : row->params) {
            if (k == "workload.tt")
                tt = v;
            if (k == "plan.einsum_threads")
                threads = v;
        }
        const auto it = byValue.find(tt);
        if (it == byValue.end())
            continue;
        if (row->status != sweep::PointStatus::Ok) {
            ++failed;
            continue;
        }
        ranked.push_back(
            Ranked{it->second, metric(*row, "seconds"), metric(*row, "traffic_bytes.ddr.read"), threads});
    }
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
        if (a.seconds != b.seconds)
            return a.seconds < b.seconds;
        return a.shape->describe() < b.shape->describe();
    });

    DseResult r;
    auto& j = r.json;
    j["schema"] = "tessim.dse/1";
    j["target"] = o.target;
    j["layer"] = {{"in", o.space.in}, {"out", o.space.out}, {"batch", o.space.batch}};
    j["options"] = {{"cores", {o.space.minCores, o.space.maxCores}}, {"ranks", o.space.ranks},
                    {"vector_length", o.space.vectorLength},         {"max_threads", o.maxThreads},
                    {"thread_thresholds_flops", o.threadThresholds}, {"simulate", o.simulate}};
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : space.steps)
        steps.push_back({{"name", s.name}, {"count", s.count}});
    j["steps"] = steps;
    j["alignment_check"] = {{"ordered_pairs", space.orderedPairs},
                            {"orderings_of_aligned_pairs", space.orderingsOfAligned},
                            {"equal", space.orderedPairs == space.orderingsOfAligned}};
    const double denseFlops = 2.0 * static_cast<double>(o.space.batch * o.space.in * o.space.out);
    j["dense"] = {{"seconds", denseSeconds},
                  {"flops", denseFlops},
                  {"bytes", o.space.in * o.space.out * 4},
                  {"threads", o.maxThreads}};
    nlohmann::ordered_json best = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < ranked.size() && i < o.top; ++i) {
        const auto& x = ranked[i];
        nlohmann::ordered_json b;
        b["shape"] = {{"in", x.shape->in}, {"out", x.shape->out}};
        b["ranks"] = x.shape->ranks;
        b["plan"] = {{"einsum_threads", x.threads}};
        if (!o.plan.empty())
            b["plan"]["file"] = o.plan;
        b["seconds"] = x.seconds;
        b["speedup"] = x.seconds > 0 ? denseSeconds / x.seconds : 0.0;
        b["flops"] = x.shape->flops(o.space.batch);
        b["bytes"] = x.shape->parameters() * 4;
        b["memory_reduction"] =
            static_cast<double>(o.space.in * o.space.out) / static_cast<double>(x.shape->parameters());
        b["ddr_read_bytes"] = x.ddrRead;
        best.push_back(b);
    }
    j["best"] = best;
    j["simulated"] = ranked.size();
    // The best solution with the optimisations added one at a time (configs/plans/tt/).
    nlohmann::ordered_json breakdown = nlohmann::ordered_json::array();
    if (o.breakdown && !ranked.empty()) {
        const TtShape& s = *ranked.front().shape;
        for (const char* plan : {"naive", "packed", "vectorised", "blocked", "tiled", "threaded"}) {
            ReproRun run;
            run.name = std::string("breakdown-") + plan;
            run.target = o.target;
            run.workload = o.workload;
            run.plan = std::string("tt/") + plan;
            run.sets = o.sets;
            run.sets.push_back("workload.tt=" + ttValue(s));
            if (std::string(plan) == "threaded") {
                const auto t = einsumThreads(s, o.space.batch, o);
                run.sets.push_back("plan.threads=" + std::to_string(*std::max_element(t.begin(), t.end())));
                run.sets.push_back("plan.einsum_threads=" + threadsValue(t));
            }
            const nlohmann::json rep = runChildSimulation(selfExecutable(), run);
            // Loads and stores of the first thread's engine, in the stats tree under the target.
            const std::string targetName = rep.at("target").at("name").get<std::string>();
            const std::string engine = rep.at("plan").at("config").at("engines").at(0).get<std::string>();
            const nlohmann::json ops = rep.at("stats")
                                           .value(targetName, nlohmann::json::object())
                                           .value(engine, nlohmann::json::object());
            breakdown.push_back(
                {{"plan", run.plan},
                 {"seconds", rep.at("seconds").get<double>()},
                 {"loads_stores", ops.contains("memory_ops") ? ops["memory_ops"]["value"] : nullptr}});
        }
    }
    j["breakdown"] = breakdown;
    j["failed"] = failed;

    std::ostringstream md;
    md << fmt::format("# TT design-space exploration: {} → {} (batch {}) on {}\n\n", o.space.in, o.space.out,
                      o.space.batch, o.target);
    md << "| step | solutions |\n|---|---|\n";
    for (const auto& s : space.steps)
        md << "| " << s.name << " | " << countText(s.count) << " |\n";
    md << fmt::format(
        "\nAlignment check: {} ordered factorisation pairs = Σ (d!)²/(k1!…kj!) over aligned pairs "
        "= {} ({}).\n\n",
        countText(space.orderedPairs), countText(space.orderingsOfAligned),
        space.orderedPairs == space.orderingsOfAligned ? "equal" : "NOT equal");
    md << fmt::format("Dense baseline: {:.4g} s on {} threads.\n\n", denseSeconds, o.maxThreads);
    md << "| # | in factors | out factors | ranks | einsum threads | seconds | speed-up | MFLOP | KiB |\n"
          "|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < ranked.size() && i < o.top; ++i) {
        const auto& x = ranked[i];
        md << fmt::format("| {} | {} | {} | {} | {} | {:.4g} | {:.2f}× | {:.3f} | {:.1f} |\n", i + 1,
                          listText(x.shape->in), listText(x.shape->out), listText(x.shape->ranks), x.threads,
                          x.seconds, x.seconds > 0 ? denseSeconds / x.seconds : 0.0,
                          static_cast<double>(x.shape->flops(o.space.batch)) / 1e6,
                          static_cast<double>(x.shape->parameters() * 4) / 1024.0);
    }
    if (!breakdown.empty()) {
        md << "\nThe best solution with each optimisation added in turn (plans tt/…):\n\n"
              "| plan | seconds | loads and stores (first thread) |\n|---|---|---|\n";
        for (const auto& b : breakdown)
            md << fmt::format("| {} | {:.4g} | {} |\n", b["plan"].get<std::string>(),
                              b["seconds"].get<double>(), b["loads_stores"].dump());
    }
    if (failed)
        md << fmt::format("\n{} simulated points failed (see {}/runs/results.csv).\n", failed, o.outDir);
    r.markdown = md.str();
    std::ofstream(fs::path(o.outDir) / "dse.json") << j.dump(2) << '\n';
    std::ofstream(fs::path(o.outDir) / "dse.md") << r.markdown;
    return r;
}

}  // namespace tessim
