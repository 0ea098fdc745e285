// The tag array of a set-associative cache with its replacement policy: LRU (exact, by access
// stamps), tree pseudo-LRU (ways a power of two), random with a fixed seed (deterministic), or
// bimodal insertion (BIP: the LRU line is the victim, but a new line enters at the LRU position
// rather than the MRU one, except every kBipInterval-th fill: a stream larger than the cache then
// keeps part of what it brought in, where LRU keeps none; a line used again moves to MRU), or
// dynamic insertion (DIP, Qureshi et al., ISCA 2007: a few leader sets always insert as LRU, a few
// as BIP, a saturating counter of their misses picks the insertion of every other set — BIP for a
// stream larger than the cache, LRU for a working set reused before the LRU position evicts it).
// Holds no data: functional bytes live in the next level's backing store.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/Time.h"

namespace tessim {

enum class ReplacementPolicy { Lru, Plru, Random, Bip, Dip };

class CacheTags {
public:
    struct Line {
        std::uint64_t lineNumber = 0;  // address / line size
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
    // The miss half of access(), for a line known to be absent: evicts and installs.
    Line& install(std::uint64_t lineNumber, Victim& victim, bool atLru = false);
    // The hit half of access(), inline for the hit path: the line touched, or null (and nothing
    // changed) when it is absent. With `unlessPrefetched`, a line the prefetcher brought and no
    // access has used yet is returned untouched.
    Line* touchIfPresent(std::uint64_t lineNumber, bool unlessPrefetched = false) {
        const std::uint64_t set = setOf(lineNumber);
        const std::uint64_t* keys = &keys_[set * ways_];
        const std::uint64_t key = lineNumber + 1;
        for (unsigned w = 0; w < ways_; ++w) {
            if (keys[w] == key) {
                if (unlessPrefetched && lines_[set * ways_ + w].prefetched)
                    return &lines_[set * ways_ + w];
                if (!stamps_.empty())
                    stamps_[set * ways_ + w] = ++clock_;
                else
                    touch(set, w);
                return &lines_[set * ways_ + w];
            }
        }
        return nullptr;
    }
    // The line, or null when absent; its place in the replacement order unchanged.
    Line* findIfPresent(std::uint64_t lineNumber);
    bool contains(std::uint64_t lineNumber) const;
    // Where a line is held (a slot of the array; slots() when absent), and whether a slot still
    // holds a given line: a caller that remembers a slot checks a line's presence in one compare.
    std::size_t slotOfLine(std::uint64_t lineNumber) const { return slotOf(lineNumber); }
    std::size_t slotOfLine(const Line& line) const { return static_cast<std::size_t>(&line - lines_.data()); }
    bool holds(std::size_t slot, std::uint64_t lineNumber) const { return keys_[slot] == lineNumber + 1; }
    std::size_t slots() const { return lines_.size(); }
    // The dirty lines, set by set and way by way (the order a flush walks the array); they are
    // clean afterwards.
    std::vector<std::uint64_t> takeDirtyLines();
    void reset();

    std::uint64_t sets() const { return sets_; }
    unsigned ways() const { return ways_; }

private:
    std::uint64_t setOf(std::uint64_t lineNumber) const {
        return setsPow2_ ? (lineNumber & (sets_ - 1)) : lineNumber % sets_;
    }
    std::size_t slotOf(std::uint64_t lineNumber) const;
    unsigned pickVictim(std::uint64_t set);
    void touch(std::uint64_t set, unsigned way);

    std::uint64_t sets_;
    unsigned ways_;
    ReplacementPolicy policy_;
    std::uint64_t seed_;
    std::uint64_t rng_;
    std::uint64_t clock_ = 1;  // touches stamp from 2 up: 1 is below them (BIP), 0 invalid
    bool setsPow2_;
    std::vector<Line> lines_;  // sets × ways
    // Beside lines_, what a look-up compares, packed: lineNumber + 1 of a valid line, 0 if invalid.
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint64_t>
        stamps_;  // LRU, BIP, DIP: each way's last touch (0: never since reset; 1: an LRU insert)
    static constexpr unsigned kBipInterval =
        32;  // BIP: one fill in 32 enters at MRU (Qureshi et al., ISCA 2007)
    unsigned bipFills_ = 0;
    // DIP: sets with index % kDipLeaderSpacing 0 lead for LRU, 1 for BIP; the others follow.
    static constexpr std::uint64_t kDipLeaderSpacing = 32;
    static constexpr int kDipPselMax = 1023;  // a 10-bit saturating counter
    int psel_ = kDipPselMax / 2;              // above the middle: LRU's leaders miss more
    bool insertsAtLru(std::uint64_t set);
    std::vector<std::uint64_t> plru_;  // one bit tree per set
};

}  // namespace tessim
