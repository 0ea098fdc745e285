#include "analysis/reproduce/Reproduction.h"

#include "analysis/reproduce/PaperArithmetic.h"
#include "analysis/reproduce/PublishedFigures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/sweep/ProcessPool.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"

namespace tessim {
namespace {

struct Quantity {
    std::string name, metric, unit, label, bound, note, path;
    std::string tolSource;  // where the tolerance comes from (tolerance.source)
    double scale = 1.0;
    double relTol = std::numeric_limits<double>::quiet_NaN();
    double absTol = std::numeric_limits<double>::quiet_NaN();
};

std::string label(const std::string& q) {
    if (q == "ddr_traffic")
        return "DDR traffic / frame";
    if (q == "mac_stall")
        return "MAC stall share";
    if (q == "layer_time")
        return "layer time";
    if (q == "power")
        return "power";
    return q;
}

// metric "report_path": any number of the report, by a dotted path ("stats.workload.x.value").
double reportPath(const nlohmann::json& report, const std::string& path) {
    const nlohmann::json* node = &report;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::string key =
            path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!node->is_object() || !node->contains(key))
            throw std::runtime_error("the report has no '" + path + "'");
        node = &(*node)[key];
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    if (!node->is_number())
        throw std::runtime_error("report value '" + path + "' is not a number");
    return node->get<double>();
}

double metricOf(const nlohmann::json& report, const std::string& metric, const std::string& path = {}) {
    if (metric == "report_path")
        return reportPath(report, path);
    if (metric == "ddr_bytes") {  // bytes on the bus (whole bursts), as the DDR energy counts them
        const auto& t = report.at("traffic_bytes").at("ddr");
        return t.at("read").get<double>() + t.at("write").get<double>();
    }
    if (metric == "stall_fraction")
        return report.at("stall_fraction").get<double>();
    if (metric == "seconds")
        return report.at("seconds").get<double>();
    if (metric == "power_w")
        return report.at("power_w").get<double>();
    throw std::runtime_error("unknown metric '" + metric + "'");
}

std::string shellQuote(const std::string& s) {
    if (!s.empty() &&
        s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:") ==
            std::string::npos)
        return s;
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string num(double v) {
    double a = std::fabs(v);
    if (a >= 100)
        return fmt::format("{:.1f}", v);
    if (a >= 1)
        return fmt::format("{:.2f}", v);
    return fmt::format("{:.3g}", v);
}

}  // namespace

std::string reproCommand(const std::string& exe, const ReproRun& run) {
    if (!run.program.empty()) {
        // Names only: the executable and the report live in the reproduction's scratch folder.
        std::string cmd = shellQuote(exe) + " run --target " + shellQuote(run.target) + " --program " +
                          shellQuote(run.programName.empty() ? run.program : run.programName) + " --report " +
                          shellQuote(std::filesystem::path(run.reportFile).filename().string()) + " --";
        for (const auto& a : run.programArguments)
            cmd += " " + shellQuote(a);
        return cmd;
    }
    std::string cmd = shellQuote(exe) + " run --target " + shellQuote(run.target) + " --workload " +
                      shellQuote(run.workload);
    if (!run.plan.empty())
        cmd += " --plan " + shellQuote(run.plan);
    for (const auto& s : run.sets)
        cmd += " --set " + shellQuote(s);
    return cmd + " --format json";
}

std::vector<std::string> reproArguments(const std::string& exe, const ReproRun& run) {
    if (!run.program.empty()) {
        std::vector<std::string> argv{exe,         "run",       "--target", run.target,
                                      "--program", run.program, "--report", run.reportFile};
        if (!run.programName.empty())
            argv.insert(argv.end(), {"--program-name", run.programName});
        argv.push_back("--");
        argv.insert(argv.end(), run.programArguments.begin(), run.programArguments.end());
        return argv;
    }
    std::vector<std::string> argv{exe, "run", "--target", run.target, "--workload", run.workload};
    if (!run.plan.empty())
        argv.insert(argv.end(), {"--plan", run.plan});
    for (const auto& s : run.sets)
        argv.insert(argv.end(), {"--set", s});
    argv.insert(argv.end(), {"--format", "json"});
    return argv;
}

nlohmann::json runChildSimulation(const std::string& exe, const ReproRun& run) {
    const sweep::ProcessResult r = sweep::runProcess(reproArguments(exe, run));
    if (!r.startError.empty())
        throw std::runtime_error(fmt::format("run '{}' could not start: {}", run.name, r.startError));
    if (r.exitCode != 0)
        throw std::runtime_error(fmt::format(
            "run '{}' failed ({}): {}", run.name,
            r.signal ? fmt::format("signal {}", r.signal) : fmt::format("exit {}", r.exitCode), r.err));
    if (!run.program.empty()) {
        std::ifstream in(run.reportFile);
        nlohmann::json report;
        try {
            report = nlohmann::json::parse(in);
        } catch (const std::exception& e) {
            throw std::runtime_error(
                fmt::format("run '{}' wrote no JSON report to '{}': {}", run.name, run.reportFile, e.what()));
        }
        report["program_stdout"] = r.out;
        report["program_stderr"] = r.err;
        return report;
    }
    try {
        return nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("run '{}' printed no JSON report: {}", run.name, e.what()));
    }
}

