// MSHR-like entry pools answered by each request's time, whatever the order of presentation.
#include <vector>

#include <gtest/gtest.h>

#include "sim/core/OccupancyTimeline.h"

namespace tessim {
namespace {

TEST(OccupancyTimeline, InOrderRequestsWaitForTheFirstEntryToFree) {
    OccupancyTimeline pool(2);
    EXPECT_EQ(pool.start(0), 0u);
    pool.hold(0, 100);
    EXPECT_EQ(pool.start(10), 10u);
    pool.hold(10, 50);
    // Both entries busy at 20: the one held until 50 frees first.
    EXPECT_EQ(pool.start(20), 50u);
    pool.hold(50, 120);
    EXPECT_EQ(pool.start(60), 100u);
}

TEST(OccupancyTimeline, AnEarlierRequestPresentedLateUsesTheEntriesFreeAtItsTime) {
    OccupancyTimeline pool(2);
    // Presented first, but later in time: [1000, 1100) twice.
    pool.hold(1000, 1100);
    pool.hold(1000, 1100);
    // An earlier request finds both entries free at its own time.
    EXPECT_EQ(pool.start(0), 0u);
    pool.hold(0, 100);
    EXPECT_EQ(pool.activeAt(50), 1u);
    EXPECT_EQ(pool.start(1050), 1100u);
    EXPECT_EQ(pool.start(2000), 2000u);
}

TEST(OccupancyTimeline, AnExpectedHoldNeedsAGapThatLong) {
    OccupancyTimeline pool(1);
    pool.hold(100, 200);
    pool.hold(300, 400);
    EXPECT_EQ(pool.start(50, 50), 50u);    // [50, 100) fits before the first hold
    EXPECT_EQ(pool.start(50, 60), 200u);   // it does not: after it, [200, 260) fits
    EXPECT_EQ(pool.start(50, 150), 400u);  // nor between the two
    EXPECT_EQ(pool.start(150, 0), 200u);
}

TEST(OccupancyTimeline, ForgettingEndedHoldsKeepsLaterOccupancy) {
    OccupancyTimeline pool(3);
    pool.hold(0, 10);
    pool.hold(5, 200);
    pool.hold(8, 300);
    pool.hold(20, 250);
    pool.forgetBefore(100);
    EXPECT_EQ(pool.activeAt(150), 3u);
    EXPECT_EQ(pool.start(150), 200u);
    EXPECT_EQ(pool.activeAt(260), 1u);
}

TEST(OccupancyTimeline, RequestsInAFullStretchStartAfterIt) {
    OccupancyTimeline pool(1);
    pool.hold(100, 200);
    pool.hold(200, 300);  // queued behind the first: full over [100, 300)
    EXPECT_EQ(pool.start(150), 300u);
    pool.hold(300, 400);
    EXPECT_EQ(pool.start(160), 400u);
    EXPECT_EQ(pool.start(50, 50), 50u);  // before the stretch, a gap long enough
    EXPECT_EQ(pool.start(50, 60), 400u);
}

TEST(OccupancyTimeline, HoldsDroppedBeyondTheLimitNoLongerFillTheirStretch) {
    OccupancyTimeline pool(1);
    pool.hold(100, 200);
    pool.hold(200, 300);
    EXPECT_EQ(pool.start(150), 300u);
    // Enough later holds that the two earliest are dropped: only requests before them notice.
    for (Tick i = 0; i < OccupancyTimeline::kMaxHolds; ++i)
        pool.hold(1000 + 10 * i, 1010 + 10 * i);
    EXPECT_EQ(pool.start(150, 10), 150u);
}

// Each answer is a fresh pool's with the same holds, whatever was asked before: requests
// presented out of time order, with ended holds forgotten as time advances.
TEST(OccupancyTimeline, AnswersDoNotDependOnEarlierQuestions) {
    struct Step {
        Tick now, arrival, from, until;
    };
    std::vector<Step> steps;
    OccupancyTimeline pool(3);
    std::uint64_t seed = 12345;
    const auto next = [&seed](std::uint64_t n) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return (seed >> 33) % n;
    };
    for (Tick now = 0; now < 20000; now += 20) {
        const Tick arrival = now + next(400);
        const Tick length = 1 + next(120);
        pool.forgetBefore(now);
        const Tick from = pool.start(arrival, length);
        OccupancyTimeline fresh(3);
        for (const Step& s : steps) {
            fresh.forgetBefore(s.now);
            fresh.hold(s.from, s.until);
        }
        fresh.forgetBefore(now);
        ASSERT_EQ(from, fresh.start(arrival, length)) << "arrival " << arrival;
        ASSERT_GE(from, arrival);
        pool.hold(from, from + length);
        steps.push_back({now, arrival, from, from + length});
    }
}

}  // namespace
}  // namespace tessim
