#include "analysis/compare/RunDiff.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/JsonSyntax.h"
#include "sim/report/HumanUnits.h"

namespace tessim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& file, const std::string& message, int line = 0, int column = 0) {
    throw config::ConfigError({file, line, column}, "", message);
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(path, "cannot read the file");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// nlohmann reports a byte offset; people read lines and columns.
[[noreturn]] void failParse(const std::string& path, const std::string& text, std::size_t byte, int firstLine,
                            const std::string& what) {
    int line = firstLine, column = 1;
    for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    fail(path, "not valid JSON: " + what, line, column);
}

Json parseJson(const std::string& path, const std::string& text, int firstLine) {
    try {
        return Json::parse(text);
    } catch (const Json::parse_error& e) {
        failParse(path, text, e.byte, firstLine, config::jsonSyntaxMessage(e));
    }
}

struct Quantity {
    std::string key;
    double value;
    std::string unit;
};

void addNumber(std::vector<Quantity>& out, const Json& node, const std::string& key,
               const std::string& unit) {
    if (node.is_number())
        out.push_back({key, node.get<double>(), unit});
}

// The quantities of a report that a person compares, in the report's order.
std::vector<Quantity> reportQuantities(const Json& r) {
    std::vector<Quantity> q;
    if (r.contains("seconds"))
        addNumber(q, r["seconds"], "seconds", "s");
    if (r.contains("cycles"))
        addNumber(q, r["cycles"], "cycles", "cycles");
    if (r.contains("stall_fraction"))
        addNumber(q, r["stall_fraction"], "stall_fraction", "");
    if (r.contains("engines") && r["engines"].is_object())
        for (const auto& [engine, e] : r["engines"].items())
            if (e.contains("stall") && e["stall"].is_object())
                for (const auto& [cause, v] : e["stall"].items())
                    addNumber(q, v, "engines." + engine + ".stall." + cause, "");
    if (r.contains("traffic_bytes") && r["traffic_bytes"].is_object())
        for (const auto& [level, t] : r["traffic_bytes"].items())
            for (const char* dir : {"read", "write"})
                if (t.contains(dir))
                    addNumber(q, t[dir], "traffic_bytes." + level + "." + dir, "B");
    if (r.contains("energy_j") && r["energy_j"].is_object()) {
        const Json& e = r["energy_j"];
        if (e.contains("total"))
            addNumber(q, e["total"], "energy_j.total", "J");
        if (e.contains("by_component") && e["by_component"].is_object())
            for (const auto& [component, c] : e["by_component"].items())
                for (const char* part : {"dynamic", "static"})
                    if (c.contains(part))
                        addNumber(q, c[part], "energy_j.by_component." + component + "." + part, "J");
    }
    if (r.contains("power_w"))
        addNumber(q, r["power_w"], "power_w", "W");
    if (r.contains("kernel_window") && r["kernel_window"].is_object())
        for (const auto& [key, unit] :
             {std::pair<const char*, const char*>{"energy_j", "J"}, {"power_w", "W"}})
            if (r["kernel_window"].contains(key))
                addNumber(q, r["kernel_window"][key], std::string("kernel_window.") + key, unit);
    if (r.contains("bounds") && r["bounds"].is_object()) {
        const Json& b = r["bounds"];
        if (b.contains("compute_s"))
            addNumber(q, b["compute_s"], "bounds.compute_s", "s");
        if (b.contains("bandwidth_s") && b["bandwidth_s"].is_object())
            for (const auto& [level, v] : b["bandwidth_s"].items())
                addNumber(q, v, "bounds.bandwidth_s." + level, "s");
    }
    return q;
}

struct Input {
    std::string kind;  // "report" or "sweep"
    std::vector<Quantity> report;
    std::vector<std::pair<std::string, std::vector<Quantity>>> points;  // sweep rows with status ok, by id
    std::vector<std::string> failedPoints;
};

Input readInput(const std::string& given) {
    std::string path = given;
    if (fs::is_directory(path)) {
        path = (fs::path(given) / "results.jsonl").string();
        if (!fs::is_regular_file(path))
            fail(given, "a directory without results.jsonl: give a report (JSON) or a sweep's directory");
    } else if (!fs::exists(path)) {
        fail(path, "no such file");
    } else if (!fs::is_regular_file(path)) {
        fail(path, "not a regular file");
    }
    const std::string text = readAll(path);
    Input in;
    if (fs::path(path).extension() == ".csv")
        fail(path, "a CSV file: give the sweep's results.jsonl or its directory (the CSV's text cells "
                   "do not say which metrics are numbers)");
    if (fs::path(path).extension() == ".jsonl") {
        in.kind = "sweep";
        std::istringstream lines(text);
        int number = 0;
        for (std::string line; std::getline(lines, line);) {
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue;
            const Json row = parseJson(path, line, number);
            if (!row.is_object() || !row.contains("id") || !row["id"].is_string())
                fail(path, "a row without an \"id\" string: not a sweep's results.jsonl", number, 1);
            const std::string id = row["id"].get<std::string>();
            if (row.value("status", std::string()) != "ok" || !row.contains("metrics") ||
                !row["metrics"].is_object()) {
                in.failedPoints.push_back(id);
                continue;
            }
            std::vector<Quantity> q;
            for (const auto& [key, v] : row["metrics"].items())
                addNumber(q, v, key, unitOfReportKey(key));
            in.points.emplace_back(id, std::move(q));
        }
        return in;
    }
    const Json report = parseJson(path, text, 1);
    if (!report.is_object() || report.value("schema", std::string()) != "tessim.report/1")
        fail(path, "not a tessim report (schema tessim.report/1) nor a sweep's results.jsonl");
    in.kind = "report";
    in.report = reportQuantities(report);
    return in;
}

void compare(DiffResult& diff, const std::string& point, const std::vector<Quantity>& a,
             const std::vector<Quantity>& b) {
    std::map<std::string, const Quantity*> inB;
    for (const auto& q : b)
        inB[q.key] = &q;
    const std::size_t first = diff.rows.size();  // this point's rows follow
    std::map<std::string, bool> seen;
    auto watched = [&](const std::string& key) {
        return std::find(diff.watch.begin(), diff.watch.end(), key) != diff.watch.end();
    };
    for (const auto& q : a) {
        DiffRow row{point, q.key, q.value, std::nullopt, q.unit};
        if (auto it = inB.find(q.key); it != inB.end())
            row.b = it->second->value;
        seen[q.key] = true;
        diff.rows.push_back(row);
    }
    for (const auto& q : b)
        if (!seen.count(q.key))
            diff.rows.push_back({point, q.key, std::nullopt, q.value, q.unit});
    for (std::size_t i = first; i < diff.rows.size(); ++i) {
        DiffRow& row = diff.rows[i];
        row.watched = watched(row.key);
        if (row.watched && diff.thresholdPercent && row.a && row.b) {
            // Lower is better: B regresses when it exceeds A by more than the threshold (of A).
            const double limit = *row.a + std::fabs(*row.a) * *diff.thresholdPercent / 100.0;
            row.regression = *row.b > limit;
        }
        diff.regressions += row.regression ? 1 : 0;
    }
}

std::string changeText(const DiffRow& r) {
    if (!r.a || !r.b)
        return r.a ? "only in A" : "only in B";
    if (*r.a == *r.b)
        return "=";
    if (*r.a == 0.0)
        return "new";
    return fmt::format("{:+.2f} %", (*r.b - *r.a) / std::fabs(*r.a) * 100.0);
}

}  // namespace