ReproResult readPaperHeader(config::Reader& r) {
    ReproResult res;
    res.paper = r.get<std::string>("name");
    res.description = r.get<std::string>("description", std::string());
    r.get<std::string>("source", std::string());
    r.get<std::string>("provenance", std::string());
    res.consistency = readConsistencyChecks(r);
    readPublishedFigures(r, res);
    for (const config::Reader& c : r.children("not_reproduced")) {
        NotReproduced n;
        n.id = c.get<std::string>("id");
        n.what = c.get<std::string>("what");
        n.published = c.get<double>("published");
        n.unit = c.get<std::string>("unit");
        n.source = c.get<std::string>("source");
        n.reason = c.get<std::string>("reason");
        c.finish();
        res.notReproduced.push_back(std::move(n));
    }
    for (const config::Reader& c : r.children("assumptions")) {
        ReproAssumption a;
        a.id = c.get<std::string>("id");
        a.what = c.get<std::string>("what");
        a.where = c.get<std::string>("where");
        a.claims = c.get<std::vector<std::string>>("claims");
        a.at = c.node("claims").location();
        a.key = c.self().path() + ".claims";
        if (a.claims.empty())
            c.fail("claims", "an assumption names the claims whose verdicts rest on it");
        c.finish();
        res.assumptions.push_back(std::move(a));
    }
    return res;
}

void applyAssumptions(ReproResult& r) {
    auto matches = [](const std::string& pattern, const std::string& id) {
        if (!pattern.empty() && pattern.back() == '*')
            return id.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
        return id == pattern;
    };
    for (const ReproAssumption& a : r.assumptions)
        for (const std::string& pattern : a.claims) {
            bool any = false;
            for (ReproClaim& c : r.claims) {
                if (!matches(pattern, c.id))
                    continue;
                any = true;
                if (std::find(c.assumes.begin(), c.assumes.end(), a.id) != c.assumes.end())
                    continue;
                c.assumes.push_back(a.id);
                if (c.verdict == "impossible")
                    c.note += fmt::format("; rests on the assumption {}: {} ({})", a.id, a.what, a.where);
            }
            if (!any)
                throw config::ConfigError(a.at, a.key,
                                          fmt::format("'{}' names no claim of paper '{}'", pattern, r.paper));
        }
}

