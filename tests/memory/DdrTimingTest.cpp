// The DDR model's rules between banks against closed forms: tCCD_L/S between column commands,
// tFAW over five activates, tWTR after a write, the tFAW bound on random reads, back-pressure
// from a bounded bank queue, bit-list address maps with XOR bank hashing, tCK, and config errors.
#include <gtest/gtest.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Ddr.h"
#include "models/memory/MemoryProbe.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using test::configFrom;

// DDR4-2400 with its bank groups; refresh off so no window moves a command.
const std::string kDdr4 = "preset: ddr4-2400-x64\nrefresh: none\n";

struct DdrTimingBench {
    Ddr ddr;
    MemoryProbe probe;
    DdrTimingBench(const DdrConfig& c, ProbeOptions o = {})
        : ddr("ddr", c), probe(
                             "probe", [this] { ddr.resetTiming(); }, o) {
        probe.socket.bind(ddr.socket);
    }
    std::uint64_t at(unsigned bank, std::uint64_t row, std::uint64_t offset = 0) const {
        return ddr.addressMap().encode(DdrLocation{0, 0, bank, row, offset});
    }
};

std::uint64_t cyclesOf(const DdrConfig& c, Tick t) {
    EXPECT_EQ(t % c.clock.period, 0u) << "not on a clock edge";
    return t / c.clock.period;
}

TEST(DdrTiming, Ddr4PresetHasItsJedecBankGroupTimings) {
    DdrConfig c = configFrom<DdrConfig>(kDdr4);
    EXPECT_EQ(c.bankGroups, 4u);
    EXPECT_EQ(c.clock.period, 833u);
    EXPECT_EQ(c.t.tCCD_S, 4u);
    EXPECT_EQ(c.t.tCCD_L, 6u);
    EXPECT_EQ(c.t.tRRD_S, 4u);
    EXPECT_EQ(c.t.tRRD_L, 6u);
    EXPECT_EQ(c.t.tFAW, 26u);  // 21 ns / 0.833 ns, rounded up
    EXPECT_EQ(c.t.tWTR_S, 3u);
    EXPECT_EQ(c.t.tWTR_L, 9u);
}

// Two reads presented together to open rows: the second column command follows the first by
// tCCD_L in the same bank group, tCCD_S in another.
TEST(DdrTiming, BackToBackReadsAreTccdLApartInOneBankGroupAndTccdSAcross) {
    for (bool sameGroup : {true, false}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(kDdr4);
        DdrTimingBench b(c);
        test::elaborate();
        const unsigned other = sameGroup ? 4 : 1;  // bank 4 is in group 0 with bank 0; bank 1 is not
        ASSERT_EQ(c.bankGroupOf(other) == c.bankGroupOf(0), sameGroup);
        b.probe.request(false, b.at(0, 3), 64, 0);
        b.probe.request(false, b.at(other, 3), 64, c.clock.at(100));
        const Tick t = c.clock.at(1000);
        const Tick first = b.probe.request(false, b.at(0, 3, 64), 64, t);
        const Tick second = b.probe.request(false, b.at(other, 3, 64), 64, t);
        EXPECT_EQ(cyclesOf(c, first - t), c.t.tCL + c.burstCycles());
        EXPECT_EQ(cyclesOf(c, second - first), sameGroup ? c.t.tCCD_L : c.t.tCCD_S);
    }
}

// Five activates to different banks, all wanted at once: the fifth waits for the window that
// the first opened (tRRD_S between the others, tRRD_L not binding here).
TEST(DdrTiming, FiveActivatesToDifferentBanksSpanAtLeastTfaw) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>(kDdr4);
    DdrTimingBench b(c);
    test::elaborate();
    const std::uint64_t toData = c.t.tRCD + c.t.tCL + c.burstCycles();
    std::vector<std::uint64_t> activates;
    for (unsigned bank : {0u, 1u, 2u, 3u, 5u}) {  // groups 0, 1, 2, 3, 1
        const Tick done = b.probe.request(false, b.at(bank, 7), 64, 0);
        activates.push_back(cyclesOf(c, done) - toData);
    }
    EXPECT_EQ(b.ddr.activates(), 5u);
    EXPECT_EQ(activates[1], c.t.tRRD_S);
    EXPECT_EQ(activates[3], 3 * c.t.tRRD_S);
    ASSERT_GT(c.t.tFAW, 4 * c.t.tRRD_S);
    EXPECT_EQ(activates[4] - activates[0], c.t.tFAW);
}

