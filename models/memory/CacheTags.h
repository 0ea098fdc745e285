// The tag array of a set-associative cache with its replacement policy: LRU (exact, by access
// stamps), tree pseudo-LRU (ways a power of two), or random with a fixed seed (deterministic).
// Holds no data: functional bytes live in the next level's backing store.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/Time.h"

namespace tessim {

enum class ReplacementPolicy { Lru, Plru, Random };

class CacheTags {
public:
    struct Line {
        std::uint64_t lineNumber = 0;  // address / line size
        std::uint64_t stamp = 0;       // LRU: last touch
        Tick readyAt = 0;              // data present from this tick (a fill may be in flight)
        Tick missAt = 0;               // arrival of the access whose miss brought the line in
        bool valid = false;
        bool dirty = false;
        bool prefetched = false;  // brought in by the prefetcher and not yet used
    };
    struct Victim {
        bool valid = false;
        bool dirty = false;
        std::uint64_t lineNumber = 0;
    };

    CacheTags(std::uint64_t sets, unsigned ways, ReplacementPolicy policy, std::uint64_t seed);

    // Looks a line up and touches it. On a miss, evicts a victim (described in `victim`) and
    // installs the line clean in its place.
    Line& access(std::uint64_t lineNumber, bool& hit, Victim& victim);
    bool contains(std::uint64_t lineNumber) const;
    void reset();

    std::uint64_t sets() const { return sets_; }
    unsigned ways() const { return ways_; }

private:
    unsigned pickVictim(std::uint64_t set);
    void touch(std::uint64_t set, unsigned way);

    std::uint64_t sets_;
    unsigned ways_;
    ReplacementPolicy policy_;
    std::uint64_t seed_;
    std::uint64_t rng_;
    std::uint64_t clock_ = 0;
    bool setsPow2_;
    std::vector<Line> lines_;          // sets × ways
    std::vector<std::uint64_t> plru_;  // one bit tree per set
};

}  // namespace tessim
