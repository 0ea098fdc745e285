// `tessim probe ddr|cache|sram --target T`: standard micro-patterns on one of a target's
// memories (run/pipeline/MemoryProbeRun), printed as one JSON object. `probe ddr --memory FILE`
// without a target: a DDR memory alone, with request streams chosen by --pattern and friends. `probe cache
// --curves`: latency and bandwidth against working-set size as core0 sees them
// (run/pipeline/CacheCurveProbe).
#include <cmath>
#include <iostream>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "apps/tessim/Commands.h"
#include "run/pipeline/CacheCurveProbe.h"
#include "run/pipeline/MemoryProbeRun.h"
#include "run/sweep/PlotScript.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Quantity.h"
#include "sim/core/SelfExecutable.h"

namespace tessim::cli {
namespace {

// An arrival rate whose interval the simulator's picosecond time can hold (at most about 10^6 s
// between requests) and a clock can issue (at least 1 ps): NaN and infinities are refused too.
CLI::Validator rateValidator() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double rate = 0;
            std::size_t end = 0;
            try {
                rate = std::stod(text, &end);
            } catch (const std::exception&) {
                end = 0;
            }
            if (end != text.size() || !std::isfinite(rate) || rate < 1e-6 || rate > 1e12)
                return "requests per second between 1e-06 and 1e+12 (an interval of 10^6 s to 1 ps), got '" +
                       text + "'";
            return std::string();
        },
        "RATE");
}

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
    // Request streams (probe ddr)
    std::vector<std::string> patterns;
    DdrStreamSpec stream;
    std::string stride;
};

std::vector<DdrStreamSpec> streamSpecs(const ProbeRequest& p, const CLI::App& sub) {
    const bool any = !p.patterns.empty() || sub.count("--stride") || sub.count("--read-ratio") ||
                     sub.count("--seed") || sub.count("--rate") || sub.count("--requests");
    if (any && p.kind != "ddr")
        throw std::runtime_error(
            "--pattern, --stride, --read-ratio, --seed, --rate and --requests belong to `probe ddr`");
    if (!any && !p.target.empty())
        return {};
    if (sub.count("--rate") && sub.count("--outstanding"))
        throw std::runtime_error("--rate (open loop) and --outstanding (closed loop) exclude each other");
    std::vector<std::string> names = p.patterns;
    if (names.empty())
        names = {"seq", "random"};
    bool strided = false;
    std::vector<DdrStreamSpec> specs;
    for (const std::string& list : names) {
        std::size_t from = 0;
        while (from <= list.size()) {
            const std::size_t comma = std::min(list.find(',', from), list.size());
            const std::string name = list.substr(from, comma - from);
            from = comma + 1;
            DdrStreamSpec spec = p.stream;
            if (name == "seq")
                spec.pattern = DdrStreamSpec::Pattern::Sequential;
            else if (name == "random")
                spec.pattern = DdrStreamSpec::Pattern::Random;
            else if (name == "strided")
                spec.pattern = DdrStreamSpec::Pattern::Strided;
            else
                throw std::runtime_error("--pattern '" + name + "': expected seq, random or strided");
            strided |= spec.pattern == DdrStreamSpec::Pattern::Strided;
            specs.push_back(spec);
        }
    }
    if (strided != !p.stride.empty())
        throw std::runtime_error(strided ? "--pattern strided needs --stride BYTES"
                                         : "--stride applies to --pattern strided only");
    if (strided) {
        std::string why;
        auto bytes = config::parseBytes(p.stride, &why);
        if (!bytes || bytes->value == 0)
            throw std::runtime_error("--stride '" + p.stride + "': " + (bytes ? "must be above zero" : why));
        for (auto& s : specs)
            s.stride = bytes->value;
    }
    return specs;
}

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
    const int rc = sweep::drawPlot("cache-probe", out.dump() + "\n", ".json", p.plotFile, std::cerr);
    if (rc != 0)
        throw std::runtime_error("the plot script failed (exit " + std::to_string(rc) + ")");
}

}  // namespace

void addProbeCommand(CLI::App& app) {
    auto p = std::make_shared<ProbeRequest>();
    auto* sub = app.add_subcommand("probe", "characterise a target's memory with micro-patterns (JSON)");
    sub->add_option("kind", p->kind, "ddr, cache or sram")
        ->required()
        ->check(CLI::IsMember({"ddr", "cache", "sram"}));
    sub->add_option("--target", p->target, "target name or YAML path");
    sub->add_option("--memory", p->memory,
                    "with --target: which memory of that kind (default: the first); without: a DDR YAML "
                    "file or parameter set to probe alone");
    sub->add_option("--set", p->sets, "override a config value: target.<dotted.key>=<value>")
        ->take_all()
        ->allow_extra_args(false);
    sub->add_option("--outstanding", p->options.outstanding, "requests in flight in streams (default 64)")
        ->check(CLI::Range(1u, 65536u));
    sub->add_option("--request", p->options.requestBytes, "request size in bytes (default 64)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
    sub->add_option("--stream-kib", p->streamKiB, "KiB per streaming pattern (default 8192)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
    sub->add_option("--pattern", p->patterns,
                    "ddr streams: seq, random, strided (several, or comma-separated; default seq,random "
                    "without --target)");
    sub->add_option("--stride", p->stride, "ddr --pattern strided: bytes between requests (e.g. 8KiB)");
    sub->add_option("--read-ratio", p->stream.readRatio, "ddr streams: fraction of reads (default 1)")
        ->check(CLI::Range(0.0, 1.0));
    sub->add_option("--seed", p->stream.seed,
                    "ddr streams: seed of random addresses and the mix (default 1)");
    sub->add_option("--rate", p->stream.rate,
                    "ddr streams: open-loop arrival rate, requests per second (default: closed loop with "
                    "--outstanding in flight)")
        ->check(rateValidator());
    sub->add_option("--requests", p->stream.requests, "ddr streams: requests per stream (default 100000)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
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
            if (curves) {
                if (p->target.empty())
                    throw std::runtime_error("--curves needs --target T");
                runCurves(*p);
                return;
            }
            p->stream.requestBytes = p->options.requestBytes;
            p->stream.outstanding = p->options.outstanding;
            const std::vector<DdrStreamSpec> specs = streamSpecs(*p, *sub);
            MemoryProbeRequest request{p->kind, p->target, p->memory, p->sets, p->options, specs};
            request.options.streamBytes = p->streamKiB * 1024;
            const nlohmann::ordered_json out = probeMemory(request);
            std::cout << out.dump(2) << '\n' << std::flush;
        });
    });
}

}  // namespace tessim::cli
