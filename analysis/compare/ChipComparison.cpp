#include "analysis/compare/ChipComparison.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/sweep/PointRun.h"
#include "run/sweep/ProcessPool.h"
#include "sim/report/HumanUnits.h"

namespace tessim {
namespace {

using Json = nlohmann::ordered_json;

double compareNumber(const Json& j, const char* key, double fallback = 0.0) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

// The sets that apply to `target`: the unprefixed ones and those prefixed `target:`.
std::vector<std::string> setsFor(const CompareRequest& r, const std::string& target) {
    std::vector<std::string> out;
    for (const auto& s : r.sets) {
        const auto colon = s.find(':');
        const auto equals = s.find('=');
        const std::string prefix = colon != std::string::npos && colon < equals ? s.substr(0, colon) : "";
        if (prefix.empty() || std::find(r.targets.begin(), r.targets.end(), prefix) == r.targets.end()) {
            out.push_back(s);
            continue;
        }
        if (prefix == target)
            out.push_back(s.substr(colon + 1));
    }
    return out;
}

// What limits a run or a layer: the largest of its bounds.
std::string limitOf(double computeBound, double ddrBound) {
    return ddrBound > computeBound ? "ddr" : "compute";
}

Json chipSummary(const Json& report) {
    Json c;
    c["seconds"] = report["seconds"];
    c["energy_j"] = report.contains("energy_j") && report["energy_j"].contains("total")
                        ? report["energy_j"]["total"]
                        : Json(nullptr);
    double ddr = 0.0;
    if (report.contains("traffic_bytes") && report["traffic_bytes"].contains("ddr"))
        ddr = compareNumber(report["traffic_bytes"]["ddr"], "read") +
              compareNumber(report["traffic_bytes"]["ddr"], "write");
    c["ddr_bytes"] = ddr;
    const Json bounds = report.contains("bounds") ? report["bounds"] : Json::object();
    const double compute = compareNumber(bounds, "compute_s");
    const double ddrBound =
        bounds.contains("bandwidth_s") ? compareNumber(bounds["bandwidth_s"], "ddr") : 0.0;
    c["compute_bound_s"] = compute;
    c["ddr_bound_s"] = ddrBound;
    const double seconds = compareNumber(report, "seconds");
    c["compute_utilisation"] = seconds > 0 ? compute / seconds : 0.0;
    c["limit"] = limitOf(compute, ddrBound);
    const Json plan = report.contains("plan") && report["plan"].contains("config") ? report["plan"]["config"]
                                                                                   : Json::object();
    c["plan"] = plan.contains("strategy") ? plan["strategy"] : Json("");
    if (!plan.contains("strategy") && report.contains("layers") && report["layers"].is_array()) {
        // Strategies chosen per layer (ftm2000): each once, in the order the layers first take it.
        std::string joined;
        for (const auto& l : report["layers"])
            if (l.contains("strategy") && l["strategy"].is_string()) {
                const std::string s = l["strategy"].get<std::string>();
                if (joined.empty())
                    joined = s;
                else if (("+" + joined + "+").find("+" + s + "+") == std::string::npos)
                    joined += "+" + s;
            }
        c["plan"] = joined;
    }
    // The element types its layers ran in (a chip may run a model in another type than the
    // model's: the k1 an INT8 network in f32 unless plan.dtype says i8), each once, in order.
    std::vector<std::string> types;
    if (report.contains("layers") && report["layers"].is_array())
        for (const auto& l : report["layers"])
            if (l.contains("dtype") && l["dtype"].is_string() &&
                std::find(types.begin(), types.end(), l["dtype"].get<std::string>()) == types.end())
                types.push_back(l["dtype"].get<std::string>());
    if (types.empty() && plan.contains("dtype") && plan["dtype"].is_string())
        types.push_back(plan["dtype"].get<std::string>());
    c["dtypes"] = types;
    return c;
}

Json layerSummary(const Json& layer, double ddrBandwidth) {
    Json l;
    const double seconds = compareNumber(layer, "seconds");
    const double compute = compareNumber(layer, "compute_bound_s");
    const double ddrBound = ddrBandwidth > 0 ? compareNumber(layer, "compulsory_bytes") / ddrBandwidth : 0.0;
    l["seconds"] = seconds;
    l["ddr_bytes"] = compareNumber(layer, "ddr_read_bytes") + compareNumber(layer, "ddr_write_bytes");
    l["compute_bound_s"] = compute;
    l["ddr_bound_s"] = ddrBound;
    l["compute_utilisation"] = seconds > 0 ? compute / seconds : 0.0;
    l["limit"] = limitOf(compute, ddrBound);
    l["dtype"] = layer.contains("dtype") ? layer["dtype"] : Json("i8");
    return l;
}

// The chip with the least `seconds` among `chips` (an object by chip name).
std::string fastestChip(const Json& chips) {
    std::string best;
    double least = std::numeric_limits<double>::infinity();
    for (auto it = chips.begin(); it != chips.end(); ++it) {
        if (!it.value().contains("seconds"))
            continue;
        const double s = it.value()["seconds"].get<double>();
        if (s < least) {
            least = s;
            best = it.key();
        }
    }
    return best;
}

}  // namespace

Json compareChips(const CompareRequest& request) {
    if (request.targets.empty())
        throw std::invalid_argument("--targets names no chip");
    sweep::ProcessPool pool(std::max(1u, request.jobs), request.timeoutSeconds, sweep::pointEnvironment());
    std::vector<sweep::ProcessResult> results(request.targets.size());
    std::size_t next = 0, done = 0;
    while (done < request.targets.size()) {
        while (next < request.targets.size() && !pool.full()) {
            std::vector<std::string> argv = sweep::defaultRunCommand();
            argv.insert(argv.end(), {"--target", request.targets[next], "--workload", request.workload});
            if (!request.plan.empty())
                argv.insert(argv.end(), {"--plan", request.plan});
            for (const auto& s : setsFor(request, request.targets[next]))
                argv.insert(argv.end(), {"--set", s});
            argv.insert(argv.end(), {"--format", "json"});
            pool.start(next++, argv);
        }
        for (auto& f : pool.wait(1.0)) {
            results[f.tag] = std::move(f.result);
            ++done;
        }
    }
    Json out;
    out["schema"] = "tessim.compare/1";
    out["workload"] = request.workload;
    out["targets"] = request.targets;
    Json chips = Json::object();
    std::vector<std::string> errors;
    std::vector<std::pair<std::string, Json>> reports;
    for (std::size_t i = 0; i < request.targets.size(); ++i) {
        const std::string& t = request.targets[i];
        const sweep::ProcessResult& r = results[i];
        Json report;
        if (r.exitCode == 0) {
            try {
                report = Json::parse(r.out);
            } catch (const std::exception& e) {
                report = nullptr;
            }
        }
        if (report.is_object() && report.contains("seconds")) {
            chips[t] = chipSummary(report);
            reports.emplace_back(t, std::move(report));
            continue;
        }
        const std::string why = r.timedOut              ? "timed out"
                                : !r.startError.empty() ? r.startError
                                                        : sweep::stderrSummary(r.err);
        chips[t] = Json{{"error", why}};
        errors.push_back(t + ": " + why);
    }
    if (reports.empty()) {
        std::string all;
        for (const auto& e : errors)
            all += (all.empty() ? "" : "\n") + e;
        throw std::invalid_argument("no chip runs the workload:\n" + all);
    }
    out["chips"] = chips;
    out["best"] = fastestChip(chips);
    // Layers by name, in the order of the first chip that reports them; none unless every chip
    // that ran reports its layers (a single layer is the totals).
    Json layers = Json::array();
    std::vector<std::string> names;
    const bool layered = std::all_of(reports.begin(), reports.end(), [](const auto& r) {
        return r.second.contains("layers") && r.second["layers"].is_array() && !r.second["layers"].empty();
    });
    for (const auto& [t, report] : reports)
        if (layered)
            for (const auto& l : report["layers"])
                if (std::find(names.begin(), names.end(), l["name"].get<std::string>()) == names.end())
                    names.push_back(l["name"].get<std::string>());
    for (const auto& name : names) {
        Json row;
        row["name"] = name;
        Json per = Json::object();
        for (const auto& [t, report] : reports) {
            double bandwidth = 0.0;
            if (report.contains("roofline") && report["roofline"]["levels"].contains("ddr"))
                bandwidth = compareNumber(report["roofline"]["levels"]["ddr"], "bandwidth_bytes_per_s");
            if (report.contains("layers") && report["layers"].is_array())
                for (const auto& l : report["layers"])
                    if (l["name"] == name)
                        per[t] = layerSummary(l, bandwidth);
        }
        // A chip that ran the model without this layer lists it as not simulated: no best then,
        // the times are not like for like.
        Json missing = Json::array();
        for (const auto& [t, report] : reports)
            if (!per.contains(t))
                missing.push_back(t);
        row["chips"] = per;
        row["best"] = missing.empty() ? fastestChip(per) : std::string();
        row["not_simulated_on"] = missing;
        layers.push_back(row);
    }
    out["layers"] = layers;
    return out;
}

std::string comparisonMarkdown(const Json& c) {
    std::ostringstream md;
    const std::vector<std::string> targets = c["targets"].get<std::vector<std::string>>();
    md << "# tessim compare: " << c["workload"].get<std::string>() << "\n\n";
    md << "| chip | plan | type | time | energy | DDR | compute bound | of peak compute | limited by |\n"
          "|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& t : targets) {
        const Json& s = c["chips"][t];
        if (s.contains("error")) {
            md << "| " << t << " | cannot run it: " << s["error"].get<std::string>() << " | | | | | | | |\n";
            continue;
        }
        md << fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {:.1f} % | {} |\n", t,
                          t == c["best"] ? " (best)" : "", s["plan"].get<std::string>(),
                          s.contains("dtypes") && !s["dtypes"].empty()
                              ? fmt::format("{}", fmt::join(s["dtypes"].get<std::vector<std::string>>(), "+"))
                              : "—",
                          humanSi(s["seconds"].get<double>(), "s"),
                          s["energy_j"].is_number() ? humanSi(s["energy_j"].get<double>(), "J") : "—",
                          humanBytes(s["ddr_bytes"].get<double>()),
                          humanSi(s["compute_bound_s"].get<double>(), "s"),
                          100 * s["compute_utilisation"].get<double>(), s["limit"].get<std::string>());
    }
    std::map<std::string, std::size_t> leftOut;
    for (const auto& l : c["layers"])
        if (l.contains("not_simulated_on"))
            for (const auto& t : l["not_simulated_on"])
                ++leftOut[t.get<std::string>()];
    if (!leftOut.empty()) {
        std::vector<std::string> parts;
        for (const auto& [t, n] : leftOut)
            parts.push_back(fmt::format("{} {} layer{}", t, n, n == 1 ? "" : "s"));
        md << fmt::format(
            "\nNot like for like: a chip's total leaves out the layers it lists as not simulated "
            "(— below): {}.\n",
            fmt::join(parts, "; "));
    }
    if (!c["layers"].empty()) {
        md << "\n## Per layer (time; share of peak compute; what limits it)\n\n| layer |";
        for (const auto& t : targets)
            md << " " << t << " |";
        md << " best |\n|---|";
        for (std::size_t i = 0; i < targets.size(); ++i)
            md << "---|";
        md << "---|\n";
        for (const auto& l : c["layers"]) {
            md << "| " << l["name"].get<std::string>() << " |";
            for (const auto& t : targets) {
                if (!l["chips"].contains(t)) {
                    md << " — |";
                    continue;
                }
                const Json& x = l["chips"][t];
                md << fmt::format(" {}; {:.1f} %; {} |", humanSi(x["seconds"].get<double>(), "s"),
                                  100 * x["compute_utilisation"].get<double>(),
                                  x["limit"].get<std::string>());
            }
            const std::string best = l["best"].get<std::string>();
            md << " "
               << (best.empty() && l.contains("not_simulated_on") ? std::string("— (not on every chip)")
                                                                  : best)
               << " |\n";
        }
    }
    return md.str();
}

