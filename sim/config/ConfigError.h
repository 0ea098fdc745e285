#pragma once

#include "sim/config/Location.h"

#include <stdexcept>
#include <string>

namespace tessim::config {

/// The one exception the configuration API throws for bad input.
/// what() is "<file>:<line>:<col>: error: <key>: <message>"; the key part is omitted when empty.
class ConfigError : public std::runtime_error {
public:
    ConfigError(Location location, std::string key, std::string message);

    const Location& location() const { return location_; }
    /// Dotted path of the offending key ("dram.timing.tRCD", "layers[2].name"); may be empty.
    const std::string& key() const { return key_; }
    /// The message alone, without location and key.
    const std::string& detail() const { return detail_; }

private:
    Location location_;
    std::string key_;
    std::string detail_;
};

}  // namespace tessim::config
