#include "run/sweep/SweepSpec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/report/Report.h"
#include "run/sweep/PointSet.h"
#include "run/sweep/ValueText.h"
#include "sim/config/ConfigError.h"
#include "sim/config/EditDistance.h"
#include "sim/config/Loader.h"
#include "sim/config/Node.h"
#include "sim/config/Quantity.h"
#include "sim/config/Reader.h"

namespace tessim::sweep {
namespace {

using config::ConfigError;
using config::Node;
using config::Reader;

constexpr int64_t kMaxValuesPerAxis = 1000000;
constexpr double kMaxPoints = 10000000.0;

[[noreturn]] void failAt(const Node& node, const std::string& message) {
    throw ConfigError(node.location(), node.path(), message);
}

// The raw node of a required key (Reader::node marks it as read).
const Node& take(const Reader& reader, const std::string& key) {
    return reader.node(key);
}

void checkParameterKey(const std::string& key, const Node& value) {
    static const std::regex pattern(R"(^(target|workload|plan)(\.[A-Za-z0-9_\-\[\]]+)+$)");
    if (key != kPlanAxis && !std::regex_match(key, pattern)) {
        throw ConfigError(value.keyLocation(), value.path(),
                          fmt::format("'{}' is not a config path; parameters use the --set paths, "
                                      "which start with target., workload. or plan. "
                                      "(e.g. target.sram.size), or are 'plan' (library plans by name)",
                                      key));
    }
}

std::string scalarValue(const Node& node) {
    if (!node.isScalar()) {
        failAt(node, fmt::format("expected a value (the text given to --set), got {}", node.kindName()));
    }
    const std::string& text = node.scalar();
    if (text.empty())
        failAt(node, "expected a value, got an empty string");
    if (text.find_first_of("\r\n") != std::string::npos) {
        failAt(node, "a value cannot span lines");
    }
    return text;
}

// A number with an optional unit: the base-unit magnitude, the family and the unit as written.
struct Amount {
    double value = 0.0;
    bool literalInteger = false;
    bool isSize = false;
    std::string family;  // "" (plain), "size", "frequency", ...
    std::string unit;
    double unitScale = 1.0;
};

Amount parseAmount(const Node& node) {
    std::string text = scalarValue(node);
    Amount amount;
    if (auto plain = plainNumber(text)) {
        amount.value = *plain;
        amount.literalInteger = text.find_first_of(".eE") == std::string::npos;
        return amount;
    }
    // The number as written, then the unit: scale = base units per written unit.
    size_t split = 0;
    while (split < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.' ||
            text[split] == '-' || text[split] == '+' || text[split] == 'e' || text[split] == 'E')) {
        ++split;
    }
    auto written = plainNumber(text.substr(0, split));
    std::string unit = text.substr(split);
    while (!unit.empty() && unit.front() == ' ')
        unit.erase(unit.begin());
    if (auto v = config::parseBytes(text)) {
        amount.value = static_cast<double>(v->value);
        amount.family = "size";
        amount.isSize = true;
        return amount;
    }
    std::optional<double> base;
    const char* family = nullptr;
    if (auto f = config::parseFrequency(text)) {
        base = f->hz, family = "frequency";
    } else if (auto b = config::parseBandwidth(text)) {
        base = b->bytes_per_s, family = "bandwidth";
    } else if (auto d = config::parseDuration(text)) {
        base = d->seconds, family = "duration";
    } else if (auto e = config::parseEnergy(text)) {
        base = e->joules, family = "energy";
    } else if (auto p = config::parsePower(text)) {
        base = p->watts, family = "power";
    }
    if (base && written) {
        amount.value = *base;
        amount.family = family;
        amount.unit = unit;
        amount.unitScale = *written != 0.0 ? *base / *written : 1.0;
        return amount;
    }
    failAt(node, fmt::format("expected a number or a quantity with a unit (8, 0.5, 256 KiB, "
                             "1.6 GHz), got '{}'",
                             text));
}

NumericRange parseRange(const Node& node, bool sampled) {
    Reader reader(node);
    const Node& fromNode = take(reader, "from");
    const Node& toNode = take(reader, "to");
    Amount from = parseAmount(fromNode);
    Amount to = parseAmount(toNode);
    if (from.family != to.family) {
        failAt(toNode, fmt::format("'to' must be of the same kind as 'from' ({})",
                                   from.family.empty() ? "a plain number" : "a " + from.family));
    }
    NumericRange range;
    range.from = from.value;
    range.to = to.value;
    range.isSize = from.isSize;
    range.unit = from.unit;
    range.unitScale = from.unitScale;
    bool allIntegral = from.literalInteger && to.literalInteger;

    auto sameKind = [&](const char* key) {
        const Node& n = take(reader, key);
        Amount a = parseAmount(n);
        if (a.family != from.family) {
            failAt(n, fmt::format("'{}' must be of the same kind as 'from' ({})", key,
                                  from.family.empty() ? "a plain number" : "a " + from.family));
        }
        if (a.value <= 0.0)
            failAt(n, fmt::format("'{}' must be positive", key));
        return a;
    };
    if (reader.has("step")) {
        if (sampled)
            reader.fail("step", "a sampled range takes from, to, log, integer and round; "
                                "step and count belong to grid and zip ranges");
        Amount step = sameKind("step");
        range.step = step.value;
        allIntegral = allIntegral && step.literalInteger;
    }
    if (reader.has("count")) {
        if (sampled)
            reader.fail("count", "a sampled range takes from, to, log, integer and "
                                 "round; the sample's count sets how many points");
        int64_t count = reader.get<int64_t>("count");
        if (count < 1 || count > kMaxValuesPerAxis) {
            reader.fail("count", fmt::format("must be between 1 and {}", kMaxValuesPerAxis));
        }
        range.count = count;
    }
    if (reader.has("round"))
        range.round = sameKind("round").value;
    range.log = reader.get<bool>("log", false);
    range.integer = reader.get<bool>("integer", allIntegral);
    if (range.isSize)
        range.integer = true;
    reader.finish();

    if (!sampled) {
        if (range.step && range.count) {
            reader.fail("count", "give either step or count, not both");
        }
        if (!range.step && !range.count) {
            throw ConfigError(node.location(), node.path(),
                              "a range needs 'step' (linear) or 'count' (linear, or geometric "
                              "with log: true)");
        }
        if (range.log && range.step) {
            reader.fail("step", "a log range takes 'count' (geometric spacing), not 'step'");
        }
        if (range.step) {
            if (range.to < range.from) {
                failAt(toNode, "with 'step', 'to' must not be below 'from'");
            }
            double n = std::floor((range.to - range.from) / *range.step + 1e-9) + 1.0;
            if (n > static_cast<double>(kMaxValuesPerAxis)) {
                reader.fail("step",
                            fmt::format("gives {} values; at most {} per parameter", n, kMaxValuesPerAxis));
            }
        }
    }
    if (range.log && (range.from <= 0.0 || range.to <= 0.0)) {
        failAt(range.from <= 0.0 ? fromNode : toNode, "a log range needs positive bounds");
    }
    if (sampled && range.to < range.from)
        failAt(toNode, "'to' must not be below 'from'");
    return range;
}

ValueDomain parseDomain(const Node& node, bool sampled) {
    ValueDomain domain;
    switch (node.kind()) {
    case Node::Kind::Sequence:
        for (const Node& item : node.items())
            domain.values.push_back(scalarValue(item));
        if (domain.values.empty())
            failAt(node, "needs at least one value");
        break;
    case Node::Kind::Scalar: domain.values.push_back(scalarValue(node)); break;
    case Node::Kind::Map: domain.range = parseRange(node, sampled); break;
    default: failAt(node, "expected a list of values or a range {from, to, step|count, log}");
    }
    return domain;
}

std::vector<Axis> parseAxes(const Node& block, bool sampled, std::set<std::string>& seen) {
    if (!block.isMap() || block.entries().empty()) {
        failAt(block, fmt::format("expected a map of parameter paths to values, got {}",
                                  block.isMap() ? "an empty map" : block.kindName()));
    }
    std::vector<Axis> axes;
    for (const auto& [key, value] : block.entries()) {
        checkParameterKey(key, value);
        if (!seen.insert(key).second) {
            throw ConfigError(value.keyLocation(), value.path(),
                              fmt::format("'{}' is already fixed or swept elsewhere in this file", key));
        }
        Axis axis;
        axis.key = key;
        axis.where = value.keyLocation();
        axis.domain = parseDomain(value, sampled);
        if (key == kPlanAxis && axis.domain.range)
            failAt(value, "a plan axis takes a list of plan names or paths (what --plan takes)");
        axes.push_back(std::move(axis));
    }
    return axes;
}

std::string stem(const std::string& path) {
    size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = name.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

void checkMetricPath(const std::string& path, const Node& where) {
    static const std::regex pattern(R"(^[A-Za-z0-9_\-\[\]]+(\.[A-Za-z0-9_\-\[\]]+)*$)");
    if (!std::regex_match(path, pattern)) {
        failAt(where, fmt::format("'{}' is not a dotted path into the report (e.g. seconds, "
                                  "energy_j.total, traffic_bytes.ddr.read)",
                                  path));
    }
    // A misspelt first key would give an empty column at every point.
    const std::string top = path.substr(0, path.find('.'));
    const auto& keys = reportTopLevelKeys();
    if (std::find(keys.begin(), keys.end(), top) == keys.end()) {
        failAt(where, fmt::format("'{}' is not a key of the report{} (its keys: {})", top,
                                  config::didYouMean(top, keys), fmt::join(keys, ", ")));
    }
}

std::string knownNames(const std::vector<std::string>& params, const std::vector<std::string>& metrics) {
    std::string list;
    for (const auto* group : {&params, &metrics}) {
        for (const auto& name : *group)
            list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

void checkColumn(const std::string& name, const Node& where, const std::vector<std::string>& params,
                 const std::vector<std::string>& metrics, const char* what) {
    bool known = std::find(params.begin(), params.end(), name) != params.end() ||
                 std::find(metrics.begin(), metrics.end(), name) != metrics.end();
    if (!known) {
        failAt(where, fmt::format("{} '{}' is neither a swept parameter nor a metric of this "
                                  "sweep (known: {})",
                                  what, name, knownNames(params, metrics)));
    }
}

}  // namespace

const std::vector<std::string>& defaultMetrics() {
    static const std::vector<std::string> metrics{"seconds",
                                                  "cycles",
                                                  "stall_fraction",
                                                  "energy_j.total",
                                                  "power_w",
                                                  "traffic_bytes.ddr.read",
                                                  "traffic_bytes.ddr.write"};
    return metrics;
}

std::vector<std::string> SweepSpec::parameterKeys() const {
    std::vector<std::string> keys;
    for (const Axis& a : grid)
        keys.push_back(a.key);
    for (const Axis& a : zip)
        keys.push_back(a.key);
    if (sample) {
        for (const Axis& a : sample->axes)
            keys.push_back(a.key);
    }
    return keys;
}

SweepSpec loadSweepSpec(const std::string& path) {
    return parseSweepSpec(config::loadYamlFile(path), path);
}

SweepSpec parseSweepSpec(const Node& root, const std::string& file) {
    SweepSpec spec;
    spec.file = file;
    Reader top(root);
    std::string fallbackName = stem(file);
    for (char& c : fallbackName) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            c = '_';
    }
    spec.name = top.get<std::string>("name", fallbackName.empty() ? "sweep" : fallbackName);
    static const std::regex namePattern(R"(^[A-Za-z0-9_][A-Za-z0-9._-]*$)");
    if (!std::regex_match(spec.name, namePattern)) {
        top.fail("name", fmt::format("'{}' cannot name a directory; use letters, digits, '.', "
                                     "'_' and '-'",
                                     spec.name));
    }

    spec.description = top.get<std::string>("description", "");

    std::set<std::string> seen;
    {
        Reader base = top.child("base");
        spec.target = base.get<std::string>("target");
        spec.workload = base.get<std::string>("workload");
        spec.plan = base.get<std::string>("plan", std::string());
        for (const char* key : {"target", "workload", "plan"})
            if (base.has(key))
                spec.baseWhere[key] = base.node(key).location();
        if (!spec.plan.empty())
            seen.insert(kPlanAxis);
        if (base.has("set")) {
            const Node& set = take(base, "set");
            if (!set.isMap())
                failAt(set, fmt::format("expected a map, got {}", set.kindName()));
            for (const auto& [key, value] : set.entries()) {
                checkParameterKey(key, value);
                seen.insert(key);
                spec.fixed.emplace_back(key, scalarValue(value));
            }
        }
        base.finish();
    }

    if (top.has("grid"))
        spec.grid = parseAxes(take(top, "grid"), false, seen);
    if (top.has("zip")) {
        const Node& zip = take(top, "zip");
        spec.zip = parseAxes(zip, false, seen);
        size_t length = 0;
        for (size_t i = 0; i < spec.zip.size(); ++i) {
            const ValueDomain& domain = spec.zip[i].domain;
            size_t n = domain.range ? expandRange(*domain.range).size() : domain.values.size();
            if (i == 0) {
                length = n;
            } else if (n != length) {
                throw ConfigError(spec.zip[i].where, zip.entries()[i].second.path(),
                                  fmt::format("zipped parameters need lists of equal length: "
                                              "'{}' has {} values, '{}' has {}",
                                              spec.zip[0].key, length, spec.zip[i].key, n));
            }
        }
    }
    if (auto sample = top.optionalChild("sample")) {
        SampleBlock block;
        std::string method = sample->oneOf("method", {"random", "lhs"}, std::string("lhs"));
        block.method = method == "random" ? SampleMethod::Random : SampleMethod::LatinHypercube;
        block.count = sample->get<int64_t>("count");
        if (block.count < 1 || block.count > kMaxValuesPerAxis) {
            sample->fail("count", fmt::format("must be between 1 and {}", kMaxValuesPerAxis));
        }
        block.seed = sample->get<uint64_t>("seed", uint64_t{1});
        block.axes = parseAxes(take(*sample, "space"), true, seen);
        sample->finish();
        spec.sample = std::move(block);
    }
    if (spec.grid.empty() && spec.zip.empty() && !spec.sample) {
        throw ConfigError(root.location(), "", "a sweep needs at least one of 'grid', 'zip' or 'sample'");
    }

    std::vector<std::string> params = spec.parameterKeys();
    if (top.has("metrics")) {
        const Node& metrics = take(top, "metrics");
        if (!metrics.isSequence() || metrics.items().empty()) {
            failAt(metrics, "expected a non-empty list of report paths (e.g. [seconds, "
                            "energy_j.total])");
        }
        for (const Node& item : metrics.items()) {
            std::string path = scalarValue(item);
            checkMetricPath(path, item);
            if (std::find(params.begin(), params.end(), path) != params.end()) {
                failAt(item, fmt::format("'{}' is a swept parameter; it is recorded already", path));
            }
            if (std::find(spec.metrics.begin(), spec.metrics.end(), path) != spec.metrics.end()) {
                failAt(item, fmt::format("metric '{}' is listed twice", path));
            }
            spec.metrics.push_back(path);
        }
    } else {
        spec.metrics = defaultMetrics();
    }

    if (top.has("objectives")) {
        const Node& objectives = take(top, "objectives");
        if (!objectives.isSequence()) {
            failAt(objectives, "expected a list like [{minimize: seconds}, {maximize: ...}]");
        }
        for (const Node& item : objectives.items()) {
            if (!item.isMap() || item.entries().size() != 1 ||
                (item.entries()[0].first != "minimize" && item.entries()[0].first != "maximize")) {
                failAt(item, "each objective is one of {minimize: NAME} or {maximize: NAME}");
            }
            const auto& [direction, value] = item.entries()[0];
            Objective objective;
            objective.key = scalarValue(value);
            objective.direction = direction == "minimize" ? Direction::Minimize : Direction::Maximize;
            checkColumn(objective.key, value, params, spec.metrics, "objective");
            spec.objectives.push_back(objective);
        }
    }

    if (top.has("plots")) {
        const Node& plots = take(top, "plots");
        if (!plots.isSequence())
            failAt(plots, "expected a list of plots");
        for (const Node& item : plots.items()) {
            Reader plot(item);
            PlotRequest request;
            request.kind = plot.oneOf("kind", {"heatmap", "pareto", "lines"});
            const Node& x = take(plot, "x");
            request.x = scalarValue(x);
            checkColumn(request.x, x, params, spec.metrics, "x");
            const Node& y = take(plot, "y");
            if (y.isSequence()) {
                for (const Node& n : y.items()) {
                    request.y.push_back(scalarValue(n));
                    checkColumn(request.y.back(), n, params, spec.metrics, "y");
                }
            } else {
                request.y.push_back(scalarValue(y));
                checkColumn(request.y.back(), y, params, spec.metrics, "y");
            }
            if (plot.has("group")) {
                const Node& g = take(plot, "group");
                request.group = scalarValue(g);
                checkColumn(request.group, g, params, spec.metrics, "group");
            }
            if (plot.has("metric")) {
                const Node& m = take(plot, "metric");
                request.metric = scalarValue(m);
                checkColumn(request.metric, m, params, spec.metrics, "metric");
            }
            if (request.kind == "heatmap" && request.metric.empty()) {
                throw ConfigError(item.location(), item.path(),
                                  "a heatmap needs 'metric' (the colour) besides x and y");
            }
            if (request.kind != "lines" && request.y.size() != 1) {
                failAt(y, fmt::format("a {} takes one y", request.kind));
            }
            plot.finish();
            spec.plots.push_back(std::move(request));
        }
    }

    if (top.has("timeout")) {
        double seconds = top.get<config::Duration>("timeout").seconds;
        if (seconds <= 0.0)
            top.fail("timeout", "must be positive");
        spec.timeoutSeconds = seconds;
    }
    if (top.has("_test_point_command")) {
        spec.testPointCommand = top.get<std::vector<std::string>>("_test_point_command");
    }
    top.finish();

    // Checked before any point is generated: the bounds need no expansion; only a sweep between
    // them has its axes expanded (rounding may merge values) for the exact count.
    if (pointCountUpperBound(spec) > kMaxPoints) {
        const double lower = pointCountLowerBound(spec);
        const double count = lower > kMaxPoints ? lower : pointCountEstimate(spec);
        if (count > kMaxPoints)
            throw ConfigError(
                root.location(), "",
                fmt::format("this sweep has {:.0f} points; at most {:.0f} are allowed", count, kMaxPoints));
    }
    return spec;
}

}  // namespace tessim::sweep
