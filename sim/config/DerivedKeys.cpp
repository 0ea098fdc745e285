#include "sim/config/DerivedKeys.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace tessim::config {

namespace {

thread_local DerivedKeys* openDerivedKeys = nullptr;

// The echo's value at a dotted path such as "slices[0].outputs", or nullptr.
const nlohmann::ordered_json* atPath(const nlohmann::ordered_json& root, const std::string& path) {
    const nlohmann::ordered_json* at = &root;
    std::size_t i = 0;
    while (i < path.size()) {
        if (path[i] == '[') {
            const std::size_t close = path.find(']', i);
            if (close == std::string::npos || !at->is_array())
                return nullptr;
            const std::size_t index = std::strtoull(path.c_str() + i + 1, nullptr, 10);
            if (index >= at->size())
                return nullptr;
            at = &(*at)[index];
            i = close + 1;
            continue;
        }
        if (path[i] == '.')
            ++i;
        const std::size_t end = path.find_first_of(".[", i);
        const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
        if (!at->is_object() || !at->contains(key))
            return nullptr;
        at = &(*at)[key];
        i = end == std::string::npos ? path.size() : end;
    }
    return at;
}

bool asNumber(const std::string& text, double& out) {
    if (text.empty())
        return false;
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end != nullptr && *end == '\0';
}

// Whether a YAML value written from a report's JSON reads back as that JSON value.
bool sameValue(const Node& node, const nlohmann::ordered_json& json) {
    if (json.is_null())
        return node.isNull() || (node.isScalar() && (node.scalar().empty() || node.scalar() == "null"));
    if (json.is_array()) {
        if (!node.isSequence() || node.items().size() != json.size())
            return false;
        for (std::size_t i = 0; i < json.size(); ++i)
            if (!sameValue(node.items()[i], json[i]))
                return false;
        return true;
    }
    if (json.is_object()) {
        if (!node.isMap() || node.entries().size() != json.size())
            return false;
        for (const auto& [key, value] : node.entries())
            if (!json.contains(key) || !sameValue(value, json[key]))
                return false;
        return true;
    }
    if (!node.isScalar())
        return false;
    const std::string& text = node.scalar();
    if (json.is_boolean())
        return text == (json.get<bool>() ? "true" : "false");
    if (json.is_number()) {
        double value = 0;
        return asNumber(text, value) && value == json.get<double>();
    }
    return json.is_string() && text == json.get<std::string>();
}

}  // namespace

DerivedKeys::DerivedKeys() {
    if (openDerivedKeys == nullptr) {
        openDerivedKeys = this;
        outermost_ = true;
    }
}

DerivedKeys::~DerivedKeys() {
    if (outermost_)
        openDerivedKeys = nullptr;
}

bool DerivedKeys::note(const Node& value, const ConfigError& unknown) {
    if (openDerivedKeys == nullptr)
        return false;
    // A kernel that is built twice (a convolution retried in filter blocks) notes a key twice.
    for (const Noted& n : openDerivedKeys->noted_)
        if (n.value.path() == value.path() && n.unknown.location().file == unknown.location().file &&
            n.unknown.location().line == unknown.location().line &&
            n.unknown.location().column == unknown.location().column)
            return true;
    openDerivedKeys->noted_.push_back(Noted{value, unknown});
    return true;
}

void DerivedKeys::settle(const std::vector<nlohmann::ordered_json>& resolved) const {
    if (!outermost_)
        return;
    for (const Noted& n : noted_) {
        const nlohmann::ordered_json* derived = nullptr;
        bool same = false;
        for (const auto& echo : resolved) {
            if (const nlohmann::ordered_json* at = atPath(echo, n.value.path())) {
                derived = derived ? derived : at;
                same = same || sameValue(n.value, *at);
            }
        }
        if (same)
            continue;
        if (derived == nullptr)
            throw n.unknown;
        throw ConfigError(n.unknown.location(), n.unknown.key(),
                          fmt::format("not an input but what the run derives, and it derives {} here "
                                      "(leave the key out, or give that value)",
                                      derived->dump()));
    }
}

void DerivedKeys::throwFirstNoted() const {
    if (!outermost_)
        return;
    for (const Noted& n : noted_)
        if (n.unknown.detail().find("did you mean") != std::string::npos)
            throw n.unknown;
}

}  // namespace tessim::config
