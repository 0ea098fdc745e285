#include "run/sweep/PointSet.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include <fmt/format.h>

#include "run/sweep/ValueText.h"

namespace tessim::sweep {
namespace {

// Twelve significant digits hide the error that from + i * step accumulates (0.30000000000000004).
double clean(double value) {
    return std::stod(fmt::format("{:.12g}", value));
}

// mt19937_64 is specified bit for bit by the standard; the distributions are not, so the unit
// interval and the shuffle are done here to give the same samples with every library.
class PortableRng {
public:
    explicit PortableRng(uint64_t seed) : engine_(seed) {}
    double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    uint64_t below(uint64_t n) { return static_cast<uint64_t>(unit() * static_cast<double>(n)); }

private:
    std::mt19937_64 engine_;
};

std::string valueAt(const ValueDomain& domain, double u) {
    if (!domain.range) {
        size_t n = domain.values.size();
        size_t index = std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)));
        return domain.values[index];
    }
    const NumericRange& r = *domain.range;
    double value = r.log ? std::exp(std::log(r.from) + u * (std::log(r.to) - std::log(r.from)))
                         : r.from + u * (r.to - r.from);
    return rangeValueText(r, value);
}

std::vector<std::string> domainValues(const ValueDomain& domain) {
    return domain.range ? expandRange(*domain.range) : domain.values;
}

std::vector<ParameterValues> gridRows(const std::vector<Axis>& axes) {
    std::vector<ParameterValues> rows{ParameterValues{}};
    for (const Axis& axis : axes) {
        std::vector<std::string> values = domainValues(axis.domain);
        std::vector<ParameterValues> next;
        next.reserve(rows.size() * values.size());
        for (const ParameterValues& row : rows) {
            for (const std::string& v : values) {
                ParameterValues extended = row;
                extended.emplace_back(axis.key, v);
                next.push_back(std::move(extended));
            }
        }
        rows = std::move(next);
    }
    return rows;
}

std::vector<ParameterValues> zipRows(const std::vector<Axis>& axes) {
    if (axes.empty())
        return {ParameterValues{}};
    std::vector<std::vector<std::string>> columns;
    for (const Axis& axis : axes)
        columns.push_back(domainValues(axis.domain));
    size_t length = columns.front().size();
    for (const auto& c : columns)
        length = std::min(length, c.size());
    std::vector<ParameterValues> rows(length);
    for (size_t i = 0; i < length; ++i) {
        for (size_t a = 0; a < axes.size(); ++a)
            rows[i].emplace_back(axes[a].key, columns[a][i]);
    }
    return rows;
}

std::vector<ParameterValues> sampleRows(const std::optional<SampleBlock>& block) {
    if (!block)
        return {ParameterValues{}};
    PortableRng rng(block->seed);
    size_t n = static_cast<size_t>(block->count);
    size_t dims = block->axes.size();
    // unit[i][d]: the i-th sample's coordinate in dimension d, in [0, 1).
    std::vector<std::vector<double>> unit(n, std::vector<double>(dims));
    if (block->method == SampleMethod::LatinHypercube) {
        for (size_t d = 0; d < dims; ++d) {
            std::vector<size_t> strata(n);
            for (size_t i = 0; i < n; ++i)
                strata[i] = i;
            for (size_t i = n; i > 1; --i)
                std::swap(strata[i - 1], strata[rng.below(i)]);
            for (size_t i = 0; i < n; ++i) {
                unit[i][d] = (static_cast<double>(strata[i]) + rng.unit()) / static_cast<double>(n);
            }
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            for (size_t d = 0; d < dims; ++d)
                unit[i][d] = rng.unit();
        }
    }
    std::vector<ParameterValues> rows(n);
    for (size_t i = 0; i < n; ++i) {
        for (size_t d = 0; d < dims; ++d) {
            rows[i].emplace_back(block->axes[d].key, valueAt(block->axes[d].domain, unit[i][d]));
        }
    }
    return rows;
}

}  // namespace

std::string rangeValueText(const NumericRange& r, double value) {
    double lo = std::min(r.from, r.to);
    double hi = std::max(r.from, r.to);
    if (r.round > 0.0)
        value = std::round(value / r.round) * r.round;
    if (r.isSize) {
        value = std::clamp(std::round(value), std::ceil(lo), std::floor(hi));
        return formatSize(static_cast<uint64_t>(value));
    }
    double shown = clean(std::clamp(value, lo, hi) / r.unitScale);
    if (r.integer)
        shown = std::round(shown);
    std::string text = formatNumber(shown);
    return r.unit.empty() ? text : text + " " + r.unit;
}

