#include "sim/stats/StatsTree.h"

namespace tessim {

StatsTree& StatsTree::child(const std::string& name) {
    auto dot = name.find('.');
    if (dot != std::string::npos)
        return child(name.substr(0, dot)).child(name.substr(dot + 1));
    for (auto& [key, node] : children_)
        if (key == name)
            return *node;
    children_.emplace_back(name, std::make_unique<StatsTree>());
    return *children_.back().second;
}

void StatsTree::add(const std::string& name, std::uint64_t value, const std::string& unit,
                    const std::string& description) {
    values_.push_back({name, static_cast<double>(value), true, unit, description});
}

void StatsTree::add(const std::string& name, double value, const std::string& unit,
                    const std::string& description) {
    values_.push_back({name, value, false, unit, description});
}

const StatsTree::Value* StatsTree::find(const std::string& dottedPath) const {
    auto dot = dottedPath.find('.');
    if (dot == std::string::npos) {
        for (const auto& v : values_)
            if (v.name == dottedPath)
                return &v;
        return nullptr;
    }
    std::string head = dottedPath.substr(0, dot);
    for (const auto& [key, node] : children_)
        if (key == head)
            return node->find(dottedPath.substr(dot + 1));
    return nullptr;
}

nlohmann::ordered_json StatsTree::toJson() const {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& v : values_) {
        nlohmann::ordered_json e;
        if (v.integral)
            e["value"] = static_cast<std::uint64_t>(v.value);
        else
            e["value"] = v.value;
        e["unit"] = v.unit;
        if (!v.description.empty())
            e["description"] = v.description;
        j[v.name] = e;
    }
    for (const auto& [key, node] : children_)
        j[key] = node->toJson();
    return j;
}

void StatsTree::flatten(const std::string& prefix,
                        std::vector<std::pair<std::string, const Value*>>& out) const {
    for (const auto& v : values_)
        out.emplace_back(prefix.empty() ? v.name : prefix + "." + v.name, &v);
    for (const auto& [key, node] : children_)
        node->flatten(prefix.empty() ? key : prefix + "." + key, out);
}

}  // namespace tessim
