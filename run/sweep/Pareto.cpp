#include "run/sweep/Pareto.h"

#include <algorithm>

#include "run/sweep/ValueText.h"

namespace tessim::sweep {

std::optional<double> columnNumber(const ResultRow& row, const std::string& key) {
    for (const auto& [k, v] : row.metrics) {
        if (k != key)
            continue;
        if (v.is_number())
            return v.get<double>();
        if (v.is_string())
            return numericValue(v.get<std::string>());
        return std::nullopt;
    }
    for (const auto& [k, v] : row.params) {
        if (k == key)
            return numericValue(v);
    }
    return std::nullopt;
}

std::vector<size_t> paretoFront(const std::vector<ResultRow>& rows,
                                const std::vector<Objective>& objectives) {
    if (objectives.empty())
        return {};
    // Costs: every objective turned into one to minimise.
    std::vector<size_t> candidates;
    std::vector<std::vector<double>> cost;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].status != PointStatus::Ok)
            continue;
        std::vector<double> c;
        for (const Objective& o : objectives) {
            auto v = columnNumber(rows[i], o.key);
            if (!v)
                break;
            c.push_back(o.direction == Direction::Minimize ? *v : -*v);
        }
        if (c.size() != objectives.size())
            continue;
        candidates.push_back(i);
        cost.push_back(std::move(c));
    }
    auto dominates = [](const std::vector<double>& a, const std::vector<double>& b) {
        bool better = false;
        for (size_t k = 0; k < a.size(); ++k) {
            if (a[k] > b[k])
                return false;
            if (a[k] < b[k])
                better = true;
        }
        return better;
    };
    // Sorted by cost, a point can only be dominated by one before it.
    std::vector<size_t> order(candidates.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (cost[a] != cost[b])
            return cost[a] < cost[b];
        return rows[candidates[a]].id < rows[candidates[b]].id;
    });
    std::vector<size_t> front;
    std::vector<size_t> frontCost;
    for (size_t o : order) {
        bool dominated = std::any_of(frontCost.begin(), frontCost.end(),
                                     [&](size_t f) { return dominates(cost[f], cost[o]); });
        if (!dominated) {
            front.push_back(candidates[o]);
            frontCost.push_back(o);
        }
    }
    return front;
}

}  // namespace tessim::sweep
