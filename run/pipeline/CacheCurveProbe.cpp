#include "run/pipeline/CacheCurveProbe.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "run/sweep/ProcessPool.h"

namespace tessim {
namespace {

// The chain touches one 4 B word per 64 B line: one line per load, as lat_mem_rd's stride.
constexpr std::uint64_t kChaseStride = 64;
// Each thread walks at least this much in the passes a figure is taken from, so that the
// misses of the cold first pass, which loads leave in flight, are long done by its end.
constexpr std::uint64_t kMeasuredBytesPerThread = 256 << 10;

struct RunKey {
    std::string kernel;
    std::uint64_t bytes;
    unsigned threads;
    unsigned repeat;
    bool operator<(const RunKey& o) const {
        return std::tie(kernel, bytes, threads, repeat) < std::tie(o.kernel, o.bytes, o.threads, o.repeat);
    }
};

struct RunFigures {
    double cycles = 0;
    double seconds = 0;
};

double round3(double v) {
    return std::round(v * 1000.0) / 1000.0;
}

std::vector<std::string> runArguments(const CacheCurveRequest& r, const RunKey& k) {
    std::vector<std::string> argv{r.executable, "run",    "--target", r.target,
                                  "--workload", k.kernel, "--format", "json"};
    auto set = [&](const std::string& kv) { argv.insert(argv.end(), {"--set", kv}); };
    set(fmt::format("workload.bytes={}B", k.bytes));
    set(fmt::format("workload.repeat={}", k.repeat));
    set(fmt::format("plan.threads={}", k.threads));
    if (k.kernel == "pointer_chase")
        set(fmt::format("workload.stride={}B", kChaseStride));
    for (const auto& s : r.sets)
        set(s);
    return argv;
}

std::string lastLine(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r'))
        t.pop_back();
    const auto at = t.rfind('\n');
    return at == std::string::npos ? t : t.substr(at + 1);
}

}  // namespace

unsigned measuredPasses(std::uint64_t bytes, unsigned threads) {
    const std::uint64_t perThread = std::max<std::uint64_t>(1, bytes / threads);
    return static_cast<unsigned>(std::max<std::uint64_t>(2, kMeasuredBytesPerThread / perThread));
}

std::vector<std::uint64_t> powerOfTwoSizes(std::uint64_t minBytes, std::uint64_t maxBytes) {
    auto power = [](std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
    if (!power(minBytes) || !power(maxBytes))
        throw std::runtime_error(
            fmt::format("--min and --max must be powers of two (got {} B and {} B)", minBytes, maxBytes));
    if (minBytes < 1024 || maxBytes > (std::uint64_t{256} << 20))
        throw std::runtime_error(
            fmt::format("sizes run from 1 KiB to 256 MiB (got --min {} B, --max {} B)", minBytes, maxBytes));
    if (minBytes > maxBytes)
        throw std::runtime_error(fmt::format("--min ({} B) is above --max ({} B)", minBytes, maxBytes));
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t b = minBytes; b <= maxBytes; b *= 2)
        sizes.push_back(b);
    return sizes;
}

nlohmann::ordered_json probeCacheCurves(const CacheCurveRequest& request) {
    const std::vector<std::uint64_t> sizes = powerOfTwoSizes(request.minBytes, request.maxBytes);
    if (request.threads < 1)
        throw std::runtime_error("--threads must be at least 1");
    std::vector<unsigned> threadCounts{1};
    if (request.threads > 1)
        threadCounts.push_back(request.threads);
    const std::vector<std::string> streams{"memread", "memset", "memcpy"};

    std::vector<RunKey> keys;
    for (std::uint64_t b : sizes)
        for (unsigned times : {1u, 2u}) {
            keys.push_back(RunKey{"pointer_chase", b, 1, times * measuredPasses(b, 1)});
            for (unsigned t : threadCounts)
                for (const auto& k : streams)
                    keys.push_back(RunKey{k, b, t, times * measuredPasses(b, t)});
        }

    std::map<RunKey, RunFigures> figures;
    std::string targetName;
    sweep::ProcessPool pool(std::max(1u, request.jobs), 0.0);
    std::size_t next = 0, done = 0;
    while (done < keys.size()) {
        while (next < keys.size() && !pool.full()) {
            pool.start(next, runArguments(request, keys[next]));
            ++next;
        }
        for (auto& f : pool.wait(60.0)) {
            ++done;
            const RunKey& k = keys[f.tag];
            const auto& res = f.result;
            if (!res.startError.empty() || res.exitCode != 0) {
                pool.killAll();
                std::string why = !res.startError.empty() ? res.startError : lastLine(res.err);
                throw std::runtime_error(fmt::format("{} of {} B on {} thread(s) failed: {}", k.kernel,
                                                     k.bytes, k.threads, why.empty() ? "no message" : why));
            }
            const auto report = nlohmann::json::parse(res.out);
            figures[k] = RunFigures{report.at("cycles").get<double>(), report.at("seconds").get<double>()};
            if (targetName.empty())
                targetName = report.at("target").at("name").get<std::string>();
        }
    }

    // One warm pass: (2m passes − m passes) / m.
    auto warm = [&](const std::string& kernel, std::uint64_t bytes, unsigned threads) {
        const unsigned m = measuredPasses(bytes, threads);
        const RunFigures& one = figures.at(RunKey{kernel, bytes, threads, m});
        const RunFigures& two = figures.at(RunKey{kernel, bytes, threads, 2 * m});
        return RunFigures{(two.cycles - one.cycles) / m, (two.seconds - one.seconds) / m};
    };
    nlohmann::ordered_json out;
    out["schema"] = "tessim.probe.cache/1";
    out["target"] = targetName;
    out["engine"] = "core0";
    out["stride_bytes"] = kChaseStride;
    nlohmann::ordered_json latency = nlohmann::ordered_json::array();
    for (std::uint64_t b : sizes) {
        const RunFigures w = warm("pointer_chase", b, 1);
        const double loads = static_cast<double>(b / kChaseStride);
        latency.push_back(nlohmann::ordered_json{
            {"bytes", b}, {"ns", round3(w.seconds * 1e9 / loads)}, {"cycles", round3(w.cycles / loads)}});
    }
    out["latency"] = latency;
    nlohmann::ordered_json bandwidth = nlohmann::ordered_json::array();
    for (unsigned t : threadCounts)
        for (std::uint64_t b : sizes) {
            nlohmann::ordered_json row{{"bytes", b}, {"threads", t}};
            const char* names[] = {"read", "write", "copy"};
            for (std::size_t i = 0; i < streams.size(); ++i) {
                const RunFigures w = warm(streams[i], b, t);
                const double bytes = static_cast<double>(b);
                row[names[i]] =
                    nlohmann::ordered_json{{"bytes_per_cycle", round3(w.cycles > 0 ? bytes / w.cycles : 0.0)},
                                           {"GBps", round3(w.seconds > 0 ? bytes / w.seconds / 1e9 : 0.0)}};
            }
            bandwidth.push_back(row);
        }
    out["bandwidth"] = bandwidth;
    return out;
}

}  // namespace tessim
