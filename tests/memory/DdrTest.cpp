// DDR model against closed forms: row-hit/miss latencies exactly, streaming bandwidth against
// peak × (1 − refresh overhead), random reads against the bank-cycle bound.
#include <gtest/gtest.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Ddr.h"
#include "models/memory/MemoryProbe.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using test::configFrom;

// One LPDDR4X-2666 channel, one rank: no other bank or rank hides anything.
const char* kOneChannel = "preset: lpddr4x-2666-x32\nchannels: 1\nranks: 1\nsize: 1 GiB\n";

struct DdrBench {
    Ddr ddr;
    MemoryProbe probe;
    DdrBench(const DdrConfig& c, ProbeOptions o = {})
        : ddr("ddr", c), probe(
                             "probe", [this] { ddr.resetTiming(); }, o) {
        probe.socket.bind(ddr.socket);
    }
};

// Read command to first data: the command's extra cycles, CL and tDQSCK (LPDDR4).
std::uint64_t readLat(const DdrConfig& c) {
    return c.columnCycles - 1 + c.t.tCL + c.t.tDQSCK;
}

std::uint64_t cycles(const DdrConfig& c, Tick t) {
    EXPECT_EQ(t % c.clock.period, 0u) << "not on a clock edge";
    return t / c.clock.period;
}

void checkLatencies(const DdrConfig& c) {
    test::freshKernel();
    DdrBench b(c);
    test::elaborate();
    const DdrTiming& t = c.t;
    const std::uint64_t burst = c.burstCycles(), bytes = c.burstBytes();
    const DdrAddressMap& m = b.ddr.addressMap();
    auto at3 = [&](std::uint64_t row, std::uint64_t offset) {
        return m.encode(DdrLocation{0, 0, 3, row, offset});
    };
    // Idle bank: activate, then read.
    Tick done = b.probe.request(false, at3(10, 0), bytes, 0);
    EXPECT_EQ(cycles(c, done), t.tRCD + readLat(c) + burst);
    // Open row: column read only.
    Tick at = c.clock.at(1000);
    EXPECT_EQ(cycles(c, b.probe.request(false, at3(10, bytes), bytes, at) - at), readLat(c) + burst);
    // Another row of the same bank: precharge, activate, read.
    at = c.clock.at(2000);
    EXPECT_EQ(cycles(c, b.probe.request(false, at3(11, 0), bytes, at) - at),
              t.tRP + t.tRCD + readLat(c) + burst);
    // Two bursts on an open row: CL + 2 bursts (tCCD_L apart: one bank is one bank group).
    at = c.clock.at(3000);
    const std::uint64_t two = at3(11, 2 * bytes);
    if (two + bytes == at3(11, 3 * bytes)) {
        EXPECT_EQ(cycles(c, b.probe.request(false, two, 2 * bytes, at) - at),
                  readLat(c) + std::max(burst, t.tCCD_L) + burst);
    } else {
        // Bank groups interleaved at burst granularity: the second burst is in another bank.
        EXPECT_EQ(cycles(c, b.probe.request(false, two, bytes, at) - at), readLat(c) + burst);
    }
    EXPECT_EQ(b.ddr.rowHits(), 2u);
    EXPECT_EQ(b.ddr.rowMisses(), 1u);
    EXPECT_EQ(b.ddr.rowEmpty(), 1u);
    EXPECT_EQ(b.ddr.activates(), 2u);
}

TEST(Ddr, Lpddr4xRowHitAndMissLatenciesAreExact) {
    DdrConfig c = configFrom<DdrConfig>(kOneChannel);
    EXPECT_EQ(c.clock.period, 750u);
    EXPECT_EQ(c.t.tRCD, 24u);  // 18 ns / 0.75 ns
    EXPECT_EQ(c.t.tRAS, 56u);
    EXPECT_EQ(c.burstCycles(), 8u);
    checkLatencies(c);
}

TEST(Ddr, Ddr4RowHitAndMissLatenciesAreExact) {
    checkLatencies(configFrom<DdrConfig>("preset: ddr4-2400-x64\n"));
}

