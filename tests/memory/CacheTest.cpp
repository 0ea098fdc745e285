// Cache model: LRU hit/miss counts against closed forms (sequential, line stride, cache-size
// stride, transpose), write-back traffic conservation, MSHR stalls, functional pass-through.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Cache.h"
#include "models/memory/MemoryProbe.h"
#include "models/memory/SimpleMemory.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

constexpr std::uint64_t kSize = 32 * 1024, kLine = 64, kWays = 4, kSets = kSize / (kWays * kLine);

struct CacheBench {
    SimpleMemory mem;
    Cache cache;
    MemoryProbe probe;
    explicit CacheBench(const std::string& extra = "")
        : mem("mem", test::dramBehindCache()),
          cache("cache", test::configFrom<CacheConfig>("size: 32 KiB\nways: 4\nline: 64 B\nclock: 1 GHz\n"
                                                       "hit_latency: 2\nmshrs: 8\nnext: mem\n" +
                                                       extra)),
          probe("probe", [this] {
              cache.resetTiming();
              mem.resetTiming();
          }) {
        cache.next.bind(mem.socket);
        cache.setNextLevel(0, mem.capacity());
        probe.socket.bind(cache.socket);
    }
    // Element reads of 8 bytes at the given addresses, one every `spacing` ticks (1 ns).
    void read(const std::vector<std::uint64_t>& addrs, Tick spacing = 1000) {
        Tick t = 0;
        for (std::uint64_t a : addrs)
            probe.request(false, a, 8, t += spacing);
    }
};

std::vector<std::uint64_t> range(std::uint64_t count, std::uint64_t stride, std::uint64_t base = 0) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 0; i < count; ++i)
        v.push_back(base + i * stride);
    return v;
}

// Reads 100 ns apart (the next level answers in 50 ns): every prefetch finds an MSHR free.
constexpr Tick kSpaced = 100'000;

TEST(CachePrefetch, NextLineKeepsASequentialStreamToItsFirstMiss) {
    test::freshKernel();
    CacheBench b("prefetcher: {kind: next-line, degree: 3}\n");
    test::elaborate();
    b.read(range(100, kLine), kSpaced);
    // Line 0 misses and brings 1–3; each prefetched line read brings the next one: lines 1…102.
    EXPECT_EQ(b.cache.misses(), 1u);
    EXPECT_EQ(b.cache.hits(), 99u);
    EXPECT_EQ(b.mem.bytesRead(), (1 + 102) * kLine);
    EXPECT_EQ(b.cache.bytesFromNext(), (1 + 102) * kLine);
}

TEST(CachePrefetch, StrideIsLearntFromTwoEqualStepsInARegion) {
    test::freshKernel();
    CacheBench b("prefetcher: {kind: stride, degree: 2}\n");
    test::elaborate();
    // Every other line of one 4 KiB region: lines 0, 2, …, 58.
    b.read(range(30, 2 * kLine), kSpaced);
    // 0 opens the entry, 2 gives the stride, 4 confirms it and brings 6 and 8; each prefetched line
    // read brings the next one along the stride: 6, 8, …, 62.
    EXPECT_EQ(b.cache.misses(), 3u);
    EXPECT_EQ(b.cache.hits(), 27u);
    EXPECT_EQ(b.mem.bytesRead(), (3 + 29) * kLine);
}

TEST(CachePrefetch, APrefetchWithoutAFreeMshrIsDropped) {
    test::freshKernel();
    CacheBench b("prefetcher: {kind: next-line, degree: 16}\n");
    test::elaborate();
    b.read(range(1, kLine), kSpaced);
    // 8 MSHRs: the miss takes one, 7 prefetches the others, the remaining 9 are dropped.
    EXPECT_EQ(b.mem.bytesRead(), 8 * kLine);
}

