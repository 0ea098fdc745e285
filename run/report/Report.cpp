#include "run/report/Report.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/report/HumanUnits.h"

namespace tessim {

using Json = nlohmann::ordered_json;

// The cache instances the engines that worked reach: the concrete memories of their `memories`
// (a role resolved to the engine's own instance) that forward misses (`next`), and the caches
// behind those.
std::set<std::uint8_t> cachesReached(const RunOutcome& o) {
    std::set<std::uint8_t> reached;
    for (const EngineOutcome& e : o.engines) {
        if (e.stalls.total() == e.stalls[StallReason::Idle])
            continue;
        const EngineInfo* info = nullptr;
        for (const auto& ei : o.info.engines)
            if (ei.name == e.name)
                info = &ei;
        if (info == nullptr)
            continue;
        for (std::uint8_t id : info->memories) {
            const MemorySpaceInfo& s = o.info.spaces[id];
            auto role = info->roles.find(s.name);
            int at = role != info->roles.end() ? role->second : id;
            for (; at >= 0 && o.info.spaces[static_cast<std::size_t>(at)].next >= 0;
                 at = o.info.spaces[static_cast<std::size_t>(at)].next)
                reached.insert(static_cast<std::uint8_t>(at));
        }
    }
    return reached;
}

std::vector<const MemorySpaceInfo*>
levelInstances(const TargetInfo& info, const std::set<std::uint8_t>& reached, const std::string& level) {
    std::vector<const MemorySpaceInfo*> narrowed, all;
    for (const auto& s : info.spaces)
        if (s.level == level) {
            all.push_back(&s);
            if (reached.count(s.id))
                narrowed.push_back(&s);
        }
    return narrowed.empty() ? all : narrowed;
}

namespace {

// Per initiator (engine, DMA channel): bytes it moved at each memory level and the time its
// accesses queued there, summed over the level's memories, from `<memory>.by_initiator` stats.
Json initiatorsSection(const RunOutcome& o, const Json& stats) {
    Json out = Json::object();
    auto target = stats.find(o.info.name);
    if (target == stats.end())
        return out;
    for (const auto& space : o.info.spaces) {
        auto memory = target->find(space.name);
        if (memory == target->end() || !memory->contains("by_initiator"))
            continue;
        for (const auto& [who, node] : (*memory)["by_initiator"].items()) {
            auto value = [&](const char* key) { return node[key]["value"]; };
            Json& entry = out[who];
            Json& traffic = entry["traffic_bytes"][space.level];
            if (traffic.is_null())
                traffic = Json{{"read", std::uint64_t{0}}, {"write", std::uint64_t{0}}};
            traffic["read"] = traffic["read"].get<std::uint64_t>() + value("bytes_read").get<std::uint64_t>();
            traffic["write"] =
                traffic["write"].get<std::uint64_t>() + value("bytes_written").get<std::uint64_t>();
            Json& wait = entry["wait_s"][space.level];
            wait = (wait.is_number() ? wait.get<double>() : 0.0) + value("wait_time").get<double>();
        }
    }
    return out;
}

// A roofline per level: the work's intensity over the level's compulsory bytes, the performance
// the level's bandwidth and the compute peak allow at it, and what the run achieved (never above
// it: the run's time is at least every bound), beside the intensity over the bytes it moved.
Json roofline(const RunOutcome& o, double work, double peak, double seconds,
              const std::map<std::string, double>& levelPeak) {
    Json r;
    r["work"] = work;
    r["peak_work_per_s"] = peak;
    r["achieved_work_per_s"] = work / seconds;
    Json levels = Json::object();
    for (const auto& [level, bytes] : o.compulsory) {
        const auto bw = levelPeak.find(level);
        if (bytes == 0 || bw == levelPeak.end() || bw->second <= 0)
            continue;
        std::uint64_t moved = 0;
        for (const auto& t : o.traffic)
            if (t.level == level)
                moved += t.read + t.write;
        const double intensity = work / static_cast<double>(bytes);
        const double attainable = std::min(peak, bw->second * intensity);
        Json l;
        l["compulsory_bytes"] = bytes;
        l["moved_bytes"] = moved;
        l["intensity_work_per_byte"] = intensity;
        l["moved_intensity_work_per_byte"] = moved > 0 ? work / static_cast<double>(moved) : 0.0;
        l["bandwidth_bytes_per_s"] = bw->second;
        l["attainable_work_per_s"] = attainable;
        l["limit"] = bw->second * intensity < peak ? "bandwidth" : "compute";
        l["fraction_of_attainable"] = work / seconds / attainable;
        levels[level] = l;
    }
    r["levels"] = levels;
    return r;
}

}  // namespace

const std::vector<std::string>& reportTopLevelKeys() {
    static const std::vector<std::string> keys{"schema",
                                               "target",
                                               "workload",
                                               "plan",
                                               "cycles",
                                               "seconds",
                                               "engines",
                                               "stall_fraction",
                                               "traffic_bytes",
                                               "useful_bytes",
                                               "dirty_at_end_bytes",
                                               "writeback_after_end_s",
                                               "energy_j",
                                               "power_w",
                                               "kernel_window",
                                               "area_mm2",
                                               "bounds",
                                               "roofline",
                                               "functional",
                                               "layers",
                                               "not_simulated",
                                               "not_simulated_total",
                                               "profile",
                                               "initiators",
                                               "stats"};
    return keys;
}

Json buildReport(const RunOutcome& o) {
    Json j;
    j["schema"] = "tessim.report/1";
    j["target"] = Json{{"name", o.targetName}, {"config", o.targetResolved}};
    j["workload"] = Json{{"name", o.workloadName}, {"config", o.workloadResolved}};
    j["plan"] = Json{{"name", o.planName}, {"config", o.planResolved}};
    const double seconds = ticksToSeconds(o.kernelEnd);
    j["cycles"] = o.info.mainClock.cyclesCeil(o.kernelEnd);
    j["seconds"] = seconds;

    Json engines = Json::object();
    std::uint64_t mainCompute = 0, mainTotal = 0;
    double work = 0.0, peak = 0.0;
    for (const auto& e : o.engines) {
        Json stall = Json::object();
        Json cycles = Json::object();
        const std::uint64_t total = e.stalls.total();
        for (std::size_t r = 0; r < kStallReasons; ++r) {
            auto reason = static_cast<StallReason>(r);
            std::string name(stallReasonName(reason));
            stall[name] = total ? static_cast<double>(e.stalls[reason]) / static_cast<double>(total)
                                : (reason == StallReason::Idle ? 1.0 : 0.0);
            cycles[name] = e.stalls[reason];
        }
        engines[e.name] =
            Json{{"stall", stall}, {"cycles", cycles}, {"main_compute", e.mainCompute}, {"work", e.work}};
        if (e.mainCompute) {
            mainCompute += e.stalls[StallReason::Compute];
            mainTotal += total;
        }
        if (e.work > 0) {
            work += e.work;
            peak += e.peakWorkPerSecond;
        }
    }
    j["engines"] = engines;
    j["stall_fraction"] =
        mainTotal ? 1.0 - static_cast<double>(mainCompute) / static_cast<double>(mainTotal) : 0.0;

    Json traffic = Json::object();
    for (const auto& t : o.traffic)
        traffic[t.level] = Json{{"read", t.read}, {"write", t.write}};
    j["traffic_bytes"] = traffic;
    if (o.hasCaches) {
        j["dirty_at_end_bytes"] = o.dirtyAtEndBytes;
        j["writeback_after_end_s"] = ticksToSeconds(o.writebackAfterEnd);
    }
    // What was requested, where a level moved more (whole bursts): absent when every level moved
    // exactly what was asked of it.
    Json useful = Json::object();
    bool partialBursts = false;
    for (const auto& t : o.traffic) {
        useful[t.level] = Json{{"read", t.usefulRead}, {"write", t.usefulWrite}};
        partialBursts = partialBursts || t.usefulRead != t.read || t.usefulWrite != t.write;
    }
    if (partialBursts)
        j["useful_bytes"] = useful;

    // Energy and power of the whole run: the kernel, then the write-back of the lines it left
    // dirty (static power over both); on targets with caches also the kernel window's alone.
    const double wholeSeconds = seconds + ticksToSeconds(o.writebackAfterEnd);
    Json energy = o.energy.toJson(wholeSeconds);
    double joules = energy["total"].get<double>();
    j["energy_j"] = energy;
    j["power_w"] = wholeSeconds > 0 ? joules / wholeSeconds : 0.0;
    if (o.hasCaches) {
        const double kernelJoules = o.kernelEnergy.totalJoules(seconds);
        j["kernel_window"] = Json{{"seconds", seconds},
                                  {"energy_j", kernelJoules},
                                  {"power_w", seconds > 0 ? kernelJoules / seconds : 0.0}};
    }
    if (o.energy.hasArea())
        j["area_mm2"] = o.energy.areaJson();

    Json bounds;
    bounds["compute_s"] = peak > 0 ? work / peak : 0.0;
    Json bandwidth = Json::object();
    Json compulsory = Json::object();
    std::map<std::string, double> levelPeak;  // B/s of the instances each level's bound counts
    const std::set<std::uint8_t> reached = cachesReached(o);
    for (const auto& [level, bytes] : o.compulsory) {
        // A cache level counts the instances the working engines reach (a thread's own L1, its
        // cluster's L2); any other level all of its instances.
        double bw = 0.0, writeBw = 0.0;
        for (const MemorySpaceInfo* s : levelInstances(o.info, reached, level)) {
            bw += s->peakBandwidth;
            writeBw += s->peakWriteBandwidth > 0 ? s->peakWriteBandwidth : s->peakBandwidth;
        }
        // The bytes it must write take the level at its store rate, the rest at its peak (they
        // share its ports).
        const auto w = o.compulsoryWrite.find(level);
        const double written =
            w == o.compulsoryWrite.end() ? 0.0 : static_cast<double>(std::min(w->second, bytes));
        const double bound =
            bw > 0 && writeBw > 0 ? (static_cast<double>(bytes) - written) / bw + written / writeBw : 0.0;
        bandwidth[level] = bound;
        compulsory[level] = bytes;
        // The roofline's bandwidth: the rate the bound allows for this mix of reads and writes.
        levelPeak[level] = bound > 0 ? static_cast<double>(bytes) / bound : 0.0;
    }
    bounds["bandwidth_s"] = bandwidth;
    bounds["compulsory_bytes"] = compulsory;
    j["bounds"] = bounds;
    if (work > 0 && peak > 0 && seconds > 0)
        j["roofline"] = roofline(o, work, peak, seconds, levelPeak);

    if (o.layers.is_array())
        j["layers"] = o.layers;
    if (o.notSimulated.is_array()) {
        j["not_simulated"] = o.notSimulated;
        // What was left out, together: its operators, FLOPs and bytes (in the type its entries give).
        Json total;
        std::uint64_t flops = 0, bytes = 0;
        for (const auto& n : o.notSimulated) {
            flops += n.value("flops", std::uint64_t{0});
            bytes += n.value("bytes", std::uint64_t{0});
        }
        total["nodes"] = o.notSimulated.size();
        total["flops"] = flops;
        total["bytes"] = bytes;
        if (!o.notSimulated.empty() && o.notSimulated.front().contains("dtype"))
            total["dtype"] = o.notSimulated.front()["dtype"];
        j["not_simulated_total"] = total;
    }
    if (o.profile.is_array())
        j["profile"] = o.profile;

    if (o.functional.checked) {
        Json f;
        f["checked"] = true;
        f["elements"] = o.functional.elements;
        f["mismatches"] = o.functional.mismatches;
        f["max_abs_error"] = o.functional.maxAbsError;
        if (!o.functional.firstMismatch.empty())
            f["first_mismatch"] = o.functional.firstMismatch;
        if (o.functional.firstMismatchLocated)
            for (const auto& s : o.info.spaces)
                if (s.id == o.functional.firstMismatchSpace)
                    f["first_mismatch_at"] = {{"memory", s.name},
                                              {"address", o.functional.firstMismatchAddress}};
        j["functional"] = f;
    }
    // Copy: the outcome's tree plus the energy events, each with a unit.
    Json statsJson = o.stats.toJson();
    Json initiators = initiatorsSection(o, statsJson);
    if (!initiators.empty())
        j["initiators"] = initiators;
    StatsTree energyStats;
    o.energy.addToStats(energyStats.child("energy_events"));
    Json energyJson = energyStats.toJson();
    for (auto& [k, v] : energyJson.items())
        statsJson[k] = v;
    j["stats"] = statsJson;
    return j;
}

namespace {

void flattenJson(const Json& j, const std::string& prefix,
                 std::vector<std::pair<std::string, std::string>>& rows) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            flattenJson(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), rows);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            flattenJson(j[i], prefix + "[" + std::to_string(i) + "]", rows);
    } else if (j.is_string()) {
        rows.emplace_back(prefix, j.get<std::string>());
    } else {
        rows.emplace_back(prefix, j.dump());
    }
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