TEST(Ddr, K1PresetPeakIs10_66GBps) {
    DdrConfig c = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n");
    // facts/k1-x60.md: 32-bit LPDDR4X-2666, 10.66 GB/s peak (the 0.75 ns clock gives 10.667).
    EXPECT_NEAR(c.peakBandwidth() / 1e9, 10.66, 0.01);
}

TEST(Ddr, SequentialStreamingReachesPeakLessRefresh) {
    for (const char* yaml : {kOneChannel, "preset: ddr4-2400-x64\n"}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(yaml);
        DdrBench b(c, ProbeOptions{64, 64, 0});
        test::elaborate();
        const std::uint64_t n = (32u << 20) / 64;
        for (bool write : {false, true}) {
            b.ddr.resetTiming();
            Tick end = b.probe.stream(write, n, [](std::uint64_t i) { return i * 64; });
            double achieved = static_cast<double>(n * 64) / ticksToSeconds(end);
            double expected = c.peakBandwidth() * (1.0 - c.refreshOverhead());
            EXPECT_NEAR(achieved / expected, 1.0, 0.03) << c.standard << (write ? " write" : " read");
            ::testing::Test::RecordProperty(c.standard + (write ? "_write" : "_read") + "_vs_closed_form",
                                            std::to_string(achieved / expected));
        }
    }
}

TEST(Ddr, RandomReadsAreBoundByBankCycleTime) {
    test::freshKernel();
    // Four banks, so the bank cycle (not the data bus) limits random reads.
    DdrConfig c =
        configFrom<DdrConfig>("preset: lpddr4x-2666-x32\nchannels: 1\nranks: 1\nbanks: 4\nsize: 512 MiB\n"
                              "tRRD: 0\ntFAW: 0\n");  // the bank cycle alone
    DdrBench b(c, ProbeOptions{256, 64, 0});
    test::elaborate();
    const std::uint64_t n = 200000, bursts = 64 / c.burstBytes();
    std::uint64_t state = 12345;
    Tick end = b.probe.stream(false, n, [&](std::uint64_t) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 20) % (c.size / 64) * 64;
    });
    // A bank serves one row miss per max(tRAS, tRCD + tRTP + (bursts − 1)·BL/2) + tRP.
    const DdrTiming& t = c.t;
    std::uint64_t bankCycle = std::max(t.tRAS, t.tRCD + t.tRTP + (bursts - 1) * c.burstCycles()) + t.tRP;
    double bound = c.banks * 64.0 / ticksToSeconds(c.clock.at(bankCycle)) * (1.0 - c.refreshOverhead());
    double achieved = static_cast<double>(n * 64) / ticksToSeconds(end);
    EXPECT_LT(bound, c.peakBandwidth()) << "the test needs the bank bound below the bus peak";
    // Never above the bound; below it by the 4-cycle LPDDR4 commands sharing the command bus.
    EXPECT_LE(achieved, bound);
    EXPECT_GT(achieved, 0.85 * bound);
    ::testing::Test::RecordProperty("random_vs_bank_bound", std::to_string(achieved / bound));
    EXPECT_LT(static_cast<double>(b.ddr.rowHits()) / n, 0.01);
}

TEST(Ddr, RefreshClosesRowsAndBlocksTheRank) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>(kOneChannel);
    DdrBench b(c);
    test::elaborate();
    std::uint64_t a = b.ddr.addressMap().encode(DdrLocation{0, 0, 0, 5, 0});
    b.probe.request(false, a, 32, 0);
    // Arriving inside the first refresh window: waits for its end, then finds the row closed.
    Tick refresh = c.clock.at(c.t.tREFI);
    Tick done = b.probe.request(false, a, 32, refresh + c.clock.at(10));
    EXPECT_EQ(done, refresh + c.clock.at(c.refreshBlockCycles() + c.t.tRCD + readLat(c) + c.burstCycles()));
    EXPECT_EQ(b.ddr.rowEmpty(), 2u);
    EXPECT_EQ(b.ddr.refreshesBy(refresh), 1u);
}

