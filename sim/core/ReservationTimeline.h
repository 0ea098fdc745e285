// A shared resource (DDR bank, bus, SRAM port) modelled by when it is busy rather than by ticking:
// a request starts at the earliest free gap at or after its arrival that fits its duration.
// Engines run ahead of each other (temporal decoupling), so requests may arrive out of time
// order; keeping recent busy intervals lets a late-arriving early request use an earlier gap.
// The intervals kept must cover how far initiators run ahead: an initiator a quantum (1 µs) ahead
// leaves up to one interval per cycle of it in a port's timeline before the others present their
// requests of the same time.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/Time.h"

namespace tessim {

class ReservationTimeline {
public:
    // How many busy intervals are kept. Beyond it, those that ended by the current simulated time
    // are merged into one (no engine's request arrives before it); if that is not enough, the
    // oldest two are. Merged gaps count as busy, which can only delay, never speed up, a request —
    // the timeline stays conservative.
    static constexpr std::size_t kMaxIntervals = 1024;

    // Reserves [start, start + duration) with start >= arrival; returns start.
    Tick reserve(Tick arrival, Tick duration) {
        // Inline: a request arriving inside or at the end of the last interval (the lines of one
        // access, back-to-back requests) queues behind it, as every earlier gap lies before it.
        if (duration > 0 && !intervals_.empty() && arrival >= intervals_.back().start &&
            arrival <= intervals_.back().end) {
            Interval& last = intervals_.back();
            const Tick start = last.end;
            hint_ = false;
            ++reservations_;
            busyTicks_ += duration;
            waitTicks_ += start - arrival;
            last.end += duration;
            return start;
        }
        return reserveElsewhere(arrival, duration);
    }
    // The earliest start reserve() would return, without reserving.
    Tick earliestStart(Tick arrival, Tick duration) const;

    Tick busyUntil() const { return intervals_.empty() ? 0 : intervals_.back().end; }
    Tick busyTicks() const { return busyTicks_; }
    std::uint64_t reservations() const { return reservations_; }
    // Ticks requests spent waiting for the resource (start - arrival), summed.
    Tick waitTicks() const { return waitTicks_; }

private:
    struct Interval {
        Tick start;
        Tick end;
    };
    Tick reserveElsewhere(Tick arrival, Tick duration);
    std::size_t findSlot(Tick arrival, Tick duration, Tick& start) const;
    // Beyond kMaxIntervals, merges the intervals that ended by now, else the two oldest.
    void mergeOldest();
    std::vector<Interval>::iterator live() {
        return intervals_.begin() + static_cast<std::ptrdiff_t>(first_);
    }
    std::vector<Interval>::const_iterator live() const {
        return intervals_.begin() + static_cast<std::ptrdiff_t>(first_);
    }
    // intervals_[first_, end) are kept: sorted, disjoint, non-adjacent. The entries before
    // first_ were merged into intervals_[first_] and await removal.
    std::vector<Interval> intervals_;
    std::size_t first_ = 0;
    // The slot earliestStart() found last, so that reserving exactly there needs no second search
    // (forgotten at every change to the intervals).
    mutable Tick hintStart_ = 0, hintDuration_ = 0;
    mutable std::size_t hintPos_ = 0;
    mutable bool hint_ = false;
    Tick busyTicks_ = 0;
    Tick waitTicks_ = 0;
    std::uint64_t reservations_ = 0;
};

}  // namespace tessim
