// Markdown and console numbers: four significant digits in a scaled unit (sim/report/HumanUnits.h).
#include <gtest/gtest.h>

#include "sim/report/HumanUnits.h"

namespace tessim {
namespace {

TEST(HumanUnits, SiQuantitiesKeepFourDigitsInAScaledUnit) {
    EXPECT_EQ(humanSi(1.0002e-05, "s"), "10.00 µs");
    EXPECT_EQ(humanSi(0.0012366606906, "J"), "1.237 mJ");
    EXPECT_EQ(humanSi(1.3182, "W"), "1.318 W");
    EXPECT_EQ(humanSi(10.66e9, "B/s"), "10.66 GB/s");
    EXPECT_EQ(humanSi(5.12e-07, "s"), "512.0 ns");
    EXPECT_EQ(humanSi(999.96e-6, "s"), "1.000 ms") << "rounds up into the next prefix";
    EXPECT_EQ(humanSi(1234.6, "s"), "1235 s") << "seconds are not written as ks";
    EXPECT_EQ(humanSi(2.5e-13, "J"), "0.2500 pJ");
    EXPECT_EQ(humanSi(-0.002, "J"), "-2.000 mJ");
    EXPECT_EQ(humanSi(0.0, "J"), "0 J");
}

TEST(HumanUnits, BytesTakeBinaryPrefixes) {
    EXPECT_EQ(humanBytes(0), "0 B");
    EXPECT_EQ(humanBytes(512), "512 B");
    EXPECT_EQ(humanBytes(1023), "1023 B");
    EXPECT_EQ(humanBytes(32768), "32.00 KiB");
    EXPECT_EQ(humanBytes(1572864), "1.500 MiB");
    EXPECT_EQ(humanBytes(1048575), "1.000 MiB");
    EXPECT_EQ(humanBytes(12.0 * 1024 * 1024 * 1024), "12.00 GiB");
}

TEST(HumanUnits, AReportKeyGivesItsUnit) {
    EXPECT_EQ(humanReportValue(2097152, "traffic_bytes.ddr.read"), "2.000 MiB");
    EXPECT_EQ(humanReportValue(0.00122069, "seconds"), "1.221 ms");
    EXPECT_EQ(humanReportValue(0.000911742, "energy_j.total"), "911.7 µJ");
    EXPECT_EQ(humanReportValue(0.0011781752808988765, "bounds.bandwidth_s.ddr"), "1.178 ms");
    EXPECT_EQ(humanReportValue(0.9487, "stall_fraction"), "0.9487");
    EXPECT_EQ(humanReportValue(3997777, "cycles"), "3997777 cycles");
    EXPECT_EQ(unitOfReportKey("power_w"), "W");
    EXPECT_EQ(unitOfReportKey("kernel_window.power_w"), "W");
    EXPECT_EQ(unitOfReportKey("kernel_window.energy_j"), "J");
    EXPECT_EQ(unitOfReportKey("kernel_window.seconds"), "s");
    EXPECT_EQ(unitOfReportKey("roofline.levels.ddr.bandwidth_bytes_per_s"), "B/s");
    EXPECT_EQ(humanReportValue(10.667e9, "roofline.levels.ddr.bandwidth_bytes_per_s"), "10.67 GB/s");
    EXPECT_EQ(unitOfReportKey("roofline.levels.ddr.attainable_work_per_s"), "");
    EXPECT_EQ(unitOfReportKey("roofline.levels.ddr.intensity_work_per_byte"), "");
    EXPECT_EQ(unitOfReportKey("initiators.core.wait_s.ddr"), "s");
}

}  // namespace
}  // namespace tessim
