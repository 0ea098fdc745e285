// Bytes moved at one memory level of a target, as the report's traffic_bytes gives them.
#pragma once

#include <cstdint>
#include <string>

namespace tessim {

struct LevelTraffic {
    std::string level;
    std::uint64_t read = 0;
    std::uint64_t write = 0;
    // What was requested: less than read/write (whole bursts on the bus) when accesses do not
    // fill their bursts.
    std::uint64_t usefulRead = 0;
    std::uint64_t usefulWrite = 0;
};

}  // namespace tessim
