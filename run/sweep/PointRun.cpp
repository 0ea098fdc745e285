#include "run/sweep/PointRun.h"

#include <cctype>

#include <cstring>

#include <fmt/format.h>

#include <signal.h>

#include "run/sweep/ReportMetrics.h"
#include "run/sweep/ValueText.h"

namespace tessim::sweep {
namespace {

constexpr size_t kMaxMessage = 600;
constexpr size_t kMaxLines = 4;

std::string oneLine(std::string text) {
    for (char& c : text) {
        if (c == '\r' || c == '\t' || c == '\n')
            c = ' ';
    }
    return text;
}

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

}  // namespace

std::vector<std::string> defaultRunCommand() {
    return {"/proc/self/exe", "run"};
}

std::vector<std::string> pointEnvironment() {
    return {"SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1"};
}

std::vector<std::string> pointCommand(const SweepSpec& spec, const Point& point,
                                      const std::vector<std::string>& prefix) {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {"--target", spec.target, "--workload", spec.workload});
    if (!spec.plan.empty())
        argv.insert(argv.end(), {"--plan", spec.plan});
    for (const auto& [key, value] : spec.fixed)
        argv.insert(argv.end(), {"--set", key + "=" + value});
    for (const auto& [key, value] : point.params) {
        if (key == kPlanAxis)
            argv.insert(argv.end(), {"--plan", value});
        else
            argv.insert(argv.end(), {"--set", key + "=" + value});
    }
    argv.insert(argv.end(), {"--format", "json"});
    return argv;
}

std::string stderrSummary(const std::string& err) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= err.size()) {
        size_t nl = err.find('\n', start);
        std::string line = trim(err.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (!line.empty())
            lines.push_back(oneLine(line));
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    if (lines.size() > kMaxLines)
        lines.erase(lines.begin(), lines.end() - kMaxLines);
    std::string summary;
    for (const auto& l : lines)
        summary += (summary.empty() ? "" : " | ") + l;
    if (summary.size() > kMaxMessage)
        summary = "..." + summary.substr(summary.size() - kMaxMessage);
    return summary;
}

// A point's run reports a bad --set value at `<command line>:1:N` (its N-th --set); the value came
// from the sweep file, so the message names the file's line instead: the axis, or base.set.
std::string placeInSweepFile(const SweepSpec& spec, const Point& point, const std::string& err) {
    const std::string prefix = "<command line>:1:";
    if (err.rfind(prefix, 0) != 0)
        return err;
    std::size_t end = prefix.size();
    while (end < err.size() && std::isdigit(static_cast<unsigned char>(err[end])))
        ++end;
    if (end == prefix.size() || end >= err.size() || err[end] != ':')
        return err;
    const std::size_t n = std::stoul(err.substr(prefix.size(), end - prefix.size()));
    // The --set order of pointCommand: base.set, then the point's parameters other than plan.
    std::vector<std::pair<std::string, std::string>> sets(spec.fixed.begin(), spec.fixed.end());
    for (const auto& kv : point.params)
        if (kv.first != kPlanAxis)
            sets.push_back(kv);
    if (n == 0 || n > sets.size())
        return err;
    const auto& [key, value] = sets[n - 1];
    config::Location where{spec.file, 0, 0};
    std::string from = "base.set." + key;
    const std::vector<Axis> none;
    for (const auto* axes : {&spec.grid, &spec.zip, spec.sample ? &spec.sample->axes : &none})
        for (const Axis& a : *axes)
            if (a.key == key) {
                where = a.where;
                from = key;
            }
    return fmt::format("{}{} (the point's {} = {})", toString(where), err.substr(end), from, value);
}

ResultRow pointResult(const SweepSpec& spec, const Point& point, const ProcessResult& process,
                      double timeoutSeconds) {
    ResultRow row;
    row.id = point.id;
    row.params = point.params;
    for (const auto& m : spec.metrics)
        row.metrics.emplace_back(m, nullptr);
    row.status = PointStatus::Error;
    std::string err = placeInSweepFile(spec, point, stderrSummary(process.err));
    if (process.timedOut) {
        row.status = PointStatus::Timeout;
        row.message = fmt::format("no result within {} s", formatNumber(timeoutSeconds));
    } else if (!process.startError.empty()) {
        row.message = "cannot start the point: " + oneLine(process.startError);
    } else if (process.signal != 0) {
        const char* name = ::sigabbrev_np(process.signal);
        row.message =
            fmt::format("killed by signal {}{}", process.signal, name ? fmt::format(" (SIG{})", name) : "");
        if (!err.empty())
            row.message += ": " + err;
    } else if (process.exitCode != 0) {
        row.message =
            fmt::format("exit {}: {}", process.exitCode, err.empty() ? "no message on stderr" : err);
    } else {
        // Tolerate text before the report (a banner); the report is the first JSON object.
        size_t brace = process.out.find('{');
        auto report = brace == std::string::npos
                          ? nlohmann::ordered_json()
                          : nlohmann::ordered_json::parse(process.out.substr(brace), nullptr, false);
        if (brace == std::string::npos || report.is_discarded() || !report.is_object()) {
            row.message = "the point's stdout is not a JSON report";
            if (!err.empty())
                row.message += ": " + err;
        } else {
            row.status = PointStatus::Ok;
            for (auto& [key, value] : row.metrics) {
                if (const auto* found = findMetric(report, key))
                    value = *found;
            }
        }
    }
    return row;
}

}  // namespace tessim::sweep