// Energies stated for a reference array follow the configured size along the SRAM array model's
// energy curve (closed form: the anchors double the energy from 32 to 128 KiB).
TEST(CacheEnergy, PerAccessEnergyAndLeakageFollowTheSize) {
    const std::string common =
        "ways: 4\nclock: 1 GHz\nhit_latency: 2\nnext: mem\nstatic_power: 1 mW\n"
        "energy: {read: 10 pJ, fill: 30 pJ, reference_size: 32 KiB,\n"
        "         array: {read_64bit: {32 KiB: 20 pJ, 128 KiB: 40 pJ}, bitcell_area_um2: 0.5}}\n";
    const CacheConfig same = test::configFrom<CacheConfig>("size: 32 KiB\n" + common);
    EXPECT_DOUBLE_EQ(same.readJoules, 10e-12);
    EXPECT_DOUBLE_EQ(same.staticWatts, 1e-3);
    const CacheConfig four = test::configFrom<CacheConfig>("size: 128 KiB\n" + common);
    EXPECT_DOUBLE_EQ(four.readJoules, 20e-12);  // 40 pJ / 20 pJ = 2
    EXPECT_DOUBLE_EQ(four.writeJoules, 20e-12);
    EXPECT_DOUBLE_EQ(four.fillJoules, 60e-12);
    EXPECT_DOUBLE_EQ(four.staticWatts, 4e-3);
    // 128 KiB × 8 bits × 0.5 µm² (one port, efficiency 1).
    EXPECT_DOUBLE_EQ(four.areaMm2, 131072 * 8 * 0.5e-6);
}

TEST(CacheEnergy, ReferenceSizeWithoutAnArrayModelIsAConfigError) {
    try {
        test::configFrom<CacheConfig>("size: 32 KiB\nways: 4\nclock: 1 GHz\nhit_latency: 2\nnext: mem\n"
                                      "energy: {read: 10 pJ, reference_size: 32 KiB}\n");
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "energy.reference_size");
    }
}

TEST(CachePrefetch, UnknownKindIsAConfigError) {
    try {
        test::configFrom<CacheConfig>(
            "size: 32 KiB\nways: 4\nclock: 1 GHz\nhit_latency: 2\nnext: mem\nprefetcher: {kind: "
            "streamer}\n");
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "prefetcher.kind");
    }
}

TEST(Cache, SequentialMissesOncePerLine) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    b.read(range(kSize / 8, 8));  // exactly the capacity, 8-byte elements
    EXPECT_EQ(b.cache.misses(), kSize / kLine);
    EXPECT_EQ(b.cache.hits(), kSize / 8 - kSize / kLine);
    b.read(range(kSize / 8, 8));  // fits: all hits
    EXPECT_EQ(b.cache.misses(), kSize / kLine);
    EXPECT_EQ(b.cache.evictions(), 0u);
    // Twice the capacity, twice: LRU streams, every line misses every pass.
    b.cache.resetTiming();
    b.read(range(2 * kSize / 8, 8));
    b.read(range(2 * kSize / 8, 8));
    EXPECT_EQ(b.cache.misses(), 2 * 2 * kSize / kLine);
    EXPECT_EQ(b.cache.hits(), 2 * (2 * kSize / 8 - 2 * kSize / kLine));
}

TEST(Cache, LineStrideHitsWhenItFitsAndThrashesOneLinePerSetBeyond) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    std::uint64_t lines = kSize / kLine;
    b.read(range(lines, kLine));
    b.read(range(lines, kLine));
    EXPECT_EQ(b.cache.misses(), lines);
    EXPECT_EQ(b.cache.hits(), lines);
    // One more line per set: W + 1 lines cycle through each W-way LRU set, nothing survives.
    b.cache.resetTiming();
    std::uint64_t more = lines + kSets;
    b.read(range(more, kLine));
    b.read(range(more, kLine));
    EXPECT_EQ(b.cache.misses(), 2 * more);
    EXPECT_EQ(b.cache.hits(), 0u);
}

TEST(Cache, CacheSizeStrideConflictsInOneSet) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    b.read(range(kWays, kSize));
    b.read(range(kWays, kSize));
    EXPECT_EQ(b.cache.misses(), kWays);
    EXPECT_EQ(b.cache.hits(), kWays);
    b.cache.resetTiming();
    b.read(range(kWays + 1, kSize));
    b.read(range(kWays + 1, kSize));
    EXPECT_EQ(b.cache.misses(), 2 * (kWays + 1));
    EXPECT_EQ(b.cache.hits(), 0u);
}

