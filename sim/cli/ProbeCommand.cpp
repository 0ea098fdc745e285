// `tessim probe ddr|cache|sram --target T`: standard micro-patterns on one of a target's
// memories (models/memory/MemoryProbe), printed as one JSON object. `probe cache --curves`:
// latency and bandwidth against working-set size as core0 sees them (sim/app/CacheCurveProbe).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <systemc>

#include "models/memory/MemoryProbe.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/app/CacheCurveProbe.h"
#include "sim/app/Simulation.h"
#include "sim/cli/Commands.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Quantity.h"
#include "sim/core/SelfExecutable.h"
#include "sim/core/SimulationSetup.h"
#include "sim/sweep/PlotScript.h"

namespace tessim::cli {
namespace {

struct ProbeRequest {
    std::string kind;
    std::string target;
    std::string memory;
    std::vector<std::string> sets;
    ProbeOptions options;
    std::uint64_t streamKiB = 8192;
    // --curves
    bool curves = false;
    std::string minSize = "1KiB", maxSize = "64MiB";
    unsigned threads = 1;
    unsigned jobs = 0;  // 0: one per hardware thread
    std::string plotFile;
};

std::uint64_t sizeOption(const std::string& option, const std::string& text) {
    std::string why;
    auto bytes = config::parseBytes(text, &why);
    if (!bytes)
        throw std::runtime_error(fmt::format("{} '{}': {}", option, text, why));
    return bytes->value;
}

void runCurves(const ProbeRequest& p) {
    if (p.kind != "cache")
        throw std::runtime_error("--curves, --min, --max, --threads and --plot belong to `probe cache`");
    if (!p.memory.empty())
        throw std::runtime_error("--memory does not apply to --curves (they run on core0 and its caches)");
    CacheCurveRequest r;
    r.target = p.target;
    r.sets = p.sets;
    r.minBytes = sizeOption("--min", p.minSize);
    r.maxBytes = sizeOption("--max", p.maxSize);
    r.threads = p.threads;
    r.jobs = p.jobs ? p.jobs : std::max(1u, std::thread::hardware_concurrency());
    r.executable = selfExecutable();
    const nlohmann::ordered_json out = probeCacheCurves(r);
    std::cout << out.dump(2) << '\n' << std::flush;
    if (p.plotFile.empty())
        return;
    const std::string data = p.plotFile + ".json";
    {
        std::ofstream f(data);
        f << out.dump() << '\n';
        if (!f)
            throw std::runtime_error("cannot write " + data);
    }
    const int rc = sweep::runPlotScript({data, "--kind", "cache-probe", "--file", p.plotFile}, std::cerr);
    std::remove(data.c_str());
    if (rc != 0)
        throw std::runtime_error("the plot script failed (exit " + std::to_string(rc) + ")");
}

bool isKind(Memory* m, const std::string& kind) {
    if (kind == "ddr")
        return dynamic_cast<Ddr*>(m) != nullptr;
    if (kind == "cache")
        return dynamic_cast<Cache*>(m) != nullptr;
    return dynamic_cast<Scratchpad*>(m) != nullptr;
}

nlohmann::ordered_json runProbe(ProbeRequest& p) {
    RunRequest request;
    request.target = p.target;
    request.sets = p.sets;
    ResolvedInputs inputs = resolveInputs(request);
    initSystemC();
    ConfiguredTarget target(inputs.target);
    const TargetInfo& info = target.info();
    Memory* memory = nullptr;
    std::string names;
    for (const auto& s : info.spaces) {
        Memory* m = target.findMemory(s.name);
        if (!isKind(m, p.kind))
            continue;
        names += (names.empty() ? "" : ", ") + s.name;
        if (!memory && (p.memory.empty() || p.memory == s.name))
            memory = m;
    }
    std::string implName = p.kind == "sram" ? "scratchpad" : p.kind;
    if (!memory) {
        if (p.memory.empty())
            throw std::runtime_error("target '" + info.name + "' has no memory with impl: " + implName);
        throw std::runtime_error("target '" + info.name + "' has no " + implName + " named '" + p.memory +
                                 "'" +
                                 (names.empty() ? "" : " (its " + implName + " memories: " + names + ")"));
    }
    p.options.streamBytes = p.streamKiB * 1024;
    MemoryProbe probe(
        "probe", [&] { target.resetMemoryTiming(); }, p.options);
    probe.socket.bind(memory->socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    nlohmann::ordered_json out;
    out["schema"] = "tessim.probe/1";
    out["probe"] = p.kind;
    out["target"] = info.name;
    out["memory"] = std::string(memory->name());
    nlohmann::ordered_json figures;
    if (p.kind == "ddr")
        figures = probe.probeDdr(*dynamic_cast<Ddr*>(memory));
    else if (p.kind == "cache")
        figures = probe.probeCache(*dynamic_cast<Cache*>(memory));
    else
        figures = probe.probeScratchpad(*dynamic_cast<Scratchpad*>(memory));
    for (auto& [k, v] : figures.items())
        out[k] = v;
    return out;
}

}  // namespace

void addProbeCommand(CLI::App& app) {
    auto p = std::make_shared<ProbeRequest>();
    auto* sub = app.add_subcommand("probe", "characterise a target's memory with micro-patterns (JSON)");
    sub->add_option("kind", p->kind, "ddr, cache or sram")
        ->required()
        ->check(CLI::IsMember({"ddr", "cache", "sram"}));
    sub->add_option("--target", p->target, "target name or YAML path")->required();
    sub->add_option("--memory", p->memory, "which memory of that kind (default: the first)");
    sub->add_option("--set", p->sets, "override a config value: target.<dotted.key>=<value>")
        ->take_all()
        ->allow_extra_args(false);
    sub->add_option("--outstanding", p->options.outstanding, "requests in flight in streams (default 64)")
        ->check(CLI::Range(1u, 65536u));
    sub->add_option("--request", p->options.requestBytes, "request size in bytes (default 64)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
    sub->add_option("--stream-kib", p->streamKiB, "KiB per streaming pattern (default 8192)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
    sub->add_flag("--curves", p->curves,
                  "cache: latency and read/write/copy bandwidth against size, as core0 sees its caches");
    sub->add_option("--min", p->minSize, "--curves: smallest working set, a power of two (default 1KiB)");
    sub->add_option("--max", p->maxSize, "--curves: largest working set, a power of two (default 64MiB)");
    sub->add_option("--threads", p->threads, "--curves: bandwidth also on cores 0..N-1 (default 1)")
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--jobs", p->jobs, "--curves: runs at a time (default: one per hardware thread)")
        ->check(CLI::Range(1u, 1024u));
    sub->add_option("--plot", p->plotFile, "--curves: also draw the curves to this PNG file");
    sub->callback([p, sub] {
        runGuarded([&] {
            const bool curves = p->curves || sub->count("--min") || sub->count("--max") ||
                                sub->count("--threads") || sub->count("--plot") || sub->count("--jobs");
            if (curves)
                runCurves(*p);
            else
                std::cout << runProbe(*p).dump(2) << '\n' << std::flush;
        });
    });
}

}  // namespace tessim::cli