// A read after a write waits tWTR from the end of the write data: _L in the write's bank group,
// _S in another.
TEST(DdrTiming, AReadAfterAWriteWaitsTwtr) {
    for (bool sameGroup : {true, false}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(kDdr4 + "write_queue: 0\n");
        DdrTimingBench b(c);
        test::elaborate();
        const unsigned other = sameGroup ? 4 : 1;
        b.probe.request(false, b.at(0, 3), 64, 0);
        b.probe.request(false, b.at(other, 3), 64, c.clock.at(100));
        const Tick t = c.clock.at(1000);
        const Tick written = b.probe.request(true, b.at(0, 3, 64), 64, t);
        EXPECT_EQ(cyclesOf(c, written - t), c.t.tCWL + c.burstCycles());
        const Tick read = b.probe.request(false, b.at(other, 3, 64), 64, t);
        EXPECT_EQ(cyclesOf(c, read - written),
                  (sameGroup ? c.t.tWTR_L : c.t.tWTR_S) + c.t.tCL + c.burstCycles());
    }
}

// Random 64 B reads with many in flight: every read opens a row, so the rank's activate rate,
// at most four per tFAW, bounds the bandwidth; refresh only lowers it further.
TEST(DdrTiming, SaturatingRandomReadsAreBoundByTheActivateRate) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>("preset: ddr4-2400-x64\n");
    DdrTimingBench b(c, ProbeOptions{128, 64, 0});
    test::elaborate();
    const std::uint64_t n = 100000;
    std::uint64_t state = 12345;
    const Tick end = b.probe.stream(false, n, [&](std::uint64_t) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state >> 20) % (c.size / 64) * 64;
    });
    const double perActivate = std::max(static_cast<double>(c.t.tFAW) / 4.0, static_cast<double>(c.t.tRRD_S));
    const double bound = 64.0 / ticksToSeconds(c.clock.at(1)) / perActivate;
    const double achieved = static_cast<double>(n * 64) / ticksToSeconds(end);
    EXPECT_LT(bound, c.peakBandwidth()) << "the activate bound must lie below the bus peak";
    EXPECT_LE(achieved, bound * (1.0 - c.refreshOverhead()));
    EXPECT_GT(achieved, 0.85 * bound);
    EXPECT_GT(b.ddr.activates(), n * 99 / 100);
    ::testing::Test::RecordProperty("random_vs_activate_bound", std::to_string(achieved / bound));
}

// bank_queue 2: a third request to a bank is admitted when the first issues its column command,
// a fourth when the second does; without a bound all are admitted on arrival.
TEST(DdrTiming, ABoundedBankQueuePushesBackOnTheRequester) {
    for (unsigned depth : {2u, 0u}) {
        test::freshKernel();
        DdrConfig c = configFrom<DdrConfig>(kDdr4 + "bank_queue: " + std::to_string(depth) + "\n");
        DdrTimingBench b(c);
        test::elaborate();
        std::vector<std::uint64_t> admitted;
        for (std::uint64_t row = 1; row <= 4; ++row) {
            b.probe.request(false, b.at(0, row), 64, 0);
            admitted.push_back(cyclesOf(c, b.ddr.lastAcceptance()));
        }
        const DdrTiming& t = c.t;
        if (depth == 0) {
            EXPECT_EQ(admitted, (std::vector<std::uint64_t>{0, 0, 0, 0}));
        } else {
            // Column commands: tRCD for the empty bank, then tRAS + tRP + tRCD for the next row.
            EXPECT_EQ(admitted, (std::vector<std::uint64_t>{0, 0, t.tRCD, t.tRAS + t.tRP + t.tRCD}));
        }
    }
}

