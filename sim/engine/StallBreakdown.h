// Where an engine's cycles went: every cycle of the kernel in exactly one category.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace tessim {

// Branch: the front end refilling after a taken branch's redirect or a misprediction.
enum class StallReason : std::uint8_t { Compute, Memory, Dependency, Structural, Branch, Sync, Idle };
constexpr std::size_t kStallReasons = 7;

inline std::string_view stallReasonName(StallReason r) {
    constexpr std::array<std::string_view, kStallReasons> names{
        "compute", "memory", "dependency", "structural", "branch", "sync", "idle"};
    return names[static_cast<std::size_t>(r)];
}

struct StallBreakdown {
    std::array<std::uint64_t, kStallReasons> cycles{};

    void add(StallReason r, std::uint64_t n) { cycles[static_cast<std::size_t>(r)] += n; }
    std::uint64_t operator[](StallReason r) const { return cycles[static_cast<std::size_t>(r)]; }
    std::uint64_t total() const {
        std::uint64_t t = 0;
        for (auto c : cycles)
            t += c;
        return t;
    }
};

}  // namespace tessim
