#include "run/report/NodeJson.h"

#include <cstdlib>

namespace tessim {

nlohmann::ordered_json nodeToJson(const config::Node& node) {
    switch (node.kind()) {
    case config::Node::Kind::Null: return nullptr;
    case config::Node::Kind::Scalar: {
        const std::string& s = node.scalar();
        if (s == "true")
            return true;
        if (s == "false")
            return false;
        if (!s.empty()) {
            char* end = nullptr;
            long long i = std::strtoll(s.c_str(), &end, 0);
            if (end && *end == '\0' && s.find('.') == std::string::npos)
                return i;
            double d = std::strtod(s.c_str(), &end);
            if (end && *end == '\0')
                return d;
        }
        return s;
    }
    case config::Node::Kind::Map: {
        nlohmann::ordered_json j = nlohmann::ordered_json::object();
        for (const auto& [key, value] : node.entries())
            j[key] = nodeToJson(value);
        return j;
    }
    case config::Node::Kind::Sequence: {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& item : node.items())
            j.push_back(nodeToJson(item));
        return j;
    }
    }
    return nullptr;
}

nlohmann::ordered_json targetToJson(const config::Node& target, const config::Node* energyTable) {
    nlohmann::ordered_json j = nodeToJson(target);
    if (energyTable)
        j["energy_table_resolved"] = nodeToJson(*energyTable);
    return j;
}

}  // namespace tessim