// Column-wise walk of an n × n matrix of 8-byte elements.
std::vector<std::uint64_t> transpose(std::uint64_t n) {
    std::vector<std::uint64_t> v;
    for (std::uint64_t col = 0; col < n; ++col)
        for (std::uint64_t row = 0; row < n; ++row)
            v.push_back((row * n + col) * 8);
    return v;
}

TEST(Cache, TransposeWalk) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    // n = 64: rows are 8 lines apart, the 64 lines of a column fall 4 per set into 16 sets and
    // fit the 4 ways: only compulsory misses, one per line of the matrix.
    std::uint64_t n = 64;
    b.read(transpose(n));
    EXPECT_EQ(b.cache.misses(), n * n * 8 / kLine);
    EXPECT_EQ(b.cache.hits(), n * n - n * n * 8 / kLine);
    // n = 128: 16 lines per set in 8 sets; each line is evicted before the next column.
    b.cache.resetTiming();
    n = 128;
    b.read(transpose(n));
    EXPECT_EQ(b.cache.misses(), n * n);
    EXPECT_EQ(b.cache.hits(), 0u);
}

TEST(Cache, WriteBackTrafficIsConserved) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    Tick t = 0;
    for (std::uint64_t a = 0; a < 2 * kSize; a += 8)
        b.probe.request(true, a, 8, t += 1000);
    // Write-allocate: every line is fetched once; the first half is evicted dirty.
    EXPECT_EQ(b.cache.misses(), 2 * kSize / kLine);
    EXPECT_EQ(b.cache.writebacks(), kSize / kLine);
    EXPECT_EQ(b.cache.evictions(), kSize / kLine);
    EXPECT_EQ(b.mem.bytesRead(), b.cache.bytesFromNext());
    EXPECT_EQ(b.mem.bytesWritten(), b.cache.bytesToNext());
    EXPECT_EQ(b.mem.bytesWritten(), kSize);
    EXPECT_EQ(b.cache.bytesWritten(), 2 * kSize);
}

// Whole-line stores of `lines` consecutive lines from `base`, 100 ns apart.
void storeLines(CacheBench& b, std::uint64_t base, std::uint64_t lines, Tick& t) {
    for (std::uint64_t l = 0; l < lines; ++l)
        b.probe.request(true, base + l * kLine, kLine, t += kSpaced);
}

TEST(CacheWrites, AStoreOfAWholeLineFetchesItOnlyWhenTheStoreIsNarrowerThanTheLine) {
    for (const char* granule : {"", "write_granule: 64 B\n", "write_granule: 16 B\n"}) {
        test::freshKernel();
        CacheBench b(granule);
        test::elaborate();
        Tick t = 0;
        storeLines(b, 0, 10, t);
        // A store path of 16 B cannot tell its first write to a missing line that the rest follows.
        const bool narrow = std::string(granule).find("16 B") != std::string::npos;
        EXPECT_EQ(b.cache.misses(), 10u) << granule;
        EXPECT_EQ(b.cache.bytesFromNext(), narrow ? 10 * kLine : 0u) << granule;
        EXPECT_EQ(b.mem.bytesRead(), b.cache.bytesFromNext()) << granule;
    }
}

TEST(CacheWrites, WriteStreamingSkipsTheFetchAfterARunOfStoreMissesUntilARead) {
    test::freshKernel();
    CacheBench b("write_granule: 16 B\nwrite_streaming: 4\n");
    test::elaborate();
    Tick t = 0;
    storeLines(b, 0, 20, t);
    // The first four store misses fetch their lines; the next sixteen are allocated without.
    EXPECT_EQ(b.cache.bytesFromNext(), 4 * kLine);
    // A read (a hit) ends the run: the next four store misses fetch again.
    b.probe.request(false, 0, 8, t += kSpaced);
    storeLines(b, 100 * kLine, 10, t);
    EXPECT_EQ(b.cache.bytesFromNext(), 8 * kLine);
    // Half-line stores: two per line, one miss each line; the run counts misses, not stores.
    b.probe.request(false, 0, 8, t += kSpaced);
    for (std::uint64_t a = 200 * kLine; a < 210 * kLine; a += kLine / 2)
        b.probe.request(true, a, kLine / 2, t += kSpaced);
    EXPECT_EQ(b.cache.bytesFromNext(), 12 * kLine);
    // A store miss that follows reads and stores alternately never streams (a copy's stores).
    for (std::uint64_t l = 0; l < 10; ++l) {
        b.probe.request(false, 300 * kLine + l * kLine, 8, t += kSpaced);
        b.probe.request(true, 400 * kLine + l * kLine, kLine, t += kSpaced);
    }
    EXPECT_EQ(b.cache.bytesFromNext(), (12 + 20) * kLine);
}

