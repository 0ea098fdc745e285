// A pool of `capacity` identical entries (cache MSHRs, queue slots) that requests hold for a
// span of time, answered by each request's own time: a request arriving at t starts at the
// earliest s ≥ t at which fewer than `capacity` holds are active, whatever order the requests
// were presented in (initiators run ahead of each other under temporal decoupling).
//
// The hold's length need not be known when asking (a miss learns it from the next level):
// start() finds s for an expected length (callers pass the last hold's), hold() records the
// actual [s, end). A request presented late may start in a gap that holds presented earlier but
// later in time leave, as long as the gap is as long as it expects to hold.
// Holds that ended before the current simulated time can no longer matter (no request arrives
// before it) and are dropped; beyond kMaxHolds the earliest-ended are dropped too, which only
// affects requests arriving before them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/Time.h"

namespace tessim {

class OccupancyTimeline {
public:
    static constexpr std::size_t kMaxHolds = 512;

    explicit OccupancyTimeline(unsigned capacity = 1) : capacity_(capacity) {}

    // The earliest tick s ≥ arrival at which an entry is free over [s, s + expectedHold): holds
    // presented earlier but later in time are respected for as long as this one expects to last.
    Tick start(Tick arrival, Tick expectedHold = 0) const;
    // Records a hold of one entry over [from, until).
    void hold(Tick from, Tick until);
    // Drops holds that ended at or before `now` (requests never arrive before it).
    void forgetBefore(Tick now);
    void reset() {
        starts_.clear();
        ends_.clear();
        fullFrom_ = fullUntil_ = 0;
    }
    unsigned capacity() const { return capacity_; }
    // Holds active at tick t.
    std::size_t activeAt(Tick t) const;

private:
    void dropEarliest(std::size_t k);

    unsigned capacity_;
    std::vector<Tick> starts_;  // sorted
    std::vector<Tick> ends_;    // sorted
    // A stretch [fullFrom_, fullUntil_) over which every entry is held, found by an earlier
    // sweep: under contention misses queue for the MSHRs, and each sweep would otherwise walk
    // the whole queue again. New holds keep it full; dropped holds are handled in dropEarliest.
    mutable Tick fullFrom_ = 0, fullUntil_ = 0;
};

}  // namespace tessim
