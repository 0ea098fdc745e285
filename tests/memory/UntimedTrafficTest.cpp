// Traffic an ideal interface moves without simulated accesses (Memory::countUntimed): counted in
// the memory's bytes and in the energy it charges per byte (simple) or per whole burst (DDR),
// never as commands or time.
#include <gtest/gtest.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Ddr.h"
#include "models/memory/SimpleMemory.h"

namespace tessim {
namespace {

using test::configFrom;

TEST(UntimedTraffic, SimpleMemoryChargesPerByte) {
    test::freshKernel();
    SimpleMemory m("dram", configFrom<SimpleMemoryConfig>("level: ddr\nsize: 1 GiB\nlatency: 100 ns\n"
                                                          "bandwidth: 64 GB/s\nenergy:\n"
                                                          "  read_energy_per_byte: 31 pJ\n"
                                                          "  write_energy_per_byte: 40 pJ\n"));
    m.countUntimed(1000, 300);
    m.countUntimed(24, 0);
    EXPECT_EQ(m.bytesRead(), 1024u);
    EXPECT_EQ(m.bytesWritten(), 300u);
    EXPECT_EQ(m.busBytesRead(), 1024u);
    StatsTree stats;
    EnergyLedger energy;
    m.collect(stats, energy, 0.0);
    EXPECT_NEAR(energy.dynamicJoules("dram"), 1024 * 31e-12 + 300 * 40e-12, 1e-18);
    auto j = stats.toJson();
    EXPECT_EQ(j["dram"]["untimed_bytes_read"]["value"], 1024u);
    EXPECT_EQ(j["dram"]["untimed_bytes_written"]["value"], 300u);
    EXPECT_EQ(j["dram"]["reads"]["value"], 0u);  // no access was simulated
}

TEST(UntimedTraffic, DdrChargesWholeBurstsAndNoCommands) {
    test::freshKernel();
    DdrConfig c =
        configFrom<DdrConfig>("preset: lpddr4x-2666-x32\nchannels: 1\nranks: 1\nsize: 1 GiB\n"
                              "energy:\n  activate: 1 nJ\n  read_burst: 2 nJ\n  write_burst: 3 nJ\n");
    const std::uint64_t b = c.burstBytes();
    Ddr ddr("ddr", c);
    ddr.countUntimed(4 * b + 1, 2 * b);  // 5 read bursts (the last one 1 B), 2 write bursts
    EXPECT_EQ(ddr.bytesRead(), 4 * b + 1);
    EXPECT_EQ(ddr.busBytesRead(), 5 * b);
    EXPECT_EQ(ddr.busBytesWritten(), 2 * b);
    EXPECT_EQ(ddr.bursts(), 7u);
    EXPECT_EQ(ddr.activates(), 0u);
    StatsTree stats;
    EnergyLedger energy;
    ddr.collect(stats, energy, 0.0);
    EXPECT_NEAR(energy.dynamicJoules("ddr"), 5 * 2e-9 + 2 * 3e-9, 1e-18);
    EXPECT_EQ(stats.toJson()["ddr"]["untimed_bytes_read"]["value"], 4 * b + 1);
}

TEST(UntimedTraffic, MemoriesWithoutUntimedTrafficReportNoUntimedStats) {
    test::freshKernel();
    SimpleMemory m("dram", configFrom<SimpleMemoryConfig>("size: 1 GiB\nlatency: 1 ns\nbandwidth: 1 GB/s\n"
                                                          "energy:\n  read_energy_per_byte: 1 pJ\n"));
    StatsTree stats;
    EnergyLedger energy;
    m.collect(stats, energy, 0.0);
    EXPECT_FALSE(stats.toJson()["dram"].contains("untimed_bytes_read"));
}

}  // namespace
}  // namespace tessim