// Lines 0, S, 2S, 3S fill one set (S the set stride) by reads; the level above writes line 0
// back; a fifth line then needs a victim. A write-back that touches makes line 0 the most recent
// (line S leaves); with `write_backs_touch: false` line 0 keeps its place as the oldest and leaves.
TEST(CacheWrites, AWriteBackHitTouchesItsLineUnlessWriteBacksTouchIsOff) {
    for (const bool touch : {true, false}) {
        test::freshKernel();
        CacheBench b(touch ? "" : "write_backs_touch: false\n");
        test::elaborate();
        const std::uint64_t setStride = kSets * kLine;
        Tick t = 0;
        for (std::uint64_t w = 0; w < kWays; ++w)
            b.probe.request(false, w * setStride, 8, t += kSpaced);
        AccessExtension writeBack;
        writeBack.source = AccessSource::CacheWriteBack;
        b.probe.request(true, 0, kLine, t += kSpaced, &writeBack);
        EXPECT_EQ(b.cache.misses(), kWays);  // the write-back hit
        b.probe.request(false, kWays * setStride, 8, t += kSpaced);
        // Line 0 is dirty: it leaves with a write-back only where it was the victim.
        EXPECT_EQ(b.cache.writebacks(), touch ? 0u : 1u) << touch;
        const std::uint64_t missesBefore = b.cache.misses();
        b.probe.request(false, touch ? setStride : 0, 8, t += kSpaced);
        EXPECT_EQ(b.cache.misses(), missesBefore + 1) << "the victim was " << (touch ? "line S" : "line 0");
    }
}

// Set 1 holds lines S+1, 2S+1, 3S+1 (S the set stride) and line 1, which the next-line
// prefetcher brought when line 0 missed; the three are read again, then line 1 is used, then a
// fifth line needs a victim. A use that touches makes line 1 the most recent (line S+1 leaves);
// with `prefetch_uses_touch: false` line 1 keeps the place its prefetch gave it, the oldest.
TEST(CachePrefetch, AFirstUseTouchesAPrefetchedLineUnlessPrefetchUsesTouchIsOff) {
    for (const bool touch : {true, false}) {
        test::freshKernel();
        CacheBench b(std::string("prefetcher: {kind: next-line, degree: 1}\n") +
                     (touch ? "" : "prefetch_uses_touch: false\n"));
        test::elaborate();
        const std::uint64_t setStride = kSets * kLine;
        Tick t = 0;
        for (std::uint64_t w = 1; w < kWays; ++w)
            b.probe.request(false, w * setStride + kLine, 8, t += kSpaced);
        b.probe.request(false, 0, 8, t += kSpaced);  // misses; line 1 prefetched into set 1
        for (std::uint64_t w = 1; w < kWays; ++w)
            b.probe.request(false, w * setStride + kLine, 8, t += kSpaced);
        const std::uint64_t hitsBefore = b.cache.hits();
        b.probe.request(false, kLine, 8, t += kSpaced);  // the prefetched line's first use
        EXPECT_EQ(b.cache.hits(), hitsBefore + 1);
        b.probe.request(false, kWays * setStride + kLine, 8, t += kSpaced);  // needs a victim
        const std::uint64_t missesBefore = b.cache.misses();
        b.probe.request(false, touch ? setStride + kLine : kLine, 8, t += kSpaced);
        EXPECT_EQ(b.cache.misses(), missesBefore + 1) << "the victim was " << (touch ? "line S+1" : "line 1");
    }
}

