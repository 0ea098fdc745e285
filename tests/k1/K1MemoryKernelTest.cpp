// memcpy and memset on the k1 target through the command line: cache hit and miss counts equal
// their closed forms, time per regime (L1-, L2-resident, DDR) is at least its bound, threads
// split the work over one cluster, and functional runs copy and fill every byte.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

constexpr std::uint64_t kLine = 64;             // B (facts)
constexpr std::uint64_t kL1Lines = 32768 / 64;  // 32 KiB L1D (facts)
constexpr std::uint64_t kChunk = 256;           // B per vle32/vse32 at LMUL 8 (VLEN 256)
// Cycles of one LMUL-8 load and store (facts: vle32 16.5, vse32 19.7): the load/store unit's bound.
constexpr double kChunkBoundCycles = 16.5 + 19.7;
// Cycles a store waits for its LMUL-8 load's data beyond the load's own (k1.yaml vload latency at
// m8, calibrated against the board's memcpy curve at L1-resident sizes).
constexpr double kLoadToStoreM8 = 13;
// Cycles the L2's port is held per line (calibrated at L2-resident sizes).
constexpr double kL2ReadCycles = 5;       // k1.yaml: cluster.l2.port_occupancy, a line read
constexpr double kL2WriteBackCycles = 7;  // k1.yaml: cluster.l2.write_back_occupancy
constexpr double kClockHz = 1.6e9;        // (facts)
constexpr double kDdrPeak = 10.66e9;      // B/s (facts)
// Whether a store that misses reads its line from the next level first even when it writes the
// whole line (write-allocate with a fill). An LMUL-8 vse32 writes four whole lines, but k1's L1
// takes them 16 B at a time (write_granule) and a copy's loads keep it out of write streaming.
constexpr bool kWholeLineStoreMissFills = true;
// The closed forms count demand misses: the L1's prefetcher off.
const std::string kNoPrefetch = " --set target.cluster.l1.prefetcher.kind=none";

Json run(const std::string& args) {
    auto r = runTessim("run --target k1 " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

Json memcpy(std::uint64_t bytes, unsigned repeat, unsigned threads = 1, const std::string& extra = "") {
    return run("--workload memcpy --set workload.bytes=" + std::to_string(bytes) +
               "B --set workload.repeat=" + std::to_string(repeat) +
               " --set plan.threads=" + std::to_string(threads) + " " + extra);
}

std::uint64_t stat(const Json& r, const std::string& cache, const std::string& key) {
    return r["stats"]["k1"][cache][key]["value"].get<std::uint64_t>();
}

std::uint64_t cycles(const Json& r) {
    return r["cycles"].get<std::uint64_t>();
}

// Lines a copy's stores read from the next level before writing them (see above).
std::uint64_t storeFills(std::uint64_t lines) {
    return kWholeLineStoreMissFills ? lines : 0;
}

TEST(K1Memcpy, L1ResidentCopyMissesOnceAndThenHits) {
    const std::uint64_t bytes = 8192, lines = bytes / kLine;
    const unsigned repeat = 3;
    Json r = memcpy(bytes, repeat, 1, kNoPrefetch);
    EXPECT_EQ(stat(r, "l1_0", "read_misses"), lines);
    EXPECT_EQ(stat(r, "l1_0", "write_misses"), lines);
    EXPECT_EQ(stat(r, "l1_0", "hits"), (repeat - 1) * 2 * lines);
    // Nothing is evicted; the destination, dirty at the end, is written back then.
    EXPECT_EQ(stat(r, "l1_0", "writebacks"), lines);
    EXPECT_EQ(stat(r, "l1_0", "dirty_at_end_bytes"), bytes);
    EXPECT_EQ(stat(r, "l2_0", "read_misses"), lines + storeFills(lines));
    // The destination's write-backs at the end find the lines its store misses filled.
    EXPECT_EQ(stat(r, "l2_0", "hits"), storeFills(lines));
    EXPECT_EQ(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), (lines + storeFills(lines)) * kLine);
}

TEST(K1Memcpy, L2ResidentCopyMissesTheL1EveryPassAndTheL2OnlyOnTheFirst) {
    // 2 × 64 KiB exceed the L1 and fit the 512 KiB L2; LRU streaming evicts every L1 line
    // before it is used again.
    const std::uint64_t bytes = 65536, lines = bytes / kLine;
    const unsigned repeat = 2;
    Json r = memcpy(bytes, repeat, 1, kNoPrefetch);
    EXPECT_EQ(stat(r, "l1_0", "hits"), 0u);
    EXPECT_EQ(stat(r, "l1_0", "read_misses"), repeat * lines);
    EXPECT_EQ(stat(r, "l1_0", "write_misses"), repeat * lines);
    // Every destination line filled is written back. A destination line enters at the LRU
    // position (store_fills_at_lru) and is its set's next victim: one way of the four holds a
    // dirty line at the end of the run, the source the other three.
    EXPECT_EQ(stat(r, "l1_0", "writebacks"), repeat * lines);
    EXPECT_EQ(stat(r, "l1_0", "dirty_at_end_bytes"), kL1Lines / 4 * kLine);
    EXPECT_EQ(stat(r, "l2_0", "reads"), repeat * (lines + storeFills(lines)));
    EXPECT_EQ(stat(r, "l2_0", "writes"), stat(r, "l1_0", "writebacks"));
    EXPECT_EQ(stat(r, "l2_0", "read_misses"), lines + storeFills(lines));
    // A destination line's first write-back finds it in the L2 if a store miss filled it;
    // otherwise it allocates the line there, once.
    const std::uint64_t writeMisses = kWholeLineStoreMissFills ? 0 : lines;
    EXPECT_EQ(stat(r, "l2_0", "write_misses"), writeMisses);
    EXPECT_EQ(stat(r, "l2_0", "hits"),
              (repeat - 1) * (lines + storeFills(lines)) + stat(r, "l2_0", "writes") - writeMisses);
}

TEST(K1Memcpy, DdrCopyMissesEveryLineOnceInTheL2) {
    const std::uint64_t bytes = 4 << 20, lines = bytes / kLine;
    Json r = memcpy(bytes, 1, 1, kNoPrefetch);
    EXPECT_EQ(stat(r, "l2_0", "read_misses"), lines + storeFills(lines));
    EXPECT_EQ(stat(r, "l2_0", "write_misses"), kWholeLineStoreMissFills ? 0 : stat(r, "l1_0", "writebacks"));
    EXPECT_EQ(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), (lines + storeFills(lines)) * kLine);
    // The cold source comes from DDR once; written lines may stay dirty in the L2 at the end.
    EXPECT_GE(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), bytes);
}

