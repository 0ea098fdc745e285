#include "sim/core/OccupancyTimeline.h"

#include <algorithm>

namespace tessim {
namespace {

// std::upper_bound for a tick near the end of v (requests come mostly in time order): the
// range is narrowed by doubling steps back from the end before the binary search.
std::vector<Tick>::const_iterator upperBoundNearEnd(const std::vector<Tick>& v, Tick t) {
    std::size_t hi = v.size(), step = 1;
    while (hi > 0 && v[hi - 1] > t) {
        const std::size_t lo = hi > step ? hi - step : 0;
        if (v[lo] <= t)
            return std::upper_bound(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                    v.begin() + static_cast<std::ptrdiff_t>(hi), t);
        hi = lo;
        step *= 2;
    }
    return v.begin() + static_cast<std::ptrdiff_t>(hi);
}

// Inserts t after the elements ≤ t: new holds are mostly the latest, so the place is found by
// walking back from the end.
void insertSorted(std::vector<Tick>& v, Tick t) {
    auto it = v.end();
    while (it != v.begin() && *(it - 1) > t)
        --it;
    v.insert(it, t);
}

}  // namespace

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
        // In time order (the common case): every hold started already, occupancy only falls,
        // and an entry is free once all but capacity - 1 holds have ended.
        return std::max(arrival, ends_[ends_.size() - capacity_]);
    }
    // No request starts inside the stretch known to be full: one arriving there sweeps from its
    // end (where, if the pool is free, it has just become free).
    const bool inFull = arrival >= fullFrom_ && arrival < fullUntil_;
    const Tick from = inFull ? fullUntil_ : arrival;
    if (inFull && from >= starts_.back()) {
        // Past the last start, as in time order; the full stretch extends to the answer.
        fullUntil_ = std::max(from, ends_[ends_.size() - capacity_]);
        return fullUntil_;
    }
    // One sweep over the step function of occupancy after `from`: the first stretch below
    // capacity that lasts expectedHold (ticks with several events are taken as a whole: ends
    // free entries before starts at the same tick take them).
    auto s = upperBoundNearEnd(starts_, from);
    auto e = upperBoundNearEnd(ends_, from);
    std::size_t active = static_cast<std::size_t>((s - starts_.begin()) - (e - ends_.begin()));
    bool free = active < capacity_;
    Tick candidate = from;
    // The pool is full from `from` until it first frees: remembered for later requests.
    const auto rememberFull = [&](Tick firstFree) {
        if (!inFull)
            fullFrom_ = from;
        fullUntil_ = firstFree;
    };
    bool fullPrefix = !free;
    for (;;) {
        const bool moreStarts = s != starts_.end(), moreEnds = e != ends_.end();
        if (!moreStarts) {
            // Only ends remain: occupancy falls from here on, one entry per end.
            if (free)
                return candidate;
            const Tick freed = *(e + static_cast<std::ptrdiff_t>(active - capacity_));
            if (fullPrefix)
                rememberFull(freed);
            return freed;
        }
        const Tick next = !moreEnds ? *s : std::min(*s, *e);
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
        if (nowFree && !free) {
            candidate = next;
            if (fullPrefix)
                rememberFull(next);
            fullPrefix = false;
        }
        free = nowFree;
    }
}

void OccupancyTimeline::hold(Tick from, Tick until) {
    insertSorted(starts_, from);
    insertSorted(ends_, until);
    if (ends_.size() > kMaxHolds)
        dropEarliest(ends_.size() - kMaxHolds / 2);
}

void OccupancyTimeline::dropEarliest(std::size_t k) {
    // The k earliest ends and the k earliest starts (each no later than the k-th end): the
    // occupancy from the k-th end on is unchanged (so is the full stretch's part after it).
    fullFrom_ = std::max(fullFrom_, ends_[k - 1]);
    if (fullFrom_ >= fullUntil_)
        fullFrom_ = fullUntil_ = 0;
    ends_.erase(ends_.begin(), ends_.begin() + static_cast<std::ptrdiff_t>(k));
    starts_.erase(starts_.begin(), starts_.begin() + static_cast<std::ptrdiff_t>(k));
}

void OccupancyTimeline::forgetBefore(Tick now) {
    // Ended holds change no answer at or after now; they are dropped in batches (each drop moves
    // the vectors).
    constexpr std::size_t kBatch = 32;
    if (ends_.size() < kBatch || ends_[kBatch - 1] > now)
        return;
    auto k = std::upper_bound(ends_.begin() + kBatch, ends_.end(), now) - ends_.begin();
    dropEarliest(static_cast<std::size_t>(k));
}

}  // namespace tessim