TEST(Ddr, ClosedPagePolicyActivatesEveryAccess) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>(std::string(kOneChannel) + "page_policy: closed\n");
    DdrBench b(c);
    test::elaborate();
    Tick at = c.clock.at(1000);
    b.probe.request(false, 0, 32, 0);
    EXPECT_EQ(b.probe.request(false, 32, 32, at) - at, c.clock.at(c.t.tRCD + readLat(c) + c.burstCycles()));
    EXPECT_EQ(b.ddr.activates(), 2u);
}

TEST(Ddr, FrFcfsServesAnEarlierRowHitAheadOfALaterRowSwitch) {
    for (bool frfcfs : {true, false}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(std::string(kOneChannel) + (frfcfs ? "" : "scheduler: fcfs\n"));
        DdrBench b(c);
        test::elaborate();
        const DdrAddressMap& m = b.ddr.addressMap();
        std::uint64_t row1 = m.encode(DdrLocation{0, 0, 0, 1, 0}),
                      row2 = m.encode(DdrLocation{0, 0, 0, 2, 0});
        b.probe.request(false, row1, 32, 0);
        // Simulated first (temporal decoupling) but arriving later: switches the row at 200 cycles.
        b.probe.request(false, row2, 32, c.clock.at(200));
        // Arrived at 100 cycles while row 1 was open.
        Tick at = c.clock.at(100);
        Tick lat = b.probe.request(false, row1 + 32, 32, at) - at;
        if (frfcfs)
            EXPECT_EQ(lat, c.clock.at(readLat(c) + c.burstCycles()));
        else
            EXPECT_GT(lat, c.clock.at(c.t.tRP + c.t.tRCD + c.t.tCL));
    }
}

TEST(Ddr, RowHistoryOpensAnEarlyRequestsRowBetweenLaterEpochs) {
    for (unsigned history : {1u, 4u}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(std::string(kOneChannel) +
                                            "row_history: " + std::to_string(history) + "\n");
        DdrBench b(c);
        test::elaborate();
        const DdrAddressMap& m = b.ddr.addressMap();
        auto row = [&](std::uint64_t r) { return m.encode(DdrLocation{0, 0, 0, r, 0}); };
        // Presented first, later in time: rows 1, 2, 3 of one bank, 2000 cycles apart.
        b.probe.request(false, row(1), 32, 0);
        b.probe.request(false, row(2), 32, c.clock.at(2000));
        b.probe.request(false, row(3), 32, c.clock.at(4000));
        // Arrived at 500 cycles, while row 1 was open and long before row 2 replaced it.
        Tick at = c.clock.at(500);
        Tick lat = b.probe.request(false, row(5), 32, at) - at;
        if (history > 1) {
            // Its own epoch between rows 1 and 2: precharge, activate, read.
            EXPECT_EQ(lat, c.clock.at(c.t.tRP + c.t.tRCD + readLat(c) + c.burstCycles()));
            // And a row hit in it shortly after.
            at = c.clock.at(600);
            EXPECT_EQ(b.probe.request(false, row(5) + 32, 32, at) - at,
                      c.clock.at(readLat(c) + c.burstCycles()));
        } else {
            // Served after the bank's latest state: row 3's epoch.
            EXPECT_GT(at + lat, c.clock.at(4000));
        }
    }
}

TEST(Ddr, PostedWritesDrainInRowOrder) {
    // Writes alternating between two rows of one bank, as write-backs interleaved with fills.
    auto run = [](const std::string& extra, std::uint64_t& activates) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(std::string(kOneChannel) + extra);
        DdrBench b(c);
        test::elaborate();
        const DdrAddressMap& m = b.ddr.addressMap();
        const std::uint64_t n = 64;
        std::uint64_t acceptedAtArrival = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t a = m.encode(DdrLocation{0, 0, 0, 1 + i % 2, (i / 2) * 32});
            if (b.probe.request(true, a, 32, c.clock.at(i)) == c.clock.at(i))
                ++acceptedAtArrival;
        }
        EXPECT_EQ(b.ddr.bytesWritten(), n * 32);
        activates = b.ddr.activates();
        return acceptedAtArrival;
    };
    std::uint64_t activates = 0;
    // Queue of 32: the first 32 are posted at once; two drains each open each row once.
    EXPECT_GE(run("write_queue: 32\n", activates), 32u);
    EXPECT_EQ(activates, 4u);
    // No queue, strictly in order: every write switches the row.
    EXPECT_EQ(run("write_queue: 0\nscheduler: fcfs\n", activates), 0u);
    EXPECT_EQ(activates, 64u);
    // No queue, FR-FCFS: writes that arrived before the precharge was issued still hit.
    run("write_queue: 0\n", activates);
    EXPECT_LT(activates, 64u);
}

