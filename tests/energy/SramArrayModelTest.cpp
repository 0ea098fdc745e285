// The SRAM array model: the shipped 45 nm parameters reproduce Horowitz's anchors, and energy,
// leakage and area follow the geometry.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "models/memory/Scratchpad.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/energy/SramArrayModel.h"

namespace tessim {
namespace {

constexpr double kKiB = 1024.0;

SramArrayModel shippedModel(const std::string& table) {
    const config::Node root =
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/configs/energy/" + table);
    config::Reader r(*root.find("components")->find("sram_array"));
    return SramArrayModel::fromYaml(r);
}

SramArrayModel modelFrom(const std::string& yaml) {
    const config::Node node = config::loadYamlString(yaml, "test.yaml");
    config::Reader r(node);
    SramArrayModel m = SramArrayModel::fromYaml(r);
    r.finish();
    return m;
}

// One bank, one port, 64-bit words: exactly the arrays the anchors describe.
SramArrayCost monolithic(const SramArrayModel& m, double capacity) {
    return m.cost({static_cast<std::uint64_t>(capacity), 1, 8, 1});
}

TEST(SramArrayModel, ReproducesTheAnchorsAndTheirRatios) {
    const SramArrayModel m = shippedModel("sram-array-45nm.yaml");
    // energy.md: 64-bit read of an 8 KB, 32 KB and 1 MB SRAM = 10, 20 and 100 pJ.
    EXPECT_NEAR(monolithic(m, 8 * kKiB).readJoules, 10e-12, 1e-24);
    EXPECT_NEAR(monolithic(m, 32 * kKiB).readJoules, 20e-12, 1e-24);
    EXPECT_NEAR(monolithic(m, 1024 * kKiB).readJoules, 100e-12, 1e-24);
    const double e8 = monolithic(m, 8 * kKiB).readJoules;
    EXPECT_NEAR(monolithic(m, 32 * kKiB).readJoules / e8, 2.0, 1e-12);
    EXPECT_NEAR(monolithic(m, 1024 * kKiB).readJoules / e8, 10.0, 1e-12);
}

TEST(SramArrayModel, NodeScalingKeepsTheRatios) {
    const SramArrayModel m = shippedModel("npu-28nm.yaml");
    const double e8 = monolithic(m, 8 * kKiB).readJoules;
    EXPECT_NEAR(e8, 10e-12 * 0.55, 1e-24);  // npu-28nm.yaml: 45 → 28 nm factor 0.55
    EXPECT_NEAR(monolithic(m, 32 * kKiB).readJoules / e8, 2.0, 1e-12);
    EXPECT_NEAR(monolithic(m, 1024 * kKiB).readJoules / e8, 10.0, 1e-12);
}

TEST(SramArrayModel, InterpolatesLogLinearlyAndExtrapolatesWithTheEndSlopes) {
    const SramArrayModel m = modelFrom("read_64bit: {8 KiB: 10 pJ, 32 KiB: 20 pJ, 1 MiB: 100 pJ}\n");
    EXPECT_NEAR(m.read64Joules(16 * kKiB), 10e-12 * std::sqrt(2.0), 1e-24);       // slope 1/2
    EXPECT_NEAR(m.read64Joules(2 * kKiB), 5e-12, 1e-24);                          // 4× smaller, slope 1/2
    EXPECT_NEAR(m.read64Joules(32 * 1024 * kKiB), 500e-12, 1e-22);                // 32× larger: × 5
    EXPECT_NEAR(m.read64Joules(512 * kKiB), 20e-12 * std::pow(5.0, 0.8), 1e-24);  // 16× of 32×
}

TEST(SramArrayModel, LeakageAndAreaGrowWithCapacity) {
    const SramArrayModel m = shippedModel("sram-array-45nm.yaml");
    SramArrayCost previous = m.cost({4096, 16, 16, 2});
    for (std::uint64_t size = 8192; size <= (std::uint64_t{64} << 20); size *= 2) {
        const SramArrayCost c = m.cost({size, 16, 16, 2});
        EXPECT_GT(c.staticWatts, previous.staticWatts) << size;
        EXPECT_GT(c.areaMm2, previous.areaMm2) << size;
        EXPECT_GT(c.readJoules, previous.readJoules) << size;
        previous = c;
    }
    // Closed form at 1 MiB, one port: 20 mW per MiB; 2^23 bits × 0.346 µm² / 0.7.
    const SramArrayCost mib = m.cost({1 << 20, 1, 8, 1});
    EXPECT_NEAR(mib.staticWatts, 20e-3, 1e-15);
    EXPECT_NEAR(mib.areaMm2, 8388608 * 0.346e-6 / 0.7, 1e-12);
}

TEST(SramArrayModel, EnergyFollowsBankCapacityWordWidthAndPorts) {
    const SramArrayModel m = modelFrom("read_64bit: {8 KiB: 10 pJ, 32 KiB: 20 pJ, 1 MiB: 100 pJ}\n"
                                       "wire_energy_per_bit_mm: 0.1 pJ\nbitcell_area_um2: 0.346\n"
                                       "array_efficiency: 0.7\nport_area_overhead: 0.5\n");
    // 1 MiB in 16 banks: the array energy of a 64 KiB bank plus the wire to reach it.
    const SramArrayCost banked = m.cost({1 << 20, 16, 8, 1});
    const double side = std::sqrt(banked.areaMm2);
    const double wire = 0.1e-12 * 64 * 0.5 * (side - side / 4);
    EXPECT_NEAR(banked.readJoules, m.read64Joules(64 * kKiB) + wire, 1e-24);
    EXPECT_LT(banked.readJoules, monolithic(m, 1 << 20).readJoules);
    // Twice the word: twice the bits read and carried.
    EXPECT_NEAR(m.cost({1 << 20, 16, 16, 1}).readJoules, 2 * banked.readJoules, 1e-24);
    // A second port: +50 % cell area and leakage, √1.5 on the array energy.
    const SramArrayCost dual = m.cost({1 << 20, 1, 8, 2});
    EXPECT_NEAR(dual.areaMm2, 1.5 * monolithic(m, 1 << 20).areaMm2, 1e-12);
    EXPECT_NEAR(dual.readJoules, std::sqrt(1.5) * 100e-12, 1e-24);
}

TEST(SramArrayModel, BadAnchorsAreConfigErrors) {
    EXPECT_THROW(modelFrom("read_64bit: {}\n"), config::ConfigError);
    EXPECT_THROW(modelFrom("read_64bit: {lots: 10 pJ}\n"), config::ConfigError);
    EXPECT_THROW(modelFrom("read_64bit: {8 KiB: 10}\n"), config::ConfigError);
}

ScratchpadConfig scratchpadFrom(const std::string& yaml) {
    const config::Node node = config::loadYamlString(yaml, "test.yaml");
    config::Reader r(node);
    ScratchpadConfig c = ScratchpadConfig::fromYaml(r, "spm");
    r.finish();
    return c;
}

constexpr const char* kScratchpad = "size: 64 KiB\nbanks: 4\nbank_width: 8 B\nclock: 1 GHz\n";

TEST(SramArrayModel, ScratchpadTakesEnergyLeakageAndAreaFromTheModel) {
    const ScratchpadConfig c =
        scratchpadFrom(std::string(kScratchpad) +
                       "energy: {array: {read_64bit: {8 KiB: 10 pJ, 32 KiB: 20 pJ}, leakage_per_mib: 16 mW, "
                       "bitcell_area_um2: 1}}\n");
    EXPECT_NEAR(c.readJoulesPerWord, 20e-12 * std::sqrt(0.5), 1e-24);  // a 16 KiB bank
    EXPECT_NEAR(c.writeJoulesPerWord, c.readJoulesPerWord, 1e-24);
    EXPECT_NEAR(c.staticWatts, 1e-3, 1e-15);          // 16 mW × 1/16 MiB
    EXPECT_NEAR(c.areaMm2, 65536 * 8 * 1e-6, 1e-12);  // one µm² per bit
}

TEST(SramArrayModel, ExplicitEnergiesAndStaticPowerOverrideTheModel) {
    const ScratchpadConfig c =
        scratchpadFrom(std::string(kScratchpad) + "energy: {read: 7 pJ, array: {read_64bit: {8 KiB: 10 pJ}, "
                                                  "leakage_per_mib: 16 mW, bitcell_area_um2: 1}}\n"
                                                  "static_power: 3 mW\n");
    EXPECT_DOUBLE_EQ(c.readJoulesPerWord, 7e-12);
    EXPECT_DOUBLE_EQ(c.writeJoulesPerWord, 7e-12);
    EXPECT_DOUBLE_EQ(c.staticWatts, 3e-3);
    EXPECT_GT(c.areaMm2, 0.0);  // the model still gives the area
    const ScratchpadConfig plain = scratchpadFrom(std::string(kScratchpad) + "energy: {read: 7 pJ}\n");
    EXPECT_DOUBLE_EQ(plain.readJoulesPerWord, 7e-12);
    EXPECT_EQ(plain.areaMm2, 0.0);
}

}  // namespace
}  // namespace tessim
