#pragma once

#include "sim/config/Location.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessim::config {

/// What a refusal says is short when a plan asks more than the target has: `tessim validate`
/// reports these as findings about the schedule (capacity, register-budget), not as bad input.
enum class Shortfall : std::uint8_t { None, Capacity, Registers };

/// The one exception the configuration API throws for bad input.
/// what() is "<file>:<line>:<col>: error: <key>: <message>"; the key part is omitted when empty.
class ConfigError : public std::runtime_error {
public:
    ConfigError(Location location, std::string key, std::string message,
                Shortfall shortfall = Shortfall::None);

    const Location& location() const { return location_; }
    /// Dotted path of the offending key ("dram.timing.tRCD", "layers[2].name"); may be empty.
    const std::string& key() const { return key_; }
    /// The message alone, without location and key.
    const std::string& detail() const { return detail_; }
    Shortfall shortfall() const { return shortfall_; }

private:
    Location location_;
    std::string key_;
    std::string detail_;
    Shortfall shortfall_;
};

}  // namespace tessim::config