// Cycles of one warm pass: the difference of two runs that differ only in passes.
double warmPassCycles(std::uint64_t bytes, unsigned fewer, unsigned more) {
    return static_cast<double>(cycles(memcpy(bytes, more)) - cycles(memcpy(bytes, fewer))) / (more - fewer);
}

TEST(K1Memcpy, L1ResidentPassIsWithinTenPercentOfTheLoadStoreBound) {
    const std::uint64_t bytes = 8192;
    const double bound = static_cast<double>(bytes / kChunk) * kChunkBoundCycles;
    const double pass = warmPassCycles(bytes, 2, 12);
    EXPECT_GE(pass, bound);
    // The load/store unit and the store's wait for its load's data limit: 16.5 + 19.7 + 13 cycles
    // per 256 B (the vsetvl every iteration, one per 6 cycles, hides beside them).
    EXPECT_LE(pass, 1.40 * bound) << pass << " vs " << bound;
    EXPECT_NEAR(pass, static_cast<double>(bytes / kChunk) * (kChunkBoundCycles + kLoadToStoreM8), 0.2);
}

TEST(K1Memcpy, L2ResidentPassIsAtLeastItsBound) {
    const std::uint64_t bytes = 65536, lines = bytes / kLine;
    // Load/store unit, or the L2's port for 2 fills (5 cycles a line) and 1 write-back (7) per
    // destination line, whichever is slower.
    const double lsu = static_cast<double>(bytes / kChunk) * kChunkBoundCycles;
    const double l2Port = static_cast<double>(lines) * (2 * kL2ReadCycles + kL2WriteBackCycles);
    const double bound = std::max(lsu, l2Port);
    const double pass = warmPassCycles(bytes, 2, 4);
    EXPECT_GE(pass, bound);
    // Measured 1.003 × the bound: the L2's port sets the pace (the prefetcher keeps the L1's
    // misses ahead of the loads).
    EXPECT_LE(pass, 1.05 * bound) << pass << " vs " << bound;
}

