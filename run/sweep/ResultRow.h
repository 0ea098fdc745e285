// One finished point as the results files hold it: id, parameters, metrics, status, message.
// The CSV and JSON Lines forms are one line each, so a row is written with a single write().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/sweep/PointId.h"

namespace tessim::sweep {

enum class PointStatus { Ok, Error, Timeout };

std::string_view statusName(PointStatus status);
std::optional<PointStatus> parseStatus(std::string_view name);

struct ResultRow {
    std::string id;
    ParameterValues params;
    std::vector<std::pair<std::string, nlohmann::ordered_json>> metrics;  // null when absent
    PointStatus status = PointStatus::Ok;
    std::string message;  // one line; empty when ok
};

/// The columns of results.csv: id, parameters, metrics, status, message.
struct ResultColumns {
    std::vector<std::string> params;
    std::vector<std::string> metrics;
};

std::string csvHeader(const ResultColumns& columns);
/// One CSV record ending in '\n' (RFC 4180 quoting), columns in `columns` order.
std::string csvLine(const ResultRow& row, const ResultColumns& columns);
/// {"id", "params", "metrics", "status", "message"} ending in '\n'.
std::string jsonLine(const ResultRow& row);
/// The row of a JSON line; std::nullopt for a torn or foreign line.
std::optional<ResultRow> parseJsonLine(std::string_view line);
/// The id a CSV record starts with (ids are hex, never quoted); empty if there is none.
std::string csvRecordId(std::string_view line);

/// A metric value as it appears in the CSV ("" for null, numbers as JSON writes them).
std::string metricText(const nlohmann::ordered_json& value);

}  // namespace tessim::sweep