ReproResult reproducePaper(const std::string& paperPath, const ReproRunner& runner) {
    using namespace config;
    Node root = loadYamlFile(paperPath);
    Reader r(root);
    ReproResult res = readPaperHeader(r);
    r.oneOf("reproduction", {"claims"}, std::string("claims"));

    std::map<std::string, ReproRun> runs;
    Reader runsR = r.child("runs");
    for (const auto& [name, node] : runsR.self().entries()) {
        Reader x = runsR.child(name);
        ReproRun run;
        run.name = name;
        run.target = x.get<std::string>("target");
        run.workload = x.get<std::string>("workload");
        run.plan = x.get<std::string>("plan", std::string());
        if (x.has("set"))
            run.sets = x.get<std::vector<std::string>>("set");
        x.finish();
        runs[name] = run;
    }
    std::map<std::string, Quantity> quantities;
    Reader qR = r.child("quantities");
    for (const auto& [name, node] : qR.self().entries()) {
        Reader x = qR.child(name);
        Quantity q;
        q.name = name;
        q.label = label(name);
        q.metric = x.oneOf("metric", {"ddr_bytes", "stall_fraction", "seconds", "power_w", "report_path"});
        if (q.metric == "report_path")
            q.path = x.get<std::string>("path");
        q.unit = x.get<std::string>("unit");
        q.scale = x.get<double>("scale", 1.0);
        q.bound = x.oneOf("bound", {"none", "compulsory_int8", "compute"}, std::string("none"));
        q.note = x.get<std::string>("note", std::string());
        if (auto t = x.optionalChild("tolerance")) {
            if (t->has("relative"))
                q.relTol = t->get<double>("relative", Range<double>{0.0, 10.0});
            if (t->has("absolute"))
                q.absTol = t->get<double>("absolute", Range<double>{0.0, 1e18});
            if (std::isnan(q.relTol) && std::isnan(q.absTol))
                t->fail("relative", "a tolerance needs relative or absolute");
            q.tolSource = t->get<std::string>("source", std::string());
            t->finish();
        } else {
            x.fail("tolerance", "every quantity needs a tolerance ({relative: 0.1} or {absolute: 5})");
        }
        x.finish();
        quantities[name] = q;
    }
    std::vector<Reader> claimsR = r.children("claims");
    if (claimsR.empty())
        r.fail("claims", "a paper needs at least one claim");
    for (auto& c : claimsR) {
        ReproClaim cl;
        cl.id = c.get<std::string>("id");
        cl.run = c.get<std::string>("run");
        cl.quantity = c.get<std::string>("quantity");
        cl.published = c.get<double>("published");
        cl.unit = c.get<std::string>("unit");
        cl.row = c.get<std::string>("row", std::string());
        cl.column = c.get<std::string>("column", std::string());
        cl.relativeTo = c.get<std::string>("relative_to", std::string());
        if (!cl.relativeTo.empty() && !runs.count(cl.relativeTo))
            c.fail("relative_to", "no run named '" + cl.relativeTo + "' under runs:");
        if (!runs.count(cl.run))
            c.fail("run", "no run named '" + cl.run + "' under runs:");
        if (!quantities.count(cl.quantity))
            c.fail("quantity", "no quantity named '" + cl.quantity + "' under quantities:");
        if (quantities[cl.quantity].unit != cl.unit)
            c.fail("unit", fmt::format("claim unit '{}' differs from quantity '{}' unit '{}'", cl.unit,
                                       cl.quantity, quantities[cl.quantity].unit));
        cl.quantityLabel = quantities[cl.quantity].label;
        c.finish();
        res.claims.push_back(cl);
    }
    r.finish();

    // Only the runs that claims use, in parallel.
    std::map<std::string, std::future<nlohmann::json>> pending;
    for (const auto& cl : res.claims)
        for (const std::string& name : {cl.run, cl.relativeTo})
            if (!name.empty() && !pending.count(name)) {
                ReproRun run = runs[name];
                pending[name] = std::async(std::launch::async, [runner, run] { return runner(run); });
            }
    std::map<std::string, nlohmann::json> reports;
    for (auto& [name, f] : pending)
        reports[name] = f.get();

    // A claim's simulated value: its run's metric, over the relative_to run's when it names one.
    auto simulatedOf = [&](const ReproClaim& c) {
        const Quantity& q = quantities[c.quantity];
        double v = metricOf(reports[c.run], q.metric, q.path);
        if (!c.relativeTo.empty())
            v /= metricOf(reports[c.relativeTo], q.metric, q.path);
        return v * q.scale;
    };
    for (auto& cl : res.claims) {
        const Quantity& q = quantities[cl.quantity];
        const nlohmann::json& rep = reports[cl.run];
        cl.simulated = simulatedOf(cl);
        double tol = !std::isnan(q.absTol) ? q.absTol : q.relTol * std::fabs(cl.published);
        std::string tolText =
            !std::isnan(q.absTol)
                ? fmt::format("±{} {}", num(q.absTol), q.unit == "%" ? "percentage points" : q.unit)
                : fmt::format("±{} %", num(q.relTol * 100));
        cl.tolerance =
            tolText + " (" + (q.tolSource.empty() ? "set by the paper's claim file" : q.tolSource) + ")";
        // Physical bounds.
        double bound = std::numeric_limits<double>::quiet_NaN();
        std::string boundText;
        if (q.bound == "compulsory_int8") {
            const auto& w = rep.at("workload").at("config");
            double in = w.at("channels").get<double>() * w.at("h").get<double>() * w.at("w").get<double>();
            double out =
                w.at("filters").get<double>() * w.at("out_h").get<double>() * w.at("out_w").get<double>();
            const double kh = w.at(w.contains("k") ? "k" : "kh").get<double>();
            const double kw = w.at(w.contains("k") ? "k" : "kw").get<double>();
            double wt = w.at("filters").get<double>() * w.at("channels").get<double>() * kh * kw;
            bound = (in + out + wt) * q.scale;
            boundText = fmt::format(
                "compulsory DDR traffic at INT8 (each byte once): input {} + output {} + weights {} = {} {}",
                num(in * q.scale), num(out * q.scale), num(wt * q.scale), num(bound), q.unit);
        } else if (q.bound == "compute") {
            bound = rep.at("bounds").at("compute_s").get<double>() * q.scale;
            boundText =
                fmt::format("compute bound (MACs at the array's peak rate) {} {}", num(bound), q.unit);
        }
        if (!std::isnan(bound) && cl.published < bound) {
            cl.verdict = "impossible";
            cl.note = fmt::format("published {} {} is below the {}", num(cl.published), cl.unit, boundText);
        } else if (std::fabs(cl.simulated - cl.published) <= tol) {
            cl.verdict = "match";
            cl.note = "within " + tolText;
        } else {
            // Ordering of this quantity across all claims of it.
            bool same = true;
            int peers = 0;
            for (const auto& o : res.claims) {
                if (o.quantity != cl.quantity || o.id == cl.id)
                    continue;
                ++peers;
                double sim = simulatedOf(o);
                auto sgn = [](double v) { return (v > 0) - (v < 0); };
                if (sgn(cl.published - o.published) != sgn(cl.simulated - sim))
                    same = false;
            }
            const bool near = withinTrendFactor(cl.simulated, cl.published);
            cl.verdict = peers > 0 && same && near ? "trend-match" : "mismatch";
            cl.note = fmt::format("outside {}; ordering against the other rows {}", tolText,
                                  peers == 0 ? "not checked (single row)"
                                  : same     ? "matches"
                                             : "differs");
            if (peers > 0 && same && !near)
                cl.note += beyondTrendFactorNote(cl);
        }
        if (!q.note.empty())
            cl.note += "; " + q.note;
    }
    for (const auto& [name, run] : runs)
        res.commands[name] = reproCommand("tessim", run);
    return res;
}