// Three lines read into one set, then a store misses on a fourth (a 16 B store: its line is
// fetched); a fifth line needs a victim. By default the stored line is the most recent and line 0,
// the oldest read, leaves; with `store_fills_at_lru` the stored line entered at the LRU position
// and leaves first (dirty: a write-back). A streamed store (no fetch) enters as any fill does.
TEST(CacheWrites, ALineFetchedForAStoreEntersAtTheLruPositionWhenAsked) {
    for (const bool atLru : {false, true}) {
        test::freshKernel();
        CacheBench b(std::string("write_granule: 16 B\n") + (atLru ? "store_fills_at_lru: true\n" : ""));
        test::elaborate();
        const std::uint64_t setStride = kSets * kLine;
        Tick t = 0;
        for (std::uint64_t w = 0; w < kWays - 1; ++w)
            b.probe.request(false, w * setStride, 8, t += kSpaced);
        b.probe.request(true, (kWays - 1) * setStride, 16, t += kSpaced);
        EXPECT_EQ(b.cache.bytesFromNext(), kWays * kLine);  // the store's line was fetched
        b.probe.request(false, kWays * setStride, 8, t += kSpaced);
        EXPECT_EQ(b.cache.writebacks(), atLru ? 1u : 0u) << atLru;
        const std::uint64_t missesBefore = b.cache.misses();
        b.probe.request(false, 0, 8, t += kSpaced);  // line 0: gone only where it was the victim
        EXPECT_EQ(b.cache.misses(), missesBefore + (atLru ? 0u : 1u)) << atLru;
    }
    test::freshKernel();
    EXPECT_THROW(CacheBench("policy: plru\nstore_fills_at_lru: true\n"), config::ConfigError);
    EXPECT_THROW(CacheBench("policy: random\nstore_fills_at_lru: true\n"), config::ConfigError);
}

// A line read into a set, then store misses on five more lines of the set, all but the first
// in write streaming (allocated without a fetch). By default a streamed line is the most recent
// and the read line, the oldest, leaves when the set fills; with `streamed_at_lru` each streamed
// line enters at the LRU position and is the next victim, so the read line and the first
// (fetched) store's line stay.
TEST(CacheWrites, ALineAllocatedInWriteStreamingEntersAtTheLruPositionWhenAsked) {
    for (const bool atLru : {false, true}) {
        test::freshKernel();
        CacheBench b(std::string("write_granule: 16 B\nwrite_streaming: 1\n") +
                     (atLru ? "streamed_at_lru: true\n" : ""));
        test::elaborate();
        const std::uint64_t setStride = kSets * kLine;
        Tick t = 0;
        b.probe.request(false, 0, 8, t += kSpaced);
        for (std::uint64_t w = 1; w <= kWays + 1; ++w)
            b.probe.request(true, w * setStride, 16, t += kSpaced);
        EXPECT_EQ(b.cache.streamedAllocations(), kWays) << atLru;
        EXPECT_EQ(b.cache.bytesFromNext(), 2 * kLine) << atLru;  // the read and the first store
        const std::uint64_t missesBefore = b.cache.misses();
        b.probe.request(false, 0, 8, t += kSpaced);
        EXPECT_EQ(b.cache.misses(), missesBefore + (atLru ? 0u : 1u)) << atLru;
    }
    test::freshKernel();
    EXPECT_THROW(CacheBench("policy: plru\nstreamed_at_lru: true\n"), config::ConfigError);
    EXPECT_THROW(CacheBench("policy: random\nstreamed_at_lru: true\n"), config::ConfigError);
}

TEST(CacheWrites, WriteGranuleMustBeAPowerOfTwoWithinTheLine) {
    test::freshKernel();
    EXPECT_THROW(CacheBench("write_granule: 24 B\n"), config::ConfigError);
    EXPECT_THROW(CacheBench("write_granule: 128 B\n"), config::ConfigError);
}

TEST(Cache, HitAndMissLatencies) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    Tick miss = b.probe.request(false, 4096, 8, 0);
    // Tag check (2 cycles), then the next level: 64 B at 10 GB/s (6.4 ns) + 50 ns.
    EXPECT_EQ(miss, 2000u + 6400u + 50000u);
    Tick hit = b.probe.request(false, 4096 + 8, 8, 100000) - 100000;
    EXPECT_EQ(hit, 2000u);
    // A hit on a line whose fill is in flight waits for the fill (merged miss).
    Tick pending = b.probe.request(false, 8192, 8, 200000);
    EXPECT_EQ(b.probe.request(false, 8192 + 8, 8, 201000), pending);
}

