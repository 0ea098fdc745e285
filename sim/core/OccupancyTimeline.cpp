#include "sim/core/OccupancyTimeline.h"

#include <algorithm>

namespace tessim {

std::size_t OccupancyTimeline::activeAt(Tick t) const {
    // Holds are [start, end): started at or before t and not yet ended at t.
    auto started = std::upper_bound(starts_.begin(), starts_.end(), t) - starts_.begin();
    auto ended = std::upper_bound(ends_.begin(), ends_.end(), t) - ends_.begin();
    return static_cast<std::size_t>(started - ended);
}

Tick OccupancyTimeline::start(Tick arrival) const {
    if (ends_.size() < capacity_ || activeAt(arrival) < capacity_)
        return arrival;
    // Occupancy only drops at the end of a hold: try those after the arrival in order.
    for (auto it = std::upper_bound(ends_.begin(), ends_.end(), arrival); it != ends_.end(); ++it)
        if (activeAt(*it) < capacity_)
            return *it;
    return ends_.back();
}

void OccupancyTimeline::hold(Tick from, Tick until) {
    starts_.insert(std::upper_bound(starts_.begin(), starts_.end(), from), from);
    ends_.insert(std::upper_bound(ends_.begin(), ends_.end(), until), until);
    if (ends_.size() > kMaxHolds)
        dropEarliest(ends_.size() - kMaxHolds / 2);
}

void OccupancyTimeline::dropEarliest(std::size_t k) {
    // The k earliest ends and the k earliest starts (each no later than the k-th end): the
    // occupancy from the k-th end on is unchanged.
    ends_.erase(ends_.begin(), ends_.begin() + static_cast<std::ptrdiff_t>(k));
    starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(k));
}

void OccupancyTimeline::forgetBefore(Tick now) {
    auto k = std::upper_bound(ends_.begin(), ends_.end(), now) - ends_.begin();
    if (k > 0)
        dropEarliest(static_cast<std::size_t>(k));
}

}  // namespace tessim