// The per-layer table: the columns whose keys the layers have (conv2d layer lists: shape, tiles,
// cycles, time, stall fraction, DDR bytes, MACs; SCALE-Sim runs: cycles and stall cycles).
void layersToMarkdown(const Json& layers, std::ostringstream& md) {
    if (!layers.is_array() || layers.empty() || !layers[0].is_object())
        return;
    const Json& first = layers[0];
    const bool shape =
        first.contains("channels") && first.contains("h") && (first.contains("k") || first.contains("kh"));
    const bool tiles = first.contains("tiles") && first["tiles"].is_object();
    static const std::vector<std::pair<const char*, const char*>> columns{
        {"cycles", "cycles"},
        {"total cycles", "total_cycles"},
        {"stall cycles", "stall_cycles"},
        {"time", "seconds"},
        {"stall fraction", "stall_fraction"},
        {"DDR read", "ddr_read_bytes"},
        {"DDR write", "ddr_write_bytes"},
        {"MACs", "macs"}};
    std::vector<std::pair<const char*, const char*>> used;
    for (const auto& c : columns)
        if (first.contains(c.second))
            used.push_back(c);
    md << "\n## Layers\n\n| # | layer |";
    if (shape)
        md << " shape C×H×W → F, k/s/p |";
    if (tiles)
        md << " tile h×w×c×f |";
    for (const auto& c : used)
        md << ' ' << c.first << " |";
    md << "\n|---|---|";
    if (shape)
        md << "---|";
    if (tiles)
        md << "---|";
    for (std::size_t i = 0; i < used.size(); ++i)
        md << "---|";
    md << '\n';
    // Times, bytes and fractions as a person reads them (µs, KiB, four digits); counts as they are.
    auto cell = [](const Json& v, const std::string& key = std::string()) {
        if (v.is_string())
            return v.get<std::string>();
        const bool quantity = key == "seconds" || key.find("bytes") != std::string::npos;
        if (v.is_number() && (quantity || v.is_number_float()))
            return humanReportValue(v.get<double>(), key);
        return v.dump();
    };
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Json& l = layers[i];
        md << fmt::format("| {} | {} |", i, l.contains("name") ? cell(l["name"]) : std::string());
        // A key a layer lacks (a kernel that reports no padding): "–" (operator[] on a const object
        // must not be asked for a missing key).
        auto key = [&](const char* k) { return l.contains(k) ? cell(l[k]) : std::string("–"); };
        // A square kernel and equal padding: one number each; else rows×columns.
        auto pair = [&](const char* both, const char* rows, const char* cols) {
            return l.contains(both) ? cell(l[both]) : key(rows) + "×" + key(cols);
        };
        if (shape)
            md << fmt::format(" {}×{}×{} → {}, {}/{}/{}{} |", key("channels"), key("h"), key("w"),
                              key("filters"), pair("k", "kh", "kw"), key("stride"),
                              pair("pad", "pad_h", "pad_w"),
                              l.contains("groups") ? ", groups " + cell(l["groups"]) : std::string());
        if (tiles && l.contains("tiles")) {
            const Json& t = l["tiles"];
            md << fmt::format(" {}×{}×{}×{} |", cell(t["tile_h"]), cell(t["tile_w"]), cell(t["tile_c"]),
                              cell(t["tile_f"]));
        }
        for (const auto& c : used)
            md << ' ' << (l.contains(c.second) ? cell(l[c.second], c.second) : std::string()) << " |";
        md << '\n';
    }
}

}  // namespace