TEST(K1Memcpy, DdrCopyIsAtLeastItsBandwidthBound) {
    const std::uint64_t bytes = 16 << 20;
    Json r = memcpy(bytes, 1);
    const double seconds = static_cast<double>(cycles(r)) / kClockHz;
    const double moved = static_cast<double>(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>() +
                                             r["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>());
    // The copy must read the source and write the destination once: 2 × bytes at the peak.
    const double compulsoryBound = 2.0 * static_cast<double>(bytes) / kDdrPeak;
    EXPECT_GE(seconds, moved / kDdrPeak);
    EXPECT_GE(moved, 2.0 * static_cast<double>(bytes) * 0.98);  // the L2 may keep its last dirty lines
    EXPECT_GE(seconds, compulsoryBound);
    // Measured 3.17 × the compulsory bound: store misses fill (3 × bytes cross the DDR bus) and
    // the prefetcher keeps the DDR busy (without it, one LMUL-8 load in flight made the pace 4.1 ×).
    EXPECT_LE(seconds, (kWholeLineStoreMissFills ? 3.4 : 2.0) * compulsoryBound) << seconds / compulsoryBound;
}

TEST(K1Memcpy, FourThreadsOnOneClusterSpeedADdrCopyUpByLessThanFour) {
    const std::uint64_t bytes = 16 << 20;
    Json one = memcpy(bytes, 1, 1, kNoPrefetch);
    Json four = memcpy(bytes, 1, 4, kNoPrefetch);
    const double speedup = static_cast<double>(cycles(one)) / static_cast<double>(cycles(four));
    EXPECT_GT(speedup, 1.0);
    EXPECT_LT(speedup, 4.0);
    EXPECT_EQ(four["plan"]["config"]["engines"], (Json{"core0", "core1", "core2", "core3"}));
    // One cluster: the other cluster's L2 and cores stay idle.
    EXPECT_EQ(stat(four, "l2_1", "reads"), 0u);
    EXPECT_EQ(four["engines"]["core4"]["stall"]["idle"].get<double>(), 1.0);
    // Each thread's slice misses its own L1 once per line, source and destination.
    for (const char* l1 : {"l1_0", "l1_1", "l1_2", "l1_3"})
        EXPECT_EQ(stat(four, l1, "read_misses"), bytes / 4 / kLine) << l1;
}

TEST(K1Memcpy, ThreadsForkAndJoinAndShowSync) {
    Json r = memcpy(65536, 1, 4);
    // Threads 1–3 wait for the fork (at least fork_latency, 100 cycles); every thread waits at
    // the closing barrier (barrier_latency, 200 cycles, after the last arrival).
    for (const char* core : {"core1", "core2", "core3"})
        EXPECT_GE(r["engines"][core]["cycles"]["sync"].get<std::uint64_t>(), 300u) << core;
    EXPECT_GE(r["engines"]["core0"]["cycles"]["sync"].get<std::uint64_t>(), 200u);
    EXPECT_EQ(r["plan"]["config"]["threads"].get<unsigned>(), 4u);
}

TEST(K1Memcpy, ReportsBytesPerCycle) {
    Json r = memcpy(4096, 2);
    const auto& w = r["stats"]["workload"];
    EXPECT_EQ(w["bytes"]["value"].get<std::uint64_t>(), 8192u);
    EXPECT_DOUBLE_EQ(w["bytes_per_cycle"]["value"].get<double>(), 8192.0 / static_cast<double>(cycles(r)));
}

TEST(K1MemoryKernels, FunctionalRunsCopyAndFillEveryByte) {
    // A length that leaves a short tail and slices of unequal length.
    for (const char* kernel : {"memcpy", "memset"})
        for (const char* threads : {"1", "3"}) {
            Json r =
                run(std::string("--workload ") + kernel +
                    " --functional --set workload.bytes=100004B --set workload.repeat=2 --set plan.threads=" +
                    threads);
            ASSERT_TRUE(r.contains("functional")) << kernel;
            EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 100004u) << kernel;
            EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
                << kernel << " " << threads << ": " << r["functional"].dump();
        }
}

// plan.sew: 8 (memcpy's and memset's default) copies and fills any number of bytes (the board's
// `vsetvli e8,m8; vle8; vse8` loop), 16 halves; the X60 prices a vector access by its register
// group, so an e8 pass of a multiple of 4 B takes the e32 pass's cycles.
TEST(K1MemoryKernels, ByteElementsCopyAndFillAnyLength) {
    for (const char* kernel : {"memcpy", "memset"}) {
        Json r = run(std::string("--workload ") + kernel + " --functional --set workload.bytes=987B");
        EXPECT_EQ(r["plan"]["config"]["sew"], 8) << kernel;
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << kernel;
    }
    for (const char* kernel : {"memcpy", "memset"})
        for (const char* threads : {"1", "3"}) {
            const std::string value = std::string(kernel) == "memset" ? " --set workload.value=200" : "";
            Json r = run(
                std::string("--workload ") + kernel + value +
                " --functional --set workload.bytes=100003B --set plan.sew=8 --set plan.threads=" + threads);
            EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 100003u) << kernel;
            EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << kernel << " " << threads;
            EXPECT_EQ(r["plan"]["config"]["sew"], 8);
        }
    Json half = run("--workload memset --functional --set workload.bytes=1002B --set workload.value=200 "
                    "--set plan.sew=16");
    EXPECT_EQ(half["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    const std::string copy = "--workload memcpy --set workload.bytes=64KiB --set plan.sew=";
    EXPECT_EQ(cycles(run(copy + "8")), cycles(run(copy + "32")));
    auto wide = runTessim("run --target k1 --workload memcpy --set plan.sew=64");
    EXPECT_EQ(wide.exitCode, 2);
    EXPECT_NE(wide.err.find("sew: 64 is out of range"), std::string::npos) << wide.err;
}

// Each pass's loop ends in its exit branch, predicted taken as every iteration before it: the
// core pays its 9-cycle mispredict penalty once a pass (k1.yaml mispredict_penalty), and nothing
// else stalls a vsetvli-bound rvv_m1 memset of 1 KiB in the L1.
TEST(K1MemoryKernels, EachPassEndsInOneMispredictedLoopExit) {
    for (const unsigned repeat : {1u, 3u}) {
        Json r = run("--workload memset --set workload.bytes=1KiB --set plan.lmul=1 --set workload.repeat=" +
                     std::to_string(repeat));
        EXPECT_EQ(r["engines"]["core0"]["cycles"]["branch"].get<std::uint64_t>(), 9u * repeat) << repeat;
    }
}

// Each pass is a call of memset: it sets the vector length to VLMAX and splats its byte before its
// loop (no vector register outlives a call), as tests/riscv/programs/memory_rvv.c's set_rvv does.
TEST(K1MemoryKernels, EachMemsetPassSplatsItsByte) {
    for (const unsigned repeat : {1u, 3u}) {
        Json r = run("--workload memset --set workload.bytes=1KiB --set plan.lmul=8 --set workload.repeat=" +
                     std::to_string(repeat));
        const Json& core = r["stats"]["k1"]["core0"];
        EXPECT_EQ(core["vfpu"]["broadcast_i8_ops"]["value"].get<std::uint64_t>(), repeat) << repeat;
        // 1 KiB at m8: 4 iterations, each with its vsetvli, and the pass's own.
        EXPECT_EQ(core["vector_config"]["vsetvl_i8_ops"]["value"].get<std::uint64_t>(), 5u * repeat)
            << repeat;
    }
}

TEST(K1MemoryKernels, MemsetWritesWithoutReading) {
    const std::uint64_t bytes = 8192, lines = bytes / kLine;
    Json r = run("--workload memset --set workload.bytes=8192B --set workload.repeat=2");
    EXPECT_EQ(stat(r, "l1_0", "reads"), 0u);
    EXPECT_EQ(stat(r, "l1_0", "write_misses"), lines);
    EXPECT_EQ(stat(r, "l1_0", "hits"), lines);
}

// A memset larger than the L1 (48 KiB: six lines a set of four ways) streams its stores: the
// lines are allocated without a fetch, each at its set's LRU position (k1.yaml streamed_at_lru), so
// the lines already there stay and three of the four ways hit on every later pass — the board's
// memset past the L1 runs as an L1's worth of hits and the rest streamed. With streamed lines
// entering as the most recent, a cyclic fill larger than the cache keeps none.
TEST(K1MemoryKernels, AMemsetLargerThanTheL1KeepsThreeWaysOfItFromPassToPass) {
    const std::string args = "--workload memset --set workload.bytes=48KiB --set workload.repeat=3";
    Json kept = run(args);
    Json none = run(args + " --set target.cluster.l1.streamed_at_lru=false");
    EXPECT_EQ(stat(kept, "l1_0", "hits"), 2 * (kL1Lines / 4 * 3));
    EXPECT_EQ(stat(none, "l1_0", "hits"), 0u);
    EXPECT_EQ(stat(kept, "l1_0", "hits") + stat(kept, "l1_0", "write_misses"), 3 * 48 * 1024 / kLine);
    EXPECT_LT(cycles(kept), cycles(none));
}

TEST(K1MemoryKernels, NoRunMovesDdrBytesFasterThanTheDdrsPeak) {
    // Whatever the caches do, the bytes that cross the DDR bus during the run take at least
    // their time at the peak rate.
    for (const char* kernel : {"memcpy", "memset"})
        for (const char* threads : {"1", "4"}) {
            Json r = run(std::string("--workload ") + kernel +
                         " --set workload.bytes=16MiB --set plan.threads=" + threads);
            const double moved = static_cast<double>(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>() +
                                                     r["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>());
            EXPECT_GE(static_cast<double>(cycles(r)) / kClockHz, moved / kDdrPeak)
                << kernel << " " << threads;
        }
}

TEST(K1MemoryKernels, BadSizesAndThreadCountsAreConfigErrors) {
    auto odd = runTessim("run --target k1 --workload memcpy --set workload.bytes=1001B --set plan.sew=32");
    EXPECT_EQ(odd.exitCode, 2);
    EXPECT_NE(odd.err.find("bytes: 1001 B is not a whole number of 32-bit elements (a multiple of 4 B; "
                           "plan.sew: 8 takes any number of bytes)"),
              std::string::npos)
        << odd.err;
    auto many = runTessim("run --target k1 --workload memcpy --set plan.threads=9");
    EXPECT_EQ(many.exitCode, 2);
    EXPECT_NE(
        many.err.find("threads: the plan asks for 9 threads but target 'k1' has 8 main compute engines"),
        std::string::npos)
        << many.err;
}

// workload.distance places a copy's destination: by default it starts on the page after the
// source, so the buffers' relation in the DDR's banks moves with the size. At 526396 B they lie
// 0x81000 apart, which k1's xor-row bank hash folds into one bank: every switch between a source
// read and a destination write opens another row. 32 MiB apart they share no bank.
TEST(K1Memcpy, DistanceMovesTheDestinationAndWithItTheDdrsRowConflicts) {
    const std::uint64_t bytes = 526396;
    const Json after = memcpy(bytes, 1);
    const Json apart = memcpy(bytes, 1, 1, "--set workload.distance=32MiB");
    EXPECT_EQ(apart["workload"]["config"]["distance"].get<std::uint64_t>(), 32u << 20);
    // The same lines move either way (but for a few the prefetcher reads past the source's end).
    EXPECT_NEAR(static_cast<double>(stat(after, "ddr", "bytes_read")),
                static_cast<double>(stat(apart, "ddr", "bytes_read")), 16.0 * kLine);
    EXPECT_EQ(stat(after, "ddr", "bytes_written"), stat(apart, "ddr", "bytes_written"));
    EXPECT_GT(stat(after, "ddr", "row_misses"), 3 * stat(apart, "ddr", "row_misses"));
    EXPECT_GT(static_cast<double>(cycles(after)), 1.15 * static_cast<double>(cycles(apart)));
    // Every byte still lands where it should.
    auto functional = runTessim("run --target k1 --workload memcpy --set workload.bytes=5000B "
                                "--set workload.distance=64KiB --functional");
    EXPECT_EQ(functional.exitCode, 0) << functional.err;
}

TEST(K1Memcpy, ADistanceThatOverlapsOrLeavesThePageIsRefused) {
    for (const char* bad : {"4KiB", "12345B"}) {
        auto r = runTessim(
            "run --target k1 --workload memcpy --set workload.bytes=5000B --set workload.distance=" +
            std::string(bad));
        EXPECT_EQ(r.exitCode, 2) << bad;
        EXPECT_TRUE(r.out.empty()) << bad;
        EXPECT_NE(r.err.find("distance: the destination must start on a 4096 B page at or after the source's "
                             "end: a multiple of 4096 B of at least 8192 B"),
                  std::string::npos)
            << r.err;
    }
    auto memset = runTessim("run --target k1 --workload memset --set workload.distance=64KiB");
    EXPECT_EQ(memset.exitCode, 2);
    EXPECT_NE(memset.err.find("distance"), std::string::npos) << memset.err;
}

}  // namespace
}  // namespace tessim
