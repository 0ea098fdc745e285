// The statistics tree: mirrors the module tree; every value has a unit and a description.
// Modules keep plain integer counters on their hot paths and write them here once, at the end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tessim {

class StatsTree {
public:
    struct Value {
        std::string name;
        double value = 0.0;
        bool integral = false;
        std::string unit;
        std::string description;
    };

    // The child node named `name` (created on first use); dotted names descend several levels.
    StatsTree& child(const std::string& name);
    void add(const std::string& name, std::uint64_t value, const std::string& unit,
             const std::string& description = {});
    void add(const std::string& name, double value, const std::string& unit,
             const std::string& description = {});

    const Value* find(const std::string& dottedPath) const;
    // {"child": {...}, "value": {"value": 1, "unit": "B", "description": "..."}}, in insertion order.
    nlohmann::ordered_json toJson() const;
    // Flat rows "a.b.c" → value, unit (for CSV and Markdown).
    void flatten(const std::string& prefix, std::vector<std::pair<std::string, const Value*>>& out) const;

private:
    std::vector<Value> values_;
    std::vector<std::pair<std::string, std::unique_ptr<StatsTree>>> children_;
};

}  // namespace tessim