std::vector<std::string> expandRange(const NumericRange& r) {
    std::vector<double> raw;
    if (r.step) {
        double span = r.to - r.from;
        auto n = static_cast<int64_t>(std::floor(span / *r.step + 1e-9)) + 1;
        for (int64_t i = 0; i < n; ++i)
            raw.push_back(r.from + static_cast<double>(i) * *r.step);
    } else {
        int64_t n = r.count.value_or(1);
        for (int64_t i = 0; i < n; ++i) {
            double t = n == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(n - 1);
            raw.push_back(r.log ? r.from * std::pow(r.to / r.from, t) : r.from + t * (r.to - r.from));
        }
    }
    // Rounding can map several raw values to one text: keep the first of each (a hash set, so a
    // million-value axis expands in linear time).
    std::vector<std::string> values;
    values.reserve(raw.size());
    std::unordered_set<std::string> seen;
    seen.reserve(raw.size());
    for (double v : raw) {
        std::string text = rangeValueText(r, v);
        if (seen.insert(text).second)
            values.push_back(std::move(text));
    }
    return values;
}

namespace {

// At least as many values as an axis expands to, computed without expanding it.
double rawValueCount(const ValueDomain& domain) {
    if (!domain.range)
        return static_cast<double>(domain.values.size());
    const NumericRange& r = *domain.range;
    double raw = r.step ? std::floor((r.to - r.from) / *r.step + 1e-9) + 1.0
                        : static_cast<double>(r.count.value_or(1));
    // Rounding leaves at most one value per rounding unit in the span.
    const double span = std::fabs(r.to - r.from);
    if (r.round > 0.0)
        raw = std::min(raw, std::floor(span / r.round) + 2.0);
    if (r.isSize)
        raw = std::min(raw, std::floor(span) + 2.0);
    else if (r.integer)
        raw = std::min(raw, std::floor(span / r.unitScale) + 2.0);
    return raw;
}

// At most as many values as an axis expands to: all of its raw values when their spacing is
// wider than what rounding can merge, else 1 (unknown without expanding).
double distinctValueCount(const ValueDomain& domain) {
    if (!domain.range)
        return 1.0;
    const NumericRange& r = *domain.range;
    const double raw = rawValueCount(domain);
    if (raw <= 1.0)
        return raw;
    double spacing = r.step ? *r.step : std::fabs(r.to - r.from) / (raw - 1.0);
    if (r.log)
        spacing = std::min(r.from, r.to) *
                  (std::pow(std::max(r.from, r.to) / std::min(r.from, r.to), 1.0 / (raw - 1.0)) - 1.0);
    double merged = r.round;  // the widest spacing that rounding can merge
    if (r.isSize)
        merged = std::max(merged, 1.0);
    else if (r.integer)
        merged = std::max(merged, r.unitScale);
    else
        merged = std::max(merged, 1e-9 * std::max(std::fabs(r.from), std::fabs(r.to)));
    return spacing >= merged ? raw : 1.0;
}

template <class PerAxis> double countWith(const SweepSpec& spec, PerAxis perAxis) {
    double count = 1.0;
    for (const Axis& axis : spec.grid)
        count *= perAxis(axis.domain);
    if (!spec.zip.empty()) {
        double length = HUGE_VAL;
        for (const Axis& axis : spec.zip)
            length = std::min(length, perAxis(axis.domain));
        count *= length;
    }
    if (spec.sample)
        count *= static_cast<double>(spec.sample->count);
    return count;
}

}  // namespace

double pointCountUpperBound(const SweepSpec& spec) {
    return countWith(spec, rawValueCount);
}

double pointCountLowerBound(const SweepSpec& spec) {
    return countWith(spec, distinctValueCount);
}

double pointCountEstimate(const SweepSpec& spec) {
    double count = 1.0;
    for (const Axis& axis : spec.grid) {
        count *= static_cast<double>(domainValues(axis.domain).size());
    }
    if (!spec.zip.empty()) {
        size_t length = SIZE_MAX;
        for (const Axis& axis : spec.zip)
            length = std::min(length, domainValues(axis.domain).size());
        count *= static_cast<double>(length);
    }
    if (spec.sample)
        count *= static_cast<double>(spec.sample->count);
    return count;
}

std::vector<Point> generatePoints(const SweepSpec& spec, size_t* duplicates) {
    std::vector<ParameterValues> grid = gridRows(spec.grid);
    std::vector<ParameterValues> zip = zipRows(spec.zip);
    std::vector<ParameterValues> samples = sampleRows(spec.sample);
    std::vector<Point> points;
    std::unordered_set<std::string> seen;
    size_t dropped = 0;
    for (const auto& g : grid) {
        for (const auto& z : zip) {
            for (const auto& s : samples) {
                Point p;
                p.params = g;
                p.params.insert(p.params.end(), z.begin(), z.end());
                p.params.insert(p.params.end(), s.begin(), s.end());
                p.id = pointId(p.params);
                if (seen.insert(p.id).second) {
                    points.push_back(std::move(p));
                } else {
                    ++dropped;
                }
            }
        }
    }
    if (duplicates)
        *duplicates = dropped;
    return points;
}

}  // namespace tessim::sweep