TEST(Ddr, PostedWritesCompleteOnlyWhenTheQueueDrains) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>(std::string(kOneChannel) + "write_queue: 32\n");
    DdrBench b(c);
    test::elaborate();
    const std::uint64_t n = 8, bytes = c.burstBytes();
    const std::uint64_t row = b.ddr.addressMap().encode(DdrLocation{0, 0, 2, 5, 0});
    // Posted: each write is accepted on arrival, long before it reaches the DRAM.
    for (std::uint64_t i = 0; i < n; ++i)
        EXPECT_EQ(b.probe.request(true, row + i * bytes, bytes, 0), 0u);
    EXPECT_EQ(b.ddr.lastCompletion(), 0u);
    // Draining: activate the idle bank, write latency, then the bursts back to back.
    const Tick done = b.ddr.completePostedWrites();
    EXPECT_EQ(cycles(c, done), c.t.tRCD + c.columnCycles - 1 + c.t.tCWL + n * c.burstCycles());
    EXPECT_EQ(b.ddr.lastCompletion(), done);
    // Nothing is left to drain: asking again changes nothing.
    EXPECT_EQ(b.ddr.completePostedWrites(), done);
    EXPECT_EQ(b.ddr.activates(), 1u);
}

TEST(Ddr, AddressMapRoundTripsAndInterleavesChannels) {
    DdrConfig c = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n");
    DdrAddressMap m(c);
    EXPECT_EQ(m.decode(0).channel, 0u);
    EXPECT_EQ(m.decode(64).channel, 1u);
    EXPECT_EQ(m.decode(128).rowOffset, 64u);
    for (std::uint64_t a : {0ULL, 64ULL, 4096ULL + 17, 123456789ULL, (4ULL << 30) - 1}) {
        DdrLocation l = m.decode(a);
        EXPECT_EQ(m.encode(l), a);
        EXPECT_LT(l.row, c.rows());
    }
    // A non-power-of-two organisation uses the mixed-radix path.
    DdrConfig odd = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\nchannels: 3\nranks: 1\nsize: 3 GiB\n"
                                          "mapping: [row, bank, rank, channel, column]\n");
    DdrAddressMap mo(odd);
    for (std::uint64_t a : {0ULL, 2048ULL, 6144ULL, 99999999ULL})
        EXPECT_EQ(mo.encode(mo.decode(a)), a);
    EXPECT_EQ(mo.decode(2048).channel, 1u);
}

TEST(Ddr, ConfigErrorsNameTheKey) {
    auto expectError = [](const std::string& yaml, const std::string& needle) {
        try {
            configFrom<DdrConfig>(yaml);
            ADD_FAILURE() << "no error for: " << yaml;
        } catch (const config::ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectError("preset: nope\n", "no DDR parameter set 'nope'");
    expectError("preset: lpddr4x-2666-x32\ntRFC: 5 us\n", "tRFC");
    expectError("preset: lpddr4x-2666-x32\ntCL: abc\n", "tCL");
    expectError("preset: lpddr4x-2666-x32\nmapping: [row, bank, column, channel]\n", "mapping");
    expectError("preset: lpddr4x-2666-x32\nsize: 1000 KiB\n", "size");
    expectError("preset: lpddr4x-2666-x32\ntRCDD: 5\n", "tRCDD");
}

}  // namespace
}  // namespace tessim
