// The shared-resource primitive: requests start at the earliest free gap at or after arrival.
#include <gtest/gtest.h>

#include "sim/core/ReservationTimeline.h"

namespace tessim {
namespace {

TEST(ReservationTimeline, InOrderRequestsQueueBackToBack) {
    ReservationTimeline t;
    EXPECT_EQ(t.reserve(0, 10), 0u);
    EXPECT_EQ(t.reserve(0, 10), 10u);
    EXPECT_EQ(t.reserve(5, 10), 20u);
    EXPECT_EQ(t.reserve(100, 10), 100u);
    EXPECT_EQ(t.busyUntil(), 110u);
    EXPECT_EQ(t.busyTicks(), 40u);
}

TEST(ReservationTimeline, LateArrivingEarlyRequestUsesAnEarlierGap) {
    ReservationTimeline t;
    t.reserve(100, 10);                  // [100, 110)
    EXPECT_EQ(t.reserve(0, 50), 0u);     // fits before it
    EXPECT_EQ(t.reserve(40, 51), 110u);  // the gap [50, 100) is one tick too short
    EXPECT_EQ(t.reserve(50, 50), 50u);   // exactly fills [50, 100)
    EXPECT_EQ(t.earliestStart(0, 1), 161u);
}

TEST(ReservationTimeline, BeyondTheLimitTheOldestGapsCountAsBusy) {
    ReservationTimeline t;
    // n = 2 K + 10 reservations [10 i, 10 i + 5) outside simulated time: the n − K + 1 oldest merge
    // into [0, merged), the rest stay apart.
    const Tick k = ReservationTimeline::kMaxIntervals;
    const Tick n = 2 * k + 10;
    for (Tick i = 0; i < n; ++i)
        t.reserve(10 * i, 5);
    const Tick merged = 10 * (n - k) + 5;
    EXPECT_EQ(t.earliestStart(5, 5), merged);
    EXPECT_EQ(t.earliestStart(merged + 1, 4), merged + 1);
    EXPECT_EQ(t.earliestStart(merged + 10, 5), merged + 10);
    EXPECT_EQ(t.reserve(10 * n - 6, 1), 10 * n - 5);
}

TEST(ReservationTimelineProperty, NeverOverlapsAndNeverStartsBeforeArrival) {
    ReservationTimeline t;
    std::vector<std::pair<Tick, Tick>> granted;
    std::uint64_t z = 12345;
    for (int i = 0; i < 2000; ++i) {
        z = z * 6364136223846793005ULL + 1442695040888963407ULL;
        Tick arrival = (z >> 20) % 100000;
        Tick duration = 1 + (z >> 50) % 200;
        Tick start = t.reserve(arrival, duration);
        EXPECT_GE(start, arrival);
        granted.emplace_back(start, start + duration);
    }
    std::sort(granted.begin(), granted.end());
    for (std::size_t i = 1; i < granted.size(); ++i)
        EXPECT_LE(granted[i - 1].second, granted[i].first);
}

}  // namespace
}  // namespace tessim