std::string comparisonCsv(const Json& c) {
    std::ostringstream csv;
    csv << "layer,chip,seconds,energy_j,ddr_bytes,compute_bound_s,ddr_bound_s,compute_utilisation,limit,best,"
           "error\n";
    const std::vector<std::string> targets = c["targets"].get<std::vector<std::string>>();
    for (const auto& t : targets) {
        const Json& s = c["chips"][t];
        if (s.contains("error")) {
            // Quoted: the message may hold commas.
            std::string why = s["error"].get<std::string>();
            std::replace(why.begin(), why.end(), '"', '\'');
            csv << fmt::format("total,{},,,,,,,,0,\"{}\"\n", t, why);
            continue;
        }
        csv << fmt::format("total,{},{},{},{},{},{},{},{},{},\n", t, s["seconds"].get<double>(),
                           s["energy_j"].is_number() ? fmt::format("{}", s["energy_j"].get<double>()) : "",
                           s["ddr_bytes"].get<double>(), s["compute_bound_s"].get<double>(),
                           s["ddr_bound_s"].get<double>(), s["compute_utilisation"].get<double>(),
                           s["limit"].get<std::string>(), t == c["best"] ? 1 : 0);
    }
    for (const auto& l : c["layers"])
        for (const auto& t : targets) {
            if (!l["chips"].contains(t))
                continue;
            const Json& x = l["chips"][t];
            csv << fmt::format("{},{},{},,{},{},{},{},{},{},\n", l["name"].get<std::string>(), t,
                               x["seconds"].get<double>(), x["ddr_bytes"].get<double>(),
                               x["compute_bound_s"].get<double>(), x["ddr_bound_s"].get<double>(),
                               x["compute_utilisation"].get<double>(), x["limit"].get<std::string>(),
                               t == l["best"] ? 1 : 0);
        }
    return csv.str();
}

}  // namespace tessim