TEST(Cache, APortHeldSeveralCyclesPerLineSpacesHitsAndBoundsThePeak) {
    for (const std::uint64_t cycles : {1u, 4u}) {
        test::freshKernel();
        CacheBench b(cycles == 1 ? "" : "port_occupancy: 4\n");
        test::elaborate();
        for (std::uint64_t l = 0; l < 8; ++l)  // warm: eight lines present
            b.probe.request(false, l * kLine, 8, l * kSpaced);
        // Eight hits presented at once: the port takes one every `cycles` cycles (1 GHz).
        Tick last = 0;
        for (std::uint64_t l = 0; l < 8; ++l)
            last = std::max(last, b.probe.request(false, l * kLine, 8, 10 * kSpaced));
        EXPECT_EQ(last - 10 * kSpaced, 7 * cycles * 1000 + 2000) << cycles;
        EXPECT_DOUBLE_EQ(b.cache.peakBandwidth(), 64e9 / static_cast<double>(cycles)) << cycles;
    }
}

TEST(CacheWrites, StoresHoldThePortForTheirBytesAtStoreBytesPerCycle) {
    for (const bool rated : {false, true}) {
        test::freshKernel();
        CacheBench b(rated ? "store_bytes_per_cycle: 16\n" : "");
        test::elaborate();
        for (std::uint64_t l = 0; l < 8; ++l)  // warm: eight lines present
            b.probe.request(false, l * kLine, 8, l * kSpaced);
        // Eight whole-line stores that hit, presented at once: at 16 B/cycle each holds the port
        // 4 cycles (1 GHz), else one look-up's cycle.
        const Tick at = 10 * kSpaced;
        Tick last = 0;
        for (std::uint64_t l = 0; l < 8; ++l)
            last = std::max(last, b.probe.request(true, l * kLine, kLine, at));
        const Tick hold = rated ? 4000 : 1000;
        EXPECT_EQ(last - at, 7 * hold + 2000) << rated;
        // A load presented with them waits for the port behind all eight.
        EXPECT_EQ(b.probe.request(false, 0, 8, at) - at, 8 * hold + 2000) << rated;
        // A 16 B store holds it one cycle (its bytes at 16 B/cycle); loads always one cycle.
        const Tick later = 20 * kSpaced;
        b.probe.request(true, 0, 16, later);
        EXPECT_EQ(b.probe.request(false, kLine, 8, later) - later, 1000u + 2000u) << rated;
    }
    test::freshKernel();
    EXPECT_THROW(CacheBench("store_bytes_per_cycle: -1\n"), config::ConfigError);
}

TEST(Cache, AFillAndADirtyVictimsReadOutHoldThePortForFillOccupancy) {
    for (const std::uint64_t cycles : {0u, 3u}) {
        test::freshKernel();
        CacheBench b(cycles == 0 ? "" : "fill_occupancy: 3\n");
        test::elaborate();
        b.probe.request(false, 0, 8, 0);  // line 0 present
        // A miss: its line arrives at `filled`; a hit presented at the next edge (1 GHz) waits
        // while the line is written in.
        const Tick filled = b.probe.request(false, 8 * kLine, 8, kSpaced);
        const Tick edge = (filled + 999) / 1000 * 1000;
        EXPECT_EQ(b.probe.request(false, 0, 8, edge) - edge, cycles * 1000 + 2000) << cycles;
        // Set 0 (128 sets of 4 ways) full of dirty lines: a read miss evicts the oldest, whose
        // read-out holds the port from the end of the tag check (2 ns), delaying a hit then.
        const Tick at = 10 * kSpaced;
        for (std::uint64_t w = 1; w <= 4; ++w)
            b.probe.request(true, w * 128 * kLine, kLine, at + w * kSpaced);
        const Tick miss = 20 * kSpaced;
        b.probe.request(false, 5 * 128 * kLine, 8, miss);
        EXPECT_EQ(b.probe.request(false, 2 * 128 * kLine, 8, miss + 2000) - (miss + 2000),
                  cycles * 1000 + 2000)
            << cycles;
    }
    test::freshKernel();
    EXPECT_THROW(CacheBench("fill_occupancy: -1\n"), config::ConfigError);
}