DiffResult diffRuns(const std::string& a, const std::string& b, const DiffOptions& options) {
    DiffResult diff;
    diff.a = a;
    diff.b = b;
    diff.thresholdPercent = options.thresholdPercent;
    diff.watch =
        options.watch.empty() ? std::vector<std::string>{"seconds", "energy_j.total"} : options.watch;
    const Input inA = readInput(a);
    const Input inB = readInput(b);
    if (inA.kind != inB.kind)
        fail(b, "is a " + inB.kind + " and " + a + " a " + inA.kind + ": compare a report with a report, a " +
                    "sweep with a sweep");
    diff.kind = inA.kind;
    if (diff.kind == "report") {
        compare(diff, "", inA.report, inB.report);
        return diff;
    }
    std::map<std::string, const std::vector<Quantity>*> pointsB;
    for (const auto& [id, q] : inB.points)
        pointsB[id] = &q;
    std::map<std::string, bool> matched;
    for (const auto& [id, q] : inA.points) {
        auto it = pointsB.find(id);
        if (it == pointsB.end()) {
            diff.onlyInA.push_back(id);
            continue;
        }
        matched[id] = true;
        compare(diff, id, q, *it->second);
    }
    for (const auto& [id, q] : inB.points)
        if (!matched.count(id))
            diff.onlyInB.push_back(id);
    return diff;
}

