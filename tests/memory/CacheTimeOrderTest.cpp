// A cache answers by each access's time, not by the order accesses are presented in (initiators
// run ahead of each other): an earlier access to a line whose fill a later access asked for is
// the one that missed first; MSHRs free at an early time serve an early miss.
#include <gtest/gtest.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Cache.h"
#include "models/memory/MemoryProbe.h"
#include "models/memory/SimpleMemory.h"

namespace tessim {
namespace {

struct Bench {
    SimpleMemory mem;
    Cache cache;
    MemoryProbe probe;
    explicit Bench(unsigned mshrs)
        : mem("mem", test::dramBehindCache()),
          cache("cache", test::configFrom<CacheConfig>("size: 32 KiB\nways: 4\nline: 64 B\nclock: 1 GHz\n"
                                                       "hit_latency: 2\nnext: mem\nmshrs: " +
                                                       std::to_string(mshrs) + "\n")),
          probe("probe", [] {}) {
        cache.next.bind(mem.socket);
        cache.setNextLevel(0, mem.capacity());
        probe.socket.bind(cache.socket);
    }
};

constexpr Tick kFill = 2000 + 6400 + 50'000;  // tag check, transfer, latency

TEST(CacheTimeOrder, AnEarlierAccessPresentedLateIsNotChargedTheLaterFill) {
    test::freshKernel();
    Bench b(8);
    test::elaborate();
    EXPECT_EQ(b.probe.request(false, 4096, 8, 1'000'000), 1'000'000 + kFill);
    // Earlier in time, presented second: it missed first and gets the line one fill after it.
    EXPECT_EQ(b.probe.request(false, 4096 + 8, 8, 100'000), 100'000 + kFill);
    // Later accesses find the line from then on.
    EXPECT_EQ(b.probe.request(false, 4096 + 16, 8, 500'000), 500'000 + 2000);
    // One fill moved: the line was read from the next level once.
    EXPECT_EQ(b.mem.bytesRead(), 64u);
    EXPECT_EQ(b.cache.misses(), 1u);
    EXPECT_EQ(b.cache.hits(), 2u);
}

TEST(CacheTimeOrder, AnEarlyMissUsesAnMshrThatLaterMissesLeaveFree) {
    test::freshKernel();
    Bench b(1);
    test::elaborate();
    // Presented first: a miss at 1 ms holds the only MSHR for one fill.
    b.probe.request(false, 0, 8, 1'000'000'000);
    // A miss at 0 finds the MSHR free at its own time: no MSHR stall.
    EXPECT_EQ(b.probe.request(false, 64 * 1024, 8, 0), kFill);
    EXPECT_EQ(b.cache.mshrStalls(), 0u);
    // A miss while the first one holds the MSHR waits for it.
    const Tick at = 1'000'000'000 + 1000;
    EXPECT_EQ(b.probe.request(false, 128 * 1024, 8, at), 1'000'000'000 + kFill + kFill);
    EXPECT_EQ(b.cache.mshrStalls(), 1u);
}

}  // namespace
}  // namespace tessim
