#include "run/report/ScaleSimReport.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace tessim {
namespace {

struct Span {
    std::int64_t begin, end;  // cycles
};

// Python's repr of a float for integral cycle values ("33.0"), shortest round-trip otherwise.
std::string pyFloat(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return fmt::format("{:.1f}", v);
    return fmt::format("{}", v);
}

}  // namespace

nlohmann::ordered_json scaleSimLayers(const nlohmann::ordered_json& report, const std::string& traceFile) {
    const auto& w = report.at("workload").at("config");
    const auto& plan = report.at("plan").at("config");
    const std::string engine = plan.at("engine").get<std::string>();
    const double cycles = report.at("cycles").get<double>();
    const double seconds = report.at("seconds").get<double>();
    const double hz = seconds > 0 ? cycles / seconds : 1e9;
    const unsigned rows = w.at("array").at("rows").get<unsigned>();
    const unsigned cols = w.at("array").at("cols").get<unsigned>();
    const std::string dataflow = w.at("array").at("dataflow").get<std::string>();
    const bool ideal = w.value("interface", std::string("memory")) == "ideal";

    std::ifstream in(traceFile);
    if (!in)
        throw std::runtime_error("cannot read the run's trace '" + traceFile + "'");
    nlohmann::json trace = nlohmann::json::parse(in);
    std::map<int, std::string> tracks;
    for (const auto& e : trace.at("traceEvents"))
        if (e.value("ph", "") == "M")
            tracks[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
    auto toCycle = [&](double us) { return static_cast<std::int64_t>(std::llround(us * 1e-6 * hz)); };
    std::vector<Span> macs;
    std::map<std::pair<std::size_t, int>, Span>
        dmaWindow;  // (layer position, channel) → first begin, last end
    for (const auto& e : trace.at("traceEvents")) {
        if (e.value("ph", "") != "X")
            continue;
        const std::string& track = tracks[e.at("tid").get<int>()];
        const std::string name = e.at("name").get<std::string>();
        const double ts = e.at("ts").get<double>(), dur = e.at("dur").get<double>();
        Span s{toCycle(ts), toCycle(ts + dur)};
        if (track == engine && name == "mac_tile") {
            macs.push_back(s);
        } else if (name.rfind("dma tag ", 0) == 0) {
            auto ch = track.rfind(".ch");
            if (ch == std::string::npos)
                continue;
            int channel = std::stoi(track.substr(ch + 3));
            std::size_t tag = std::stoul(name.substr(8));
            if (tag == 0)
                continue;
            auto key = std::make_pair((tag - 1) / 4, channel);
            auto it = dmaWindow.find(key);
            if (it == dmaWindow.end())
                dmaWindow[key] = s;
            else
                it->second = Span{std::min(it->second.begin, s.begin), std::max(it->second.end, s.end)};
        }
    }
    // A total order: spans that begin together keep one order with any standard library's sort.
    std::sort(macs.begin(), macs.end(), [](const Span& a, const Span& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });

    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    std::size_t next = 0;
    const auto& layers = w.at("layers");
    for (std::size_t pos = 0; pos < layers.size(); ++pos) {
        const auto& l = layers[pos];
        const std::uint64_t folds =
            l.at("row_folds").get<std::uint64_t>() * l.at("col_folds").get<std::uint64_t>();
        const std::uint64_t perFold = l.at("cycles_per_fold").get<std::uint64_t>();
        if (next + folds > macs.size())
            throw std::runtime_error(
                fmt::format("trace has {} array folds, the topology needs more (layer {})", macs.size(),
                            l.at("name").get<std::string>()));
        const Span first = macs[next], last = macs[next + folds - 1];
        // Per fold, in run order (column folds outer): the array's share in use and its compute
        // utilisation over the fold's cycles as SCALE-Sim counts them, the simulated fold plus,
        // for ws and is, the cols − 1 cycles the last column's results take to leave the array
        // (overlapping the next fold). Averaged over folds in that order, as SCALE-Sim sums them.
        const std::uint64_t sr = l.at("sr").get<std::uint64_t>(), sc = l.at("sc").get<std::uint64_t>();
        const std::uint64_t rowFolds = l.at("row_folds").get<std::uint64_t>();
        const std::uint64_t t = l.at("t").get<std::uint64_t>();
        const double pes = double(rows) * cols;
        const std::size_t base = next;  // the layer's first fold in `macs`
        double mappingSum = 0, utilSum = 0;
        std::int64_t busy = 0;
        for (std::size_t i = 0; i < folds; ++i) {
            const Span& f = macs[next + i];
            busy += f.end - f.begin;
            const std::uint64_t fc = i / rowFolds, fr = i % rowFolds;
            const std::uint64_t used =
                std::min<std::uint64_t>(rows, sr - fr * rows) * std::min<std::uint64_t>(cols, sc - fc * cols);
            const std::int64_t span = f.end - f.begin + (dataflow == "os" ? 0 : std::int64_t{cols} - 1);
            mappingSum += double(used) / pes;
            utilSum += double(used * t) / (pes * double(span));
        }
        next += folds;
        const std::int64_t window = last.end - first.begin;
        // Between folds the memory schedule orders each write-back with a one-cycle fence, which
        // is no stall; with the ideal interface nothing sits between folds.
        const std::int64_t fences = ideal ? 0 : static_cast<std::int64_t>(folds - 1);
        const std::int64_t stall = std::max<std::int64_t>(0, window - busy - fences);
        const std::int64_t total = static_cast<std::int64_t>(folds * perFold) - 1 + stall;
        const double macCount = l.at("macs").get<double>();
        nlohmann::ordered_json x;
        x["layer_id"] = l.at("index");
        x["name"] = l.at("name");
        x["total_cycles"] = total;
        x["stall_cycles"] = stall;
        x["compute_cycles"] = folds * perFold - 1;
        x["overall_util_pct"] = 100.0 * macCount / (double(total) * rows * cols);
        x["mapping_efficiency_pct"] = mappingSum / double(folds) * 100.0;
        x["compute_util_pct"] = utilSum / double(folds) * 100.0;
        x["start_cycle"] = first.begin;  // absolute, in the run
        x["end_cycle"] = last.end;
        if (ideal) {  // SCALE-Sim's windows of the ideal interface, cycle 0 = the first fold
            const auto& a = l.at("ideal_interface");
            for (const char* level : {"sram", "dram"})
                for (const char* op : {"ifmap", "filter", "ofmap"})
                    x[level][op] = {{"start", a.at(level).at(op).at("start")},
                                    {"stop", a.at(level).at(op).at("stop")},
                                    {"count", a.at(level).at(op).at("count")}};
            x["sram"]["ifmap"]["count"] = l.at("sram_ifmap_reads");
            x["sram"]["filter"]["count"] = l.at("sram_filter_reads");
            x["sram"]["ofmap"]["count"] = l.at("sram_ofmap_writes");
            x["dram_window"] = "inclusive";  // start and stop are both access cycles
            out.push_back(x);
            continue;
        }
        // SRAM: SCALE-Sim's access counts; the first and last cycle the array asks for each
        // operand, as with folds back to back but with the fold of the last demand where the run
        // started it (stalls before it included, the ordering fences not, as in Total Cycles).
        const auto& demand = l.at("sram_windows_back_to_back");
        auto sram = [&](const char* key, const char* count) {
            const auto& d = demand.at(key);
            const std::uint64_t k = d.at("stop_fold").get<std::uint64_t>();
            const std::int64_t shift = macs[base + k].begin - first.begin - static_cast<std::int64_t>(k) -
                                       static_cast<std::int64_t>(k * perFold);
            x["sram"][key] = {{"start", d.at("start")},
                              {"stop", d.at("stop").get<std::int64_t>() + shift},
                              {"count", l.at(count)}};
        };
        sram("ifmap", "sram_ifmap_reads");
        sram("filter", "sram_filter_reads");
        sram("ofmap", "sram_ofmap_writes");
        const char* names[3] = {"ifmap", "filter", "ofmap"};
        const char* counts[3] = {"dram_ifmap_reads", "dram_filter_reads", "dram_ofmap_writes"};
        for (int c = 0; c < 3; ++c) {
            auto it = dmaWindow.find({pos, c});
            std::int64_t start = 0, stop = 0;
            if (it != dmaWindow.end())
                start = it->second.begin - first.begin, stop = it->second.end - first.begin;
            x["dram"][names[c]] = {{"start", start}, {"stop", stop}, {"count", l.at(counts[c])}};
        }
        out.push_back(x);
    }
    return out;
}

std::string scaleSimComputeCsv(const nlohmann::ordered_json& layers) {
    std::string s =
        "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
    for (const auto& l : layers)
        s += fmt::format("{}, {}, {}, {}, {}, {},\n", l.at("layer_id").get<std::uint64_t>(),
                         l.at("total_cycles").get<std::int64_t>(), l.at("stall_cycles").get<std::int64_t>(),
                         pyFloat(l.at("overall_util_pct").get<double>()),
                         pyFloat(l.at("mapping_efficiency_pct").get<double>()),
                         pyFloat(l.at("compute_util_pct").get<double>()));
    return s;
}

std::string scaleSimBandwidthCsv(const nlohmann::ordered_json& layers) {
    std::string s = "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, "
                    "Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n";
    for (const auto& l : layers) {
        const double total = l.at("total_cycles").get<double>();
        auto sramBw = [&](const char* k) { return l.at("sram").at(k).at("count").get<double>() / total; };
        auto dramBw = [&](const char* k) {
            const auto& d = l.at("dram").at(k);
            double span = d.at("stop").get<double>() - d.at("start").get<double>() +
                          (l.contains("dram_window") ? 1.0 : 0.0);
            return span > 0 ? d.at("count").get<double>() / span : 0.0;
        };
        s += fmt::format("{}, {}, {}, {}, {}, {}, {},\n", l.at("layer_id").get<std::uint64_t>(),
                         pyFloat(sramBw("ifmap")), pyFloat(sramBw("filter")), pyFloat(sramBw("ofmap")),
                         pyFloat(dramBw("ifmap")), pyFloat(dramBw("filter")), pyFloat(dramBw("ofmap")));
    }
    return s;
}

std::string scaleSimDetailedCsv(const nlohmann::ordered_json& layers) {
    std::string s =
        "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter Start Cycle, "
        "SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM "
        "OFMAP Writes, "
        "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM "
        "Filter Stop "
        "Cycle, DRAM Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
    for (const auto& l : layers) {
        s += fmt::format("{}", l.at("layer_id").get<std::uint64_t>());
        for (const char* level : {"sram", "dram"})
            for (const char* op : {"ifmap", "filter", "ofmap"}) {
                const auto& d = l.at(level).at(op);
                s += fmt::format(", {}, {}, {}", pyFloat(d.at("start").get<double>()),
                                 pyFloat(d.at("stop").get<double>()), d.at("count").get<std::uint64_t>());
            }
        s += ",\n";
    }
    return s;
}

void writeScaleSimReports(const std::string& dir, const nlohmann::ordered_json& layers) {
    std::filesystem::create_directories(dir);
    auto write = [&](const char* name, const std::string& text) {
        std::string path = (std::filesystem::path(dir) / name).string();
        std::ofstream out(path);
        out << text;
        if (!out)
            throw std::runtime_error("cannot write '" + path + "'");
    };
    write("COMPUTE_REPORT.csv", scaleSimComputeCsv(layers));
    write("BANDWIDTH_REPORT.csv", scaleSimBandwidthCsv(layers));
    write("DETAILED_ACCESS_REPORT.csv", scaleSimDetailedCsv(layers));
}

}  // namespace tessim
