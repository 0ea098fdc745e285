#include "sim/config/ConfigError.h"

#include <fmt/format.h>

namespace tessim::config {

namespace {

std::string formatWhat(const Location& where, const std::string& key, const std::string& message) {
    if (key.empty()) {
        return fmt::format("{}: error: {}", toString(where), message);
    }
    return fmt::format("{}: error: {}: {}", toString(where), key, message);
}

}  // namespace

ConfigError::ConfigError(Location location, std::string key, std::string message, Shortfall shortfall)
    : std::runtime_error(formatWhat(location, key, message)), location_(std::move(location)),
      key_(std::move(key)), detail_(std::move(message)), shortfall_(shortfall) {}

}  // namespace tessim::config
