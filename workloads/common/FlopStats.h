// The FLOP figures of a kernel's run under stats.workload: flops (with the formula that counts
// them), FLOP per cycle of the main clock (where the kernel reports it) and FLOP per second.
#pragma once

#include <cstdint>
#include <string>

#include "sim/stats/StatsTree.h"

namespace tessim {

inline void addFlopStats(StatsTree& stats, std::uint64_t flops, const std::string& formula,
                         std::uint64_t cycles, double seconds, bool perCycle = true) {
    auto& node = stats.child("workload");
    const auto f = static_cast<double>(flops);
    node.add("flops", flops, "FLOP", formula);
    if (perCycle)
        node.add("flop_per_cycle", cycles ? f / static_cast<double>(cycles) : 0.0, "FLOP/cycle",
                 "FLOPs per cycle of the main clock");
    node.add("flop_per_second", seconds > 0 ? f / seconds : 0.0, "FLOP/s", "FLOPs per second");
}

}  // namespace tessim
