#include "sim/core/OccupancyTimeline.h"

#include <algorithm>

namespace tessim {

std::size_t OccupancyTimeline::activeAt(Tick t) const {
    // Holds are [start, end): started at or before t and not yet ended at t.
    auto started = std::upper_bound(starts_.begin(), starts_.end(), t) - starts_.begin();
    auto ended = std::upper_bound(ends_.begin(), ends_.end(), t) - ends_.begin();
    return static_cast<std::size_t>(started - ended);
}

Tick OccupancyTimeline::start(Tick arrival, Tick expectedHold) const {
    if (ends_.size() < capacity_)
        return arrival;
    if (arrival >= starts_.back()) {
        // In time order (the common case): every hold started already, occupancy only falls.
        auto e = std::upper_bound(ends_.begin(), ends_.end(), arrival);
        const std::size_t active = static_cast<std::size_t>(ends_.end() - e);
        return active < capacity_ ? arrival : *(e + static_cast<std::ptrdiff_t>(active - capacity_));
    }
    // One sweep over the step function of occupancy after the arrival: the first stretch below
    // capacity that lasts expectedHold (ticks with several events are taken as a whole: ends
    // free entries before starts at the same tick take them).
    std::size_t active = activeAt(arrival);
    auto s = std::upper_bound(starts_.begin(), starts_.end(), arrival);
    auto e = std::upper_bound(ends_.begin(), ends_.end(), arrival);
    bool free = active < capacity_;
    Tick candidate = arrival;
    for (;;) {
        const bool moreStarts = s != starts_.end(), moreEnds = e != ends_.end();
        if (!moreStarts && !moreEnds)
            return candidate;  // free from here on (the last events are ends)
        const Tick next = !moreStarts ? *e : !moreEnds ? *s : std::min(*s, *e);
        if (free && next >= candidate + expectedHold)
            return candidate;
        while (e != ends_.end() && *e == next) {
            --active;
            ++e;
        }
        while (s != starts_.end() && *s == next) {
            ++active;
            ++s;
        }
        const bool nowFree = active < capacity_;
        if (nowFree && !free)
            candidate = next;
        free = nowFree;
    }
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
    // Ended holds change no answer at or after now; they are dropped in batches (each drop moves
    // the vectors).
    auto k = std::upper_bound(ends_.begin(), ends_.end(), now) - ends_.begin();
    if (k >= 32)
        dropEarliest(static_cast<std::size_t>(k));
}

}  // namespace tessim
