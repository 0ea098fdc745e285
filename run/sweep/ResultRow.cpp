#include "run/sweep/ResultRow.h"

#include <cctype>

namespace tessim::sweep {
namespace {

std::string csvField(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

}  // namespace

std::string_view statusName(PointStatus status) {
    switch (status) {
    case PointStatus::Ok: return "ok";
    case PointStatus::Error: return "error";
    case PointStatus::Timeout: return "timeout";
    }
    return "error";
}

std::optional<PointStatus> parseStatus(std::string_view name) {
    if (name == "ok")
        return PointStatus::Ok;
    if (name == "error")
        return PointStatus::Error;
    if (name == "timeout")
        return PointStatus::Timeout;
    return std::nullopt;
}

std::string metricText(const nlohmann::ordered_json& value) {
    if (value.is_null())
        return "";
    if (value.is_string())
        return value.get<std::string>();
    return value.dump();
}

std::string csvHeader(const ResultColumns& columns) {
    std::string line = "id";
    for (const auto& p : columns.params)
        line += "," + csvField(p);
    for (const auto& m : columns.metrics)
        line += "," + csvField(m);
    line += ",status,message\n";
    return line;
}

std::string csvLine(const ResultRow& row, const ResultColumns& columns) {
    std::string line = row.id;
    for (const auto& key : columns.params) {
        line += ',';
        for (const auto& [k, v] : row.params) {
            if (k == key) {
                line += csvField(v);
                break;
            }
        }
    }
    for (const auto& key : columns.metrics) {
        line += ',';
        for (const auto& [k, v] : row.metrics) {
            if (k == key) {
                line += csvField(metricText(v));
                break;
            }
        }
    }
    line += ',';
    line += statusName(row.status);
    line += ',';
    line += csvField(row.message);
    line += '\n';
    return line;
}

std::string jsonLine(const ResultRow& row) {
    nlohmann::ordered_json j;
    j["id"] = row.id;
    j["params"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : row.params)
        j["params"][k] = v;
    j["metrics"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : row.metrics)
        j["metrics"][k] = v;
    j["status"] = statusName(row.status);
    j["message"] = row.message;
    // Replace invalid UTF-8 from a point's stderr rather than throwing.
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::optional<ResultRow> parseJsonLine(std::string_view line) {
    auto j = nlohmann::ordered_json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return std::nullopt;
    try {
        ResultRow row;
        row.id = j.at("id").get<std::string>();
        for (const auto& [k, v] : j.at("params").items()) {
            row.params.emplace_back(k, v.get<std::string>());
        }
        for (const auto& [k, v] : j.at("metrics").items())
            row.metrics.emplace_back(k, v);
        auto status = parseStatus(j.at("status").get<std::string>());
        if (!status || row.id.empty())
            return std::nullopt;
        row.status = *status;
        row.message = j.at("message").get<std::string>();
        return row;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::string csvRecordId(std::string_view line) {
    size_t comma = line.find(',');
    std::string_view id = line.substr(0, comma);
    if (id.empty() || id.size() > 64)
        return "";
    for (char c : id) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return "";
    }
    return std::string(id);
}

}  // namespace tessim::sweep