TEST(DdrTiming, BitListMapPlacesKnownAddresses) {
    DdrConfig c = configFrom<DdrConfig>("preset: ddr4-2400-x64\n");
    ASSERT_TRUE(c.bitMapped);
    DdrAddressMap m(c);
    // Bits 6-7: bank group; 8-14: column (64 B bursts); 15-16: bank in group; 17-32: row.
    EXPECT_EQ(m.decode(64).bank, 1u);
    EXPECT_EQ(m.decode(3 * 64).bank, 3u);
    EXPECT_EQ(m.decode(256).bank, 0u);
    EXPECT_EQ(m.decode(256 + 5).rowOffset, 64u + 5);
    EXPECT_EQ(m.decode(1u << 15).bank, 4u);
    EXPECT_EQ(m.decode(1u << 17).row, 1u);
    EXPECT_EQ(m.decode(1u << 17).bank, 0u);
    const DdrLocation l = m.decode((5ULL << 17) | (3ULL << 15) | (9ULL << 8) | (2ULL << 6) | 17);
    EXPECT_EQ(l.row, 5u);
    EXPECT_EQ(l.bank, 14u);  // group 2, bank 3 in it
    EXPECT_EQ(l.rowOffset, 9u * 64 + 17);

    // XOR hashing: row bits 17-20 flip the bank bits, so rows 0 and 1 of "bank 0" differ.
    DdrConfig x = configFrom<DdrConfig>("preset: ddr4-2400-x64\n"
                                        "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32], "
                                        "bank_xor: [17, 18, 19, 20]}\n");
    DdrAddressMap mx(x);
    EXPECT_EQ(mx.decode(1u << 17).bank, 1u);
    EXPECT_EQ(mx.decode(3u << 17).bank, 3u);
    EXPECT_EQ(mx.decode((1u << 17) | 64).bank, 0u);
    EXPECT_EQ(mx.decode((1u << 20) | (1u << 15)).bank, 4u ^ 8u);
    // Two groups XORed together: bank ^= row bits 17-20 ^ row bits 21-24, so two addresses 2^21
    // apart (rows 0 and 16) fall in different banks too, and rows 1 and 16|1 cancel nothing.
    DdrConfig f = configFrom<DdrConfig>("preset: ddr4-2400-x64\n"
                                        "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32], "
                                        "bank_xor: [17, 18, 19, 20, 21, 22, 23, 24]}\n");
    DdrAddressMap mf(f);
    EXPECT_EQ(mf.decode(1u << 21).bank, 1u);
    EXPECT_EQ(mf.decode(1u << 24).bank, 8u);
    EXPECT_EQ(mf.decode((1u << 17) | (1u << 21)).bank, 0u);
    EXPECT_EQ(mx.decode(1u << 21).bank, 0u);  // one group leaves bit 21 out
    for (std::uint64_t a : {0ULL, 64ULL, 4097ULL, 123456789ULL, (8ULL << 30) - 1}) {
        EXPECT_EQ(m.encode(m.decode(a)), a);
        EXPECT_EQ(mx.encode(mx.decode(a)), a);
        EXPECT_EQ(mf.encode(mf.decode(a)), a);
    }
}

// The field-order map with the row folded into the bank bits: the rows that share a bank under
// the plain map spread over the banks, and encode inverts decode.
TEST(DdrTiming, XorRowBankHashSpreadsRowsOverTheBanks) {
    DdrConfig plain = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\n");
    DdrConfig hashed = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\nbank_hash: xor-row\n");
    DdrAddressMap mp(plain), mh(hashed);
    // 64 KiB apart (one row further at the same bank, rank, column and channel), and 16 MiB.
    for (std::uint64_t apart : {std::uint64_t{64} << 10, std::uint64_t{16} << 20}) {
        EXPECT_EQ(mp.decode(0).bank, mp.decode(apart).bank) << apart;
        EXPECT_NE(mh.decode(0).bank, mh.decode(apart).bank) << apart;
        EXPECT_EQ(mh.decode(apart).row, mp.decode(apart).row) << apart;
    }
    // Row 1 + 8 folds to 0: its bank is the plain map's.
    const std::uint64_t row9 = std::uint64_t{9} << 16;
    EXPECT_EQ(mh.decode(row9).bank, mp.decode(row9).bank);
    for (std::uint64_t a : {0ULL, 64ULL, 4097ULL, 123456789ULL, (4ULL << 30) - 1})
        EXPECT_EQ(mh.encode(mh.decode(a)), a) << a;
    for (const std::string yaml :
         {"preset: lpddr4x-2666-x32\nbank_hash: xor-row\n"
          "mapping: {channel: [6], column: [5, 7-11], bank: [12-14], rank: [15], row: [16-31]}\n",
          "preset: lpddr4x-2666-x32\nbank_hash: modulo\n"})
        EXPECT_THROW(configFrom<DdrConfig>(yaml), config::ConfigError) << yaml;
}

