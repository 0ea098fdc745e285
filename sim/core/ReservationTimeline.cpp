#include "sim/core/ReservationTimeline.h"

#include <algorithm>

#include "sim/core/MemoryAccess.h"

namespace tessim {

std::size_t ReservationTimeline::findSlot(Tick arrival, Tick duration, Tick& start) const {
    // First interval that ends after the arrival; everything before it is irrelevant. Arrivals
    // mostly fall among the last few intervals: those are counted (no branch to mispredict), else
    // the search gallops back from the end, then bisects.
    auto first = live(), last = intervals_.end();
    constexpr std::ptrdiff_t kNear = 16;
    std::vector<Interval>::const_iterator it;
    if (last - first >= kNear && (last - kNear)->end <= arrival) {
        std::ptrdiff_t later = 0;
        for (std::ptrdiff_t i = 1; i < kNear; ++i)
            later += (last - i)->end > arrival;
        it = last - later;
    } else {
        std::ptrdiff_t step = 1;
        while (last - first > step && (last - step)->end > arrival) {
            last -= step;
            step *= 2;
        }
        if (last - first > step)
            first = last - step + 1;
        it = std::upper_bound(first, last, arrival, [](Tick t, const Interval& iv) { return t < iv.end; });
    }
    Tick candidate = arrival;
    for (; it != intervals_.end(); ++it) {
        if (candidate + duration <= it->start)
            break;
        candidate = std::max(candidate, it->end);
    }
    start = candidate;
    return static_cast<std::size_t>(it - intervals_.begin());
}

Tick ReservationTimeline::earliestStart(Tick arrival, Tick duration) const {
    if (intervals_.empty() || arrival >= intervals_.back().end)
        return arrival;
    if (duration > 0 && arrival >= intervals_.back().start)
        return intervals_.back().end;
    Tick start = 0;
    hintPos_ = findSlot(arrival, duration, start);
    hintStart_ = start;
    hintDuration_ = duration;
    hint_ = true;
    return start;
}

Tick ReservationTimeline::reserveElsewhere(Tick arrival, Tick duration) {
    // Where earliestStart() just found this slot: the same search would end at the same place.
    const bool hinted = hint_ && arrival == hintStart_ && duration == hintDuration_;
    hint_ = false;
    ++reservations_;
    busyTicks_ += duration;
    // Fast path: in-order arrival at or after the end of all reservations.
    if (intervals_.empty() || arrival >= intervals_.back().end) {
        if (duration == 0)
            return arrival;
        if (!intervals_.empty() && intervals_.back().end == arrival) {
            intervals_.back().end += duration;
        } else {
            intervals_.push_back({arrival, arrival + duration});
        }
    } else {
        Tick start = arrival;
        const std::size_t pos = hinted ? hintPos_ : findSlot(arrival, duration, start);
        waitTicks_ += start - arrival;
        if (duration == 0)
            return start;
        // Merged with touching neighbours so the list stays short; a neighbour that touches is
        // extended in place (no element moves).
        const Tick end = start + duration;
        const bool touchesNext = pos < intervals_.size() && intervals_[pos].start == end;
        const bool touchesPrev = pos > first_ && intervals_[pos - 1].end == start;
        if (touchesPrev && touchesNext) {
            intervals_[pos - 1].end = intervals_[pos].end;
            intervals_.erase(intervals_.begin() + static_cast<std::ptrdiff_t>(pos));
        } else if (touchesPrev) {
            intervals_[pos - 1].end = end;
        } else if (touchesNext) {
            intervals_[pos].start = start;
        } else {
            intervals_.insert(intervals_.begin() + static_cast<std::ptrdiff_t>(pos), Interval{start, end});
        }
        mergeOldest();
        return start;
    }
    mergeOldest();
    return arrival;
}

void ReservationTimeline::mergeOldest() {
    if (intervals_.size() - first_ <= kMaxIntervals)
        return;
    // Intervals that ended by the current simulated time become one (their gaps count as busy):
    // requests from engines arrive at or after it, so none of their answers changes; a request
    // stamped earlier (a write drained from a queue) finds the merged span busy, as before.
    const Tick now = nowTicks();
    // Most often the oldest has not ended either (the initiator runs ahead of simulated time).
    auto ended = live()->end > now ? live()
                                   : std::upper_bound(live(), intervals_.end() - 1, now,
                                                      [](Tick t, const Interval& iv) { return t < iv.end; });
    if (ended - live() >= 2) {
        (ended - 1)->start = live()->start;
        first_ = static_cast<std::size_t>(ended - 1 - intervals_.begin());
    } else {
        // The oldest interval swallows the next (their gap counts as busy).
        intervals_[first_ + 1].start = intervals_[first_].start;
        ++first_;
    }
    // Forgotten entries are removed in one move, not one move per interval.
    if (first_ >= kMaxIntervals) {
        intervals_.erase(intervals_.begin(), live());
        first_ = 0;
    }
}

}  // namespace tessim
