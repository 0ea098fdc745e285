// The tag array alone: which way a miss takes (invalid ways first, then the policy's victim), and
// the hit-only look-up used on the hit path.
#include <gtest/gtest.h>

#include "models/memory/CacheTags.h"

namespace tessim {
namespace {

constexpr std::uint64_t kTagSets = 8;
constexpr unsigned kTagWays = 4;

// The n-th line of set 0.
std::uint64_t lineOfSet0(std::uint64_t n) {
    return n * kTagSets;
}

TEST(CacheTags, LruFillsInvalidWaysThenEvictsTheLeastRecentlyUsed) {
    CacheTags tags(kTagSets, kTagWays, ReplacementPolicy::Lru, 1);
    bool hit = true;
    CacheTags::Victim victim;
    for (std::uint64_t n = 0; n < kTagWays; ++n) {
        tags.access(lineOfSet0(n), hit, victim);
        EXPECT_FALSE(hit);
        EXPECT_FALSE(victim.valid) << "way " << n << " was free";
    }
    // Touch line 0 again: line 1 is now the least recently used.
    ASSERT_NE(tags.touchIfPresent(lineOfSet0(0)), nullptr);
    tags.access(lineOfSet0(kTagWays), hit, victim);
    EXPECT_FALSE(hit);
    EXPECT_TRUE(victim.valid);
    EXPECT_EQ(victim.lineNumber, lineOfSet0(1));
    EXPECT_FALSE(tags.contains(lineOfSet0(1)));
    EXPECT_TRUE(tags.contains(lineOfSet0(0)));
    // Then line 2, the next least recent.
    CacheTags::Line& installed = tags.install(lineOfSet0(kTagWays + 1), victim);
    EXPECT_EQ(victim.lineNumber, lineOfSet0(2));
    EXPECT_EQ(installed.lineNumber, lineOfSet0(kTagWays + 1));
    EXPECT_TRUE(installed.valid);
    // After a reset every way is free again and nothing hits.
    tags.reset();
    EXPECT_EQ(tags.touchIfPresent(lineOfSet0(0)), nullptr);
    tags.access(lineOfSet0(0), hit, victim);
    EXPECT_FALSE(hit);
    EXPECT_FALSE(victim.valid);
}

TEST(CacheTags, AHitTouchesOnlyWhatIsThereAndDirtyVictimsAreReported) {
    for (ReplacementPolicy policy :
         {ReplacementPolicy::Lru, ReplacementPolicy::Plru, ReplacementPolicy::Random, ReplacementPolicy::Bip,
          ReplacementPolicy::Dip}) {
        CacheTags tags(kTagSets, kTagWays, policy, 7);
        EXPECT_EQ(tags.touchIfPresent(3), nullptr);
        EXPECT_FALSE(tags.contains(3));
        bool hit = true;
        CacheTags::Victim victim;
        tags.access(3, hit, victim).dirty = true;
        CacheTags::Line* line = tags.touchIfPresent(3);
        ASSERT_NE(line, nullptr);
        EXPECT_TRUE(line->dirty);
        // Fill set 3 with kTagWays other lines: line 3 leaves, dirty, at some point.
        bool sawDirty = false;
        for (std::uint64_t n = 1; n <= kTagWays; ++n) {
            tags.access(3 + n * kTagSets, hit, victim);
            EXPECT_FALSE(hit);
            if (victim.valid && victim.lineNumber == 3)
                sawDirty = victim.dirty;
        }
        // LRU must evict it (the oldest); the others may keep it, but never lose it clean.
        if (policy == ReplacementPolicy::Lru)
            EXPECT_TRUE(sawDirty);
        else
            EXPECT_TRUE(sawDirty || tags.contains(3));
    }
}

// A cyclic stream of twice the cache: LRU evicts each line before its next use (no hits at all);
// BIP fills at the LRU position but one fill in 32, so the lines it placed at MRU stay and hit on
// every later pass; DIP's leaders see LRU miss more and its other sets insert as BIP. A line that
// hits moves to MRU and is kept over the stream's fills.
TEST(CacheTags, BimodalInsertionKeepsPartOfAStreamLargerThanTheCache) {
    const std::uint64_t sets = 64, lines = 2 * sets * kTagWays;
    for (ReplacementPolicy policy :
         {ReplacementPolicy::Lru, ReplacementPolicy::Bip, ReplacementPolicy::Dip}) {
        CacheTags tags(sets, kTagWays, policy, 1);
        bool hit = false;
        CacheTags::Victim victim;
        std::uint64_t hits = 0;
        for (int pass = 0; pass < 64; ++pass)
            for (std::uint64_t l = 0; l < lines; ++l) {
                tags.access(l, hit, victim);
                hits += hit;
            }
        if (policy == ReplacementPolicy::Lru)
            EXPECT_EQ(hits, 0u);
        else
            EXPECT_GT(hits, 64u * lines / 8) << "kept under an eighth of the stream";
    }
    // A line used again is at MRU: the fills that follow take the LRU way, not it.
    CacheTags tags(kTagSets, kTagWays, ReplacementPolicy::Bip, 1);
    bool hit = false;
    CacheTags::Victim victim;
    for (std::uint64_t n = 0; n < kTagWays; ++n)
        tags.access(lineOfSet0(n), hit, victim);
    ASSERT_NE(tags.touchIfPresent(lineOfSet0(0)), nullptr);
    for (std::uint64_t n = kTagWays; n < kTagWays + 8; ++n)
        tags.access(lineOfSet0(n), hit, victim);
    EXPECT_TRUE(tags.contains(lineOfSet0(0)));
}

}  // namespace
}  // namespace tessim