// A write-back from the level above holds the port for write_back_occupancy (default
// port_occupancy), a read for port_occupancy: a hit presented the cycle after either waits for it.
TEST(Cache, AWriteBackHoldsThePortForWriteBackOccupancy) {
    for (const std::uint64_t writeBack : {0u, 6u}) {
        test::freshKernel();
        CacheBench b(
            "port_occupancy: 2\n" +
            (writeBack == 0 ? std::string() : "write_back_occupancy: " + std::to_string(writeBack) + "\n"));
        test::elaborate();
        const std::uint64_t hold = writeBack == 0 ? 2 : writeBack;
        b.probe.request(false, 0, 8, 0);  // line 0 present
        AccessExtension fromAbove;
        fromAbove.source = AccessSource::CacheWriteBack;
        const Tick at = kSpaced;
        b.probe.request(true, 8 * kLine, kLine, at, &fromAbove);
        EXPECT_EQ(b.probe.request(false, 0, 8, at + 1000) - (at + 1000), (hold - 1) * 1000 + 2000)
            << writeBack;
        // A read holds it for port_occupancy whatever write_back_occupancy is.
        const Tick later = 2 * kSpaced;
        b.probe.request(false, 8, 8, later);
        EXPECT_EQ(b.probe.request(false, 0, 8, later + 1000) - (later + 1000), 1000u + 2000u) << writeBack;
    }
    test::freshKernel();
    EXPECT_THROW(CacheBench("write_back_occupancy: 0\n"), config::ConfigError);
}

TEST(Cache, MshrsLimitOutstandingMisses) {
    test::freshKernel();
    CacheBench b("ports: 16\n");
    test::elaborate();
    // 16 misses at once with 8 MSHRs: the second 8 wait for the first 8.
    for (std::uint64_t i = 0; i < 16; ++i)
        b.probe.request(false, i * kLine, 8, 0);
    EXPECT_EQ(b.cache.mshrStalls(), 8u);
}

TEST(Cache, CheaperPoliciesBehave) {
    for (const char* policy : {"plru", "random"}) {
        test::freshKernel();
        CacheBench b(std::string("policy: ") + policy + "\n");
        test::elaborate();
        // A working set that fits is policy-independent.
        b.read(range(kSize / 8, 8));
        b.read(range(kSize / 8, 8));
        EXPECT_EQ(b.cache.misses(), kSize / kLine) << policy;
        // The cyclic W + 1 pattern: LRU gets no hits, these keep some.
        b.cache.resetTiming();
        b.read(range(kWays + 1, kSize));
        for (int pass = 0; pass < 20; ++pass)
            b.read(range(kWays + 1, kSize));
        EXPECT_GT(b.cache.hits(), 0u) << policy;
    }
}

TEST(Cache, FunctionalDataPassesThroughToTheNextLevel) {
    test::freshKernel();
    CacheBench b;
    test::elaborate();
    const char text[] = "tessim";
    b.cache.debugWrite(1000, text, sizeof text);
    char back[sizeof text] = {};
    b.mem.debugRead(1000, back, sizeof back);
    EXPECT_STREQ(back, text);
    // A functional timed read through the cache sees the same bytes.
    tlm::tlm_generic_payload gp;
    AccessExtension ext;
    ext.functional = true;
    std::vector<unsigned char> data(sizeof text);
    gp.set_extension(&ext);
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(1000);
    gp.set_data_ptr(data.data());
    gp.set_data_length(sizeof text);
    gp.set_streaming_width(sizeof text);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    b.probe.socket->b_transport(gp, delay);
    gp.clear_extension(&ext);
    EXPECT_TRUE(gp.is_response_ok());
    EXPECT_EQ(std::memcmp(data.data(), text, sizeof text), 0);
}

}  // namespace
}  // namespace tessim
