// Bytes requested at a memory level: the report's `useful_bytes`, present only where some level
// moved more than was asked of it (whole DDR bursts); else `traffic_bytes`, which then equals it.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tessim::test {

template <typename Json>
std::uint64_t usefulBytes(const Json& report, const std::string& level, const std::string& direction) {
    const char* section = report.contains("useful_bytes") ? "useful_bytes" : "traffic_bytes";
    return report[section][level][direction].template get<std::uint64_t>();
}

}  // namespace tessim::test
