// What kernels share (workloads/common): DMA copy builders, deterministic test data, memory layout.
#include <string>

#include <gtest/gtest.h>

#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/config/Reader.h"
#include "workloads/common/DmaOps.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/common/Slices.h"
#include "workloads/common/TestData.h"

namespace tessim {
namespace {

TEST(DmaOps, ACopyCarriesBothSidesAndTheBlock) {
    Op op = dmaCopy(7, 2, {16, 3, 2}, {1, 100, 64, 640}, {4, 200, 16, 48});
    EXPECT_EQ(op.kind, OpKind::DmaStart);
    EXPECT_EQ(op.tag, 7u);
    EXPECT_EQ(op.dma.channel, 2u);
    EXPECT_EQ(op.dma.srcSpace, 1u);
    EXPECT_EQ(op.dma.dstSpace, 4u);
    EXPECT_EQ(op.dma.src, 100u);
    EXPECT_EQ(op.dma.dst, 200u);
    EXPECT_EQ(op.dma.srcRowStride, 64);
    EXPECT_EQ(op.dma.srcPlaneStride, 640);
    EXPECT_EQ(op.dma.dstRowStride, 16);
    EXPECT_EQ(op.dma.dstPlaneStride, 48);
    EXPECT_EQ(op.dma.totalBytes(), 16u * 3 * 2);
    EXPECT_EQ(op.dma.multicastCount, 0u);
    Op linear = dmaCopy(1, 0, {4096}, {0, 0}, {1, 0});
    EXPECT_EQ(linear.dma.rows, 1u);
    EXPECT_EQ(linear.dma.planes, 1u);
    Op wait = dmaWait(7);
    EXPECT_EQ(wait.kind, OpKind::DmaWait);
    EXPECT_EQ(wait.tag, 7u);
}

TEST(TestData, ValuesAreDeterministicAndInRange) {
    // The first value of salt 0: SplitMix64 of the golden-ratio step (fixed forever: functional
    // references and stored schedules depend on it).
    EXPECT_EQ(testDataBits(0, 0), 0xE220A8397B1DCDAFULL);
    for (std::uint64_t i = 0; i < 1000; ++i) {
        const double f = testValue(DType::F32, i, 3);
        EXPECT_GE(f, -1.0);
        EXPECT_LT(f, 1.0);
        EXPECT_EQ(f, static_cast<double>(static_cast<float>(f)));
        const double k = testValue(DType::I32, i, 3);
        EXPECT_GE(k, -8.0);
        EXPECT_LE(k, 7.0);
        EXPECT_EQ(testInt8(i, 5), static_cast<std::int8_t>(testDataBits(i, 5) & 0xFF));
    }
    EXPECT_NE(testValue(DType::F64, 0, 0), testValue(DType::F64, 0, 1));
}

MemorySpaceInfo space(const char* name, std::uint8_t id, const char* level, std::uint64_t size) {
    MemorySpaceInfo s;
    s.name = name;
    s.id = id;
    s.level = level;
    s.size = size;
    return s;
}

TEST(MemoryLayout, RegionsStartAlignedAndTheEndCountsWholeUnits) {
    const MemorySpaceInfo spm = space("spm", 0, "sram", 256);
    MemoryLayout layout(spm, 64);
    EXPECT_EQ(layout.allocate("x", 100), 0u);
    EXPECT_EQ(layout.allocate("y", 1), 128u);
    EXPECT_EQ(layout.end(), 192u);
    EXPECT_TRUE(layout.fits());
    EXPECT_EQ(layout.allocate("z", 65), 192u);
    EXPECT_EQ(layout.end(), 320u);
    EXPECT_FALSE(layout.fits());
    EXPECT_EQ(alignUp(4097, 4096), 8192u);
    EXPECT_EQ(alignUp(0, 64), 0u);
}

TEST(MemoryLayout, AnOverrunNamesTheSpaceTheNeedAndTheRegions) {
    const MemorySpaceInfo spm = space("spm", 0, "sram", 256);
    MemoryLayout layout(spm, 64);
    layout.allocate("x", 200);
    layout.allocate("y", 100);
    config::Node node = config::loadYamlString("n: 50\n", "w.yaml");
    config::Reader reader(node);
    try {
        layout.requireFits(reader, "n", "50 elements");
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("w.yaml:1:"), std::string::npos) << m;
        EXPECT_NE(
            m.find("50 elements: 384 B needed in memory 'spm', which holds 256 B (x 200 B @0, y 100 B @256)"),
            std::string::npos)
            << m;
    }
    const MemorySpaceInfo big = space("ddr", 1, "ddr", 1024);
    EXPECT_NO_THROW(layout.placedIn(big).requireFits(reader, "n", "50 elements"));
}

TEST(Slices, WholeGranulesAsEvenAsTheyGo) {
    // 1001 elements in vectors of 8: 126 vectors (the last holds 1), 3 cores take 42 each.
    auto s = contiguousSlices(1001, 3, 8);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].first, 0u);
    EXPECT_EQ(s[0].count, 336u);
    EXPECT_EQ(s[1].first, 336u);
    EXPECT_EQ(s[1].count, 336u);
    EXPECT_EQ(s[2].first, 672u);
    EXPECT_EQ(s[2].count, 329u);
    // Fewer granules than parts: some slices are empty, none overlaps.
    auto t = contiguousSlices(10, 4, 8);
    EXPECT_EQ(t[0].count + t[1].count + t[2].count + t[3].count, 10u);
    EXPECT_EQ(t[3].first + t[3].count, 10u);
    EXPECT_EQ(contiguousSlices(5, 1, 8)[0].count, 5u);
}

}  // namespace
}  // namespace tessim