Json diffJson(const DiffResult& d) {
    Json out;
    out["schema"] = "tessim.diff/1";
    out["kind"] = d.kind;
    out["a"] = d.a;
    out["b"] = d.b;
    out["threshold_percent"] = d.thresholdPercent ? Json(*d.thresholdPercent) : Json(nullptr);
    out["watch"] = d.watch;
    out["regressions"] = d.regressions;
    Json rows = Json::array();
    for (const auto& r : d.rows) {
        Json row;
        if (d.kind == "sweep")
            row["point"] = r.point;
        row["key"] = r.key;
        row["a"] = r.a ? Json(*r.a) : Json(nullptr);
        row["b"] = r.b ? Json(*r.b) : Json(nullptr);
        row["delta"] = r.a && r.b ? Json(*r.b - *r.a) : Json(nullptr);
        row["change"] = r.a && r.b && *r.a != 0.0 ? Json((*r.b - *r.a) / std::fabs(*r.a)) : Json(nullptr);
        row["unit"] = r.unit;
        row["regression"] = r.regression;
        rows.push_back(row);
    }
    out["rows"] = rows;
    if (d.kind == "sweep") {
        out["only_in_a"] = d.onlyInA;
        out["only_in_b"] = d.onlyInB;
    }
    return out;
}

std::string diffMarkdown(const DiffResult& d, bool all) {
    std::string out = fmt::format("# tessim diff\n\nA: `{}`  \nB: `{}`\n\n", d.a, d.b);
    const bool sweep = d.kind == "sweep";
    out += sweep ? "| point | quantity | A | B | change |\n|---|---|---|---|---|\n"
                 : "| quantity | A | B | change |\n|---|---|---|---|\n";
    std::size_t shown = 0, unchanged = 0;
    for (const auto& r : d.rows) {
        const bool same = r.a && r.b && *r.a == *r.b;
        if (same && !all) {
            ++unchanged;
            continue;
        }
        ++shown;
        const std::string a = r.a ? humanReportValue(*r.a, r.key) : "—";
        const std::string b = r.b ? humanReportValue(*r.b, r.key) : "—";
        const std::string change = changeText(r) + (r.regression ? " **regression**" : "");
        out += sweep ? fmt::format("| {} | {} | {} | {} | {} |\n", r.point, r.key, a, b, change)
                     : fmt::format("| {} | {} | {} | {} |\n", r.key, a, b, change);
    }
    if (shown == 0)
        out += sweep ? "| (none) | | | | |\n" : "| (none) | | | |\n";
    out += "\n";
    if (unchanged)
        out += fmt::format("{} unchanged quantities not shown (--all shows them).\n", unchanged);
    if (sweep && (!d.onlyInA.empty() || !d.onlyInB.empty()))
        out += fmt::format("Points only in A: {}; only in B: {} (failed points count as absent).\n",
                           d.onlyInA.size(), d.onlyInB.size());
    std::string watched;
    for (const auto& w : d.watch)
        watched += (watched.empty() ? "" : ", ") + w;
    if (d.thresholdPercent)
        out += fmt::format("Regressions (B above A by more than {} % in {}): {}.\n", *d.thresholdPercent,
                           watched, d.regressions);
    return out;
}

}  // namespace tessim
