// Scratchpad: bank conflicts of strided multi-lane accesses against exact counts, ports,
// out-of-range accesses, functional bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "memory/MemoryTestUtil.h"
#include "models/memory/MemoryProbe.h"
#include "models/memory/Scratchpad.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

constexpr unsigned kBanks = 8, kWidth = 8;

ScratchpadConfig spmConfig(const std::string& extra = "") {
    return test::configFrom<ScratchpadConfig>(
        "size: 64 KiB\nbanks: 8\nbank_width: 8 B\nclock: 1 GHz\nlatency: 2\n"
        "energy: {read: 2 pJ, write: 3 pJ}\n" +
        extra);
}

AccessExtension strided(std::uint64_t strideWords, std::uint32_t elements,
                        std::uint32_t elementBytes = kWidth) {
    AccessExtension e;
    e.elementBytes = elementBytes;
    e.elements = elements;
    e.stride = static_cast<std::int64_t>(strideWords * kWidth);
    return e;
}

TEST(Scratchpad, BankConflictsForStrides) {
    test::freshKernel();
    Scratchpad spm("spm", spmConfig());
    // One bank-wide element per bank: stride 1 and banks + 1 hit every bank once; stride 2 puts
    // two elements in each of half the banks; stride = banks puts all in bank 0.
    struct Case {
        std::uint64_t stride;
        std::uint64_t cycles;
    };
    for (Case c : {Case{1, 1}, Case{2, 2}, Case{kBanks, kBanks}, Case{kBanks + 1, 1}}) {
        AccessExtension e = strided(c.stride, kBanks);
        BankFootprint f = spm.footprint(0, 0, &e);
        EXPECT_EQ(f.cycles, c.cycles) << "stride " << c.stride;
        EXPECT_EQ(f.conflictCycles(), c.cycles - 1) << "stride " << c.stride;
        EXPECT_EQ(f.words, kBanks);
    }
    // Twice as many lanes: ideal is two cycles.
    for (Case c : {Case{1, 2}, Case{2, 4}, Case{kBanks, 2 * kBanks}, Case{kBanks + 1, 2}}) {
        AccessExtension e = strided(c.stride, 2 * kBanks);
        EXPECT_EQ(spm.footprint(0, 0, &e).conflictCycles(), c.cycles - 2) << "stride " << c.stride;
    }
    // Lanes narrower than a bank word share words: 16 × 4 B unit stride = 8 words, no conflict.
    AccessExtension narrow = strided(0, 16, 4);
    narrow.stride = 4;
    EXPECT_EQ(spm.footprint(0, 0, &narrow).cycles, 1u);
    EXPECT_EQ(spm.footprint(0, 0, &narrow).words, 8u);
    // Unit-stride accesses: ceil(words / banks) cycles, unaligned ones touch one more word.
    EXPECT_EQ(spm.footprint(0, 128, nullptr).cycles, 2u);
    EXPECT_EQ(spm.footprint(4, 64, nullptr).words, 9u);
    EXPECT_EQ(spm.footprint(4, 64, nullptr).cycles, 2u);
}

TEST(Scratchpad, TimingCountsConflictsAndPorts) {
    test::freshKernel();
    Scratchpad spm("spm", spmConfig("ports: 2\n"));
    MemoryProbe probe("probe", [] {});
    probe.socket.bind(spm.socket);
    test::elaborate();
    AccessExtension e = strided(kBanks, kBanks);
    // All eight elements in one bank: 8 cycles + 2 latency − 1.
    EXPECT_EQ(probe.request(false, 0, 64, 0, &e), 9000u);
    EXPECT_EQ(spm.conflictCycles(), 7u);
    EXPECT_EQ(spm.conflictedAccesses(), 1u);
    // The second port serves another access at once; a third waits for the first free port.
    EXPECT_EQ(probe.request(false, 0, 64, 0), 2000u);
    EXPECT_EQ(probe.request(false, 0, 64, 0), 3000u);
    EnergyLedger energy;
    StatsTree stats;
    spm.collect(stats, energy, 1e-6);
    EXPECT_DOUBLE_EQ(energy.dynamicJoules("spm"), 24 * 2e-12);
    EXPECT_EQ(stats.find("spm.bank_conflict_cycles")->value, 7.0);
}

TEST(Scratchpad, OutOfRangeIsAnErrorWithTheAddress) {
    test::freshKernel();
    Scratchpad spm("spm", spmConfig());
    MemoryProbe probe("probe", [] {});
    probe.socket.bind(spm.socket);
    test::elaborate();
    try {
        probe.request(false, 64 * 1024 - 4, 8, 0);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("0xfffc"), std::string::npos) << e.what();
    }
    AccessExtension e = strided(1024, 9);  // the last element lies beyond the end
    EXPECT_THROW(probe.request(false, 0, 72, 0, &e), std::runtime_error);
}

TEST(Scratchpad, ConfigChecksGeometry) {
    EXPECT_THROW(
        test::configFrom<ScratchpadConfig>("size: 1000 B\nbanks: 8\nbank_width: 8 B\nclock: 1 GHz\n"),
        config::ConfigError);
    EXPECT_THROW(test::configFrom<ScratchpadConfig>("size: 1 KiB\nbanks: 8\nclock: 1 GHz\nlatncy: 2\n"),
                 config::ConfigError);
}

}  // namespace
}  // namespace tessim