bool withinTrendFactor(double simulated, double published) {
    const double ratio = simulated / published;
    return std::isfinite(ratio) && ratio > 0 && ratio <= kTrendFactor && ratio >= 1 / kTrendFactor;
}

double claimRatio(const ReproClaim& c) {
    const double ratio = c.simulated / c.published;
    return c.published != 0 && std::isfinite(ratio) ? ratio : std::numeric_limits<double>::quiet_NaN();
}

std::string beyondTrendFactorNote(const ReproClaim& c) {
    return fmt::format("; {}× the published value, beyond the {}× a trend-match allows", num(claimRatio(c)),
                       num(kTrendFactor));
}

std::string reproMarkdown(const ReproResult& r) {
    std::string s = fmt::format("## {}{}\n\n", r.paper, r.description.empty() ? "" : " — " + r.description);
    s += "| claim | published | simulated | delta | ratio | tolerance | verdict |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const auto& c : r.claims) {
        double d = c.simulated - c.published;
        std::string delta = fmt::format("{}{} {}", d >= 0 ? "+" : "", num(d), c.unit == "%" ? "pp" : c.unit);
        if (c.published != 0 && c.unit != "%")
            delta += fmt::format(" ({:+.1f} %)", 100.0 * d / c.published);
        const double ratio = claimRatio(c);
        s +=
            fmt::format("| {} ({}, {}) | {} {} | {} {} | {} | {} | {} | {} |\n", c.id, c.quantityLabel, c.run,
                        num(c.published), c.unit, num(c.simulated), c.unit, delta,
                        std::isnan(ratio) ? std::string(c.published == 0 ? "– (published 0)" : "– (no value)")
                                          : num(ratio) + "×",
                        c.tolerance, c.verdict);
    }
    s += "\nNotes:\n";
    for (const auto& c : r.claims)
        s += fmt::format("- {}: {}{}\n", c.id, c.note,
                         c.assumes.empty() ? std::string()
                                           : fmt::format(" [assumes: {}]", fmt::join(c.assumes, ", ")));
    if (!r.assumptions.empty()) {
        s += "\nAssumptions the verdicts rest on (where the paper is silent):\n\n"
             "| assumption | what | where | claims |\n|---|---|---|---|\n";
        for (const auto& a : r.assumptions)
            s += fmt::format("| {} | {} | {} | {} |\n", a.id, a.what, a.where, fmt::join(a.claims, ", "));
    }
    if (!r.notReproduced.empty()) {
        s += "\nPublished claims with nothing simulated behind them:\n\n"
             "| claim | published | verdict | why |\n|---|---|---|---|\n";
        for (const auto& n : r.notReproduced)
            s += fmt::format("| {} ({}) | {} {} | not-reproduced | {} |\n", n.id, n.what, num(n.published),
                             n.unit, n.reason);
        s += "\n";
        for (const auto& n : r.notReproduced)
            s += fmt::format("- {}: {}\n", n.id, n.source);
    }
    if (!r.consistency.empty()) {
        s += "\nThe paper's own numbers against each other:\n\n"
             "| check | stated | allowed | verdict |\n|---|---|---|---|\n";
        for (const auto& c : r.consistency) {
            const bool spread = !c.values.empty();
            s += fmt::format("| {} | {} | {} | {} |\n", c.id,
                             spread ? fmt::format("spread {:.1f} %", 100 * c.stated)
                                    : num(c.stated) + (c.unit.empty() ? "" : " " + c.unit),
                             c.relation, c.verdict);
        }
        s += "\n";
        for (const auto& c : r.consistency)
            s += fmt::format("- {}: {}\n", c.id, c.note);
    }
    s += publishedFiguresMarkdown(r);
    s += "\nRuns:\n";
    for (const auto& [name, cmd] : r.commands)
        s += fmt::format("- {}: `{}`\n", name, cmd);
    return s;
}

