#include "sim/validate/ValidationError.h"

#include <fmt/format.h>

namespace tessim {

nlohmann::ordered_json ValidationError::toJson() const {
    nlohmann::ordered_json j;
    j["kind"] = kind;
    j["message"] = message;
    j["engine"] = engine.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(engine);
    j["op_index"] = opIndex ? nlohmann::ordered_json(*opIndex) : nlohmann::ordered_json();
    if (opIndex && !opEngine.empty())
        j["op_engine"] = opEngine;
    if (line)
        j["line"] = *line;
    j["time_ns"] = timeNs ? nlohmann::ordered_json(*timeNs) : nlohmann::ordered_json();
    j["memory"] = memory.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(memory);
    j["address"] = address ? nlohmann::ordered_json(*address) : nlohmann::ordered_json();
    j["bytes"] = bytes ? nlohmann::ordered_json(*bytes) : nlohmann::ordered_json();
    if (!other.empty())
        j["other"] = other;
    if (otherTimeNs)
        j["other_time_ns"] = *otherTimeNs;
    if (otherOpIndex) {
        j["other_op_index"] = *otherOpIndex;
        j["other_op_engine"] = otherOpEngine;
    }
    if (otherLine)
        j["other_line"] = *otherLine;
    j["repeats"] = repeats;
    return j;
}

void ValidationLog::add(ValidationError error, const std::string& dedupKey) {
    auto it = byKey_.find(dedupKey);
    if (it != byKey_.end()) {
        ++errors_[it->second].repeats;
        return;
    }
    byKey_.emplace(dedupKey, errors_.size());
    errors_.push_back(std::move(error));
}

nlohmann::ordered_json ValidationLog::toJson() const {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& e : errors_)
        j.push_back(e.toJson());
    return j;
}

std::string formatNs(double ns) {
    if (ns >= 1e6)
        return fmt::format("{:.3f} ms", ns / 1e6);
    if (ns >= 1e3)
        return fmt::format("{:.3f} µs", ns / 1e3);
    return fmt::format("{:.3f} ns", ns);
}

}  // namespace tessim