std::string reportToMarkdown(const Json& r) {
    std::ostringstream md;
    md << "# tessim report: " << r["target"]["name"].get<std::string>() << " / "
       << r["workload"]["name"].get<std::string>() << " / " << r["plan"]["name"].get<std::string>() << "\n\n";
    md << "| quantity | value |\n|---|---|\n";
    md << fmt::format("| cycles | {} |\n", r["cycles"].get<std::uint64_t>());
    md << fmt::format("| time | {} |\n", humanSi(r["seconds"].get<double>(), "s"));
    md << fmt::format("| stall fraction | {:.4f} |\n", r["stall_fraction"].get<double>());
    md << fmt::format("| energy | {} |\n", humanSi(r["energy_j"]["total"].get<double>(), "J"));
    md << fmt::format("| power | {} |\n", humanSi(r["power_w"].get<double>(), "W"));
    if (r.contains("kernel_window") && r.value("writeback_after_end_s", 0.0) > 0)
        md << fmt::format("| kernel window alone | {} in {}, {} (energy and power above: with the "
                          "write-back after it) |\n",
                          humanSi(r["kernel_window"]["energy_j"].get<double>(), "J"),
                          humanSi(r["kernel_window"]["seconds"].get<double>(), "s"),
                          humanSi(r["kernel_window"]["power_w"].get<double>(), "W"));
    if (r.contains("area_mm2"))
        md << fmt::format("| memory area | {} mm² |\n",
                          humanReportValue(r["area_mm2"]["total"].get<double>(), ""));
    for (auto it = r["traffic_bytes"].begin(); it != r["traffic_bytes"].end(); ++it)
        md << fmt::format("| {} traffic | {} read, {} written |\n", it.key(),
                          humanBytes(it.value()["read"].get<double>()),
                          humanBytes(it.value()["write"].get<double>()));
    // Dirty lines the caches still held at the kernel's end reach the memory below afterwards:
    // their bytes are in the traffic above, their time is not in the kernel's.
    if (r.contains("dirty_at_end_bytes") && r["dirty_at_end_bytes"].get<double>() > 0)
        md << fmt::format("| written back after the kernel | {} in {} more (in the traffic above, not in "
                          "its time) |\n",
                          humanBytes(r["dirty_at_end_bytes"].get<double>()),
                          humanSi(r["writeback_after_end_s"].get<double>(), "s"));
    if (r.contains("useful_bytes"))
        for (auto it = r["useful_bytes"].begin(); it != r["useful_bytes"].end(); ++it)
            md << fmt::format("| {} requested | {} read, {} written |\n", it.key(),
                              humanBytes(it.value()["read"].get<double>()),
                              humanBytes(it.value()["write"].get<double>()));
    md << "\n## Engines (fraction of cycles)\n\n| engine |";
    for (std::size_t k = 0; k < kStallReasons; ++k)
        md << " " << stallReasonName(static_cast<StallReason>(k)) << " |";
    md << "\n|---|";
    for (std::size_t k = 0; k < kStallReasons; ++k)
        md << "---|";
    md << "\n";
    for (auto it = r["engines"].begin(); it != r["engines"].end(); ++it) {
        const auto& s = it.value()["stall"];
        md << "| " << it.key() << " |";
        for (std::size_t k = 0; k < kStallReasons; ++k)
            md << fmt::format(" {:.4f} |",
                              s[std::string(stallReasonName(static_cast<StallReason>(k)))].get<double>());
        md << "\n";
    }
    if (r.contains("layers"))
        layersToMarkdown(r["layers"], md);
    if (r.contains("not_simulated")) {
        md << "\n## Not simulated\n\n| op | node | FLOPs | bytes | reason |\n|---|---|---|---|---|\n";
        for (const auto& n : r["not_simulated"])
            md << fmt::format("| {} | {} | {} | {} | {} |\n", n["op"].get<std::string>(),
                              n["node"].get<std::string>(), n["flops"].get<std::uint64_t>(),
                              n["bytes"].get<std::uint64_t>(), n["reason"].get<std::string>());
        if (r.contains("not_simulated_total")) {
            const auto& t = r["not_simulated_total"];
            md << fmt::format("| total | {} nodes | {} | {} | {} |\n", t["nodes"].get<std::uint64_t>(),
                              t["flops"].get<std::uint64_t>(), t["bytes"].get<std::uint64_t>(),
                              t.contains("dtype") ? "bytes in " + t["dtype"].get<std::string>()
                                                  : std::string("bytes at the model's types"));
        }
    }
    if (r.contains("profile")) {
        md << "\n## Profile (functions by cycles)\n\n| function | cycles | share | instructions | IPC | "
              "cycles went to |\n"
              "|---|---|---|---|---|---|\n";
        for (const auto& f : r["profile"]) {
            // Its reasons, largest first.
            std::vector<std::pair<std::uint64_t, std::string>> why;
            for (auto it = f["cycles_by_reason"].begin(); it != f["cycles_by_reason"].end(); ++it)
                why.emplace_back(it.value().get<std::uint64_t>(), it.key());
            std::stable_sort(why.begin(), why.end(),
                             [](const auto& a, const auto& b) { return a.first > b.first; });
            std::string reasons;
            const double cycles = std::max(1.0, f["cycles"].get<double>());
            for (const auto& [n, reason] : why)
                reasons +=
                    fmt::format("{}{} {:.0f} %", reasons.empty() ? "" : ", ", reason, 100.0 * n / cycles);
            md << fmt::format("| {} | {} | {:.2f} % | {} | {:.3f} | {} |\n", f["function"].get<std::string>(),
                              f["cycles"].get<std::uint64_t>(), 100 * f["share"].get<double>(),
                              f["instructions"].get<std::uint64_t>(), f["ipc"].get<double>(), reasons);
        }
    }
    // Each level's bound beside the bytes it divides: what the workload must move there.
    md << "\n## Bounds\n\n| bound | value | bytes it must move |\n|---|---|---|\n";
    md << fmt::format("| compute | {} | |\n", humanSi(r["bounds"]["compute_s"].get<double>(), "s"));
    const auto& mustMove = r["bounds"]["compulsory_bytes"];
    for (auto it = r["bounds"]["bandwidth_s"].begin(); it != r["bounds"]["bandwidth_s"].end(); ++it)
        md << fmt::format("| {} bandwidth | {} | {} |\n", it.key(), humanSi(it.value().get<double>(), "s"),
                          mustMove.contains(it.key()) ? humanBytes(mustMove[it.key()].get<double>()) : "");
    if (r.contains("roofline")) {
        const auto& rf = r["roofline"];
        md << fmt::format("\n## Roofline (peak {}, achieved {})\n\n",
                          humanSi(rf["peak_work_per_s"].get<double>(), "work/s"),
                          humanSi(rf["achieved_work_per_s"].get<double>(), "work/s"));
        md << "| level | work/B (compulsory) | work/B (moved) | bandwidth | attainable | limit | "
              "achieved / attainable |\n|---|---|---|---|---|---|---|\n";
        for (auto it = rf["levels"].begin(); it != rf["levels"].end(); ++it) {
            const auto& l = it.value();
            md << fmt::format("| {} | {:.4g} | {:.4g} | {} | {} | {} | {:.1f} % |\n", it.key(),
                              l["intensity_work_per_byte"].get<double>(),
                              l["moved_intensity_work_per_byte"].get<double>(),
                              humanSi(l["bandwidth_bytes_per_s"].get<double>(), "B/s"),
                              humanSi(l["attainable_work_per_s"].get<double>(), "work/s"),
                              l["limit"].get<std::string>(), 100 * l["fraction_of_attainable"].get<double>());
        }
    }
    md << "\n## Energy by component\n\n| component | dynamic | static |\n|---|---|---|\n";
    for (auto it = r["energy_j"]["by_component"].begin(); it != r["energy_j"]["by_component"].end(); ++it)
        md << fmt::format("| {} | {} | {} |\n", it.key(), humanSi(it.value()["dynamic"].get<double>(), "J"),
                          humanSi(it.value()["static"].get<double>(), "J"));
    if (r.contains("functional")) {
        const auto& f = r["functional"];
        md << fmt::format("\nFunctional check: {} elements, {} mismatches, max abs error {:.3g}\n",
                          f["elements"].get<std::uint64_t>(), f["mismatches"].get<std::uint64_t>(),
                          f["max_abs_error"].get<double>());
    }
    return md.str();
}

std::string reportToCsv(const Json& r) {
    std::vector<std::pair<std::string, std::string>> rows;
    Json copy = r;
    copy.erase("stats");
    copy["target"].erase("config");
    copy["workload"].erase("config");
    copy["plan"].erase("config");
    flattenJson(copy, "", rows);
    std::ostringstream csv;
    csv << "key,value\n";
    for (const auto& [k, v] : rows)
        csv << csvField(k) << ',' << csvField(v) << '\n';
    return csv.str();
}

}  // namespace tessim