nlohmann::ordered_json reproJson(const ReproResult& r) {
    nlohmann::ordered_json j;
    j["paper"] = r.paper;
    j["claims"] = nlohmann::ordered_json::array();
    for (const auto& c : r.claims)
        j["claims"].push_back({{"id", c.id},
                               {"quantity", c.quantity},
                               {"published", c.published},
                               {"simulated", c.simulated},
                               {"unit", c.unit},
                               {"ratio", std::isnan(claimRatio(c)) ? nlohmann::ordered_json()
                                                                   : nlohmann::ordered_json(claimRatio(c))},
                               {"tolerance", c.tolerance},
                               {"verdict", c.verdict},
                               {"note", c.note},
                               {"assumes", c.assumes}});
    if (!r.assumptions.empty()) {
        j["assumptions"] = nlohmann::ordered_json::array();
        for (const auto& a : r.assumptions)
            j["assumptions"].push_back(
                {{"id", a.id}, {"what", a.what}, {"where", a.where}, {"claims", a.claims}});
    }
    if (!r.notReproduced.empty()) {
        j["not_reproduced"] = nlohmann::ordered_json::array();
        for (const auto& n : r.notReproduced)
            j["not_reproduced"].push_back({{"id", n.id},
                                           {"what", n.what},
                                           {"published", n.published},
                                           {"unit", n.unit},
                                           {"verdict", "not-reproduced"},
                                           {"reason", n.reason},
                                           {"source", n.source}});
    }
    if (!r.consistency.empty()) {
        j["consistency"] = nlohmann::ordered_json::array();
        for (const auto& c : r.consistency)
            j["consistency"].push_back({{"id", c.id},
                                        {"what", c.what},
                                        {"stated", c.stated},
                                        {"relation", c.relation},
                                        {"bound", c.bound},
                                        {"verdict", c.verdict},
                                        {"note", c.note}});
    }
    if (!r.figures.empty())
        j["published_figures"] = publishedFiguresJson(r);
    return j;
}

}  // namespace tessim
