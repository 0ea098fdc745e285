// MSHR-like entry pools answered by each request's time, whatever the order of presentation.
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

}  // namespace
}  // namespace tessim