TEST(DdrTiming, TckIsAnAlternativeToClock) {
    DdrConfig c = configFrom<DdrConfig>("preset: lpddr4x-2666-x32\ntCK: 0.625 ns\n");
    EXPECT_EQ(c.clock.period, 625u);
    DdrConfig d = configFrom<DdrConfig>("preset: ddr4-3200-x64\nclock: 1200 MHz\n");
    EXPECT_EQ(d.clock.period, 833u);
}

// LPDDR4: reads return tDQSCK later, and a row hit also waits for the 4-cycle read command.
TEST(DdrTiming, Lpddr4RowHitIncludesTdqsckAndTheCommandLength) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>("preset: lpddr4-3200-x32\nchannels: 1\nranks: 1\nsize: 1 GiB\n");
    EXPECT_EQ(c.t.tDQSCK, 6u);  // 3.5 ns / 0.625 ns, rounded up
    DdrTimingBench b(c);
    test::elaborate();
    b.probe.request(false, b.at(2, 9), 32, 0);
    const Tick t = c.clock.at(1000);
    EXPECT_EQ(cyclesOf(c, b.probe.request(false, b.at(2, 9, 32), 32, t) - t),
              (c.columnCycles - 1) + c.t.tCL + c.t.tDQSCK + c.burstCycles());
}

// Per-bank refresh blocks the refreshing bank for tRP + tRFCpb and leaves the others alone.
TEST(DdrTiming, PerBankRefreshBlocksOnlyItsBank) {
    test::freshKernel();
    DdrConfig c = configFrom<DdrConfig>(
        "preset: lpddr4x-2666-x32\nchannels: 1\nranks: 1\nsize: 1 GiB\nrefresh: per-bank\n");
    DdrTimingBench b(c);
    test::elaborate();
    // Bank 0's first refresh starts after a full round of banks × tREFIpb.
    const Tick refresh = c.clock.at(c.t.tREFIpb * c.banks);
    const Tick t = refresh + c.clock.at(10);
    const std::uint64_t hit = (c.columnCycles - 1) + c.t.tCL + c.t.tDQSCK + 2 * c.burstCycles();
    const Tick bank1 = b.probe.request(false, b.at(1, 4), 64, t);
    EXPECT_EQ(cyclesOf(c, bank1 - t), c.t.tRCD + hit);
    const Tick bank0 = b.probe.request(false, b.at(0, 4), 64, t);
    EXPECT_EQ(bank0, refresh + c.clock.at(c.t.tRP + c.t.tRFCpb + c.t.tRCD + hit));
}

TEST(DdrTiming, BadKeysNameTheirFileLineAndKey) {
    auto expectError = [](const std::string& yaml, const std::string& needle) {
        try {
            configFrom<DdrConfig>(yaml);
            ADD_FAILURE() << "no error for: " << yaml;
        } catch (const config::ConfigError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(needle), std::string::npos) << what;
            EXPECT_NE(what.find("test.yaml:"), std::string::npos) << what;
        }
    };
    const std::string p = "preset: ddr4-2400-x64\n";
    expectError(p + "bank_groups: 3\n", "bank_groups");
    expectError(p + "tCCD_L: 2\n", "tCCD_L");
    expectError(p + "tCK: 1 ns\nclock: 1 GHz\n", "tCK");
    expectError(p + "refresh: sometimes\n", "refresh");
    expectError(p + "mapping: {bank: [6, 7, 15], column: [8-14], row: [16-32]}\n", "bank");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [16-31]}\n", "already mapped");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32], bank_xor: [6]}\n",
                "bank_xor");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32], "
                    "bank_xor: [17, 18, 19, 20, 21]}\n",
                "or a multiple of that");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32], "
                    "bank_xor: [17, 18, 19, 20, 17, 22, 23, 24]}\n",
                "twice");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-x], row: [17-32]}\n", "column");
    expectError(p + "mapping: {bank: [6, 7, 15, 16], column: [8-14], row: [17-32]}\ninterleave: 128 B\n",
                "interleave");
    expectError("preset: lpddr4x-2666-x32\nrefresh: per-bank\ntREFIpb: 0\n", "tREFIpb");
    expectError(p + "bank_queue: -1\n", "bank_queue");
}

}  // namespace
}  // namespace tessim
