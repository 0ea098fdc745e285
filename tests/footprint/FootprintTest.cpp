// The bytes each op kind reads and writes, against closed forms.
#include <gtest/gtest.h>

#include "sim/ir/Footprint.h"

namespace tessim {
namespace {

Op vectorAccess(OpKind kind, DType dtype, std::uint32_t vl, std::uint64_t addr, std::int64_t stride) {
    Op op;
    op.kind = kind;
    op.dtype = dtype;
    op.space = 3;
    op.vl = vl;
    op.addr = addr;
    op.stride = stride;
    return op;
}

TEST(Footprint, UnitStrideLoadAndStoreAreOneRun) {
    auto load = footprint(vectorAccess(OpKind::VLoad, DType::F32, 8, 4096, 0));
    ASSERT_EQ(load.size(), 1u);
    EXPECT_EQ(load[0].space, 3);
    EXPECT_FALSE(load[0].write);
    EXPECT_EQ(load[0].begin, 4096u);
    EXPECT_EQ(load[0].highest(), 4096u + 32);
    EXPECT_TRUE(load[0].contiguous());
    // A stride equal to the element size is unit stride.
    auto store = footprint(vectorAccess(OpKind::VStore, DType::F64, 4, 100, 8));
    ASSERT_EQ(store.size(), 1u);
    EXPECT_TRUE(store[0].write);
    EXPECT_TRUE(store[0].contiguous());
    EXPECT_EQ(store[0].totalBytes(), 32u);
}

TEST(Footprint, StridedLoadIsOneRunPerElement) {
    auto f = footprint(vectorAccess(OpKind::VLoad, DType::I16, 5, 1000, -64));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rows, 5u);
    EXPECT_EQ(f[0].bytes, 2u);
    EXPECT_EQ(f[0].totalBytes(), 10u);
    // Elements at 1000, 936, ..., 744.
    EXPECT_EQ(f[0].lowest(), 1000u - 4 * 64);
    EXPECT_EQ(f[0].highest(), 1002u);
    std::vector<std::uint64_t> begins;
    f[0].forEachRun([&](std::uint64_t b, std::uint64_t e) {
        EXPECT_EQ(e - b, 2u);
        begins.push_back(b);
    });
    EXPECT_EQ(begins, (std::vector<std::uint64_t>{1000, 936, 872, 808, 744}));
}

TEST(Footprint, ScalarLoadIsOneElement) {
    auto f = footprint(vectorAccess(OpKind::ScalarLoad, DType::F64, 0, 24, 0));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].totalBytes(), 8u);
    EXPECT_FALSE(f[0].write);
}

DmaArgs transfer3d() {
    DmaArgs d{};
    d.srcSpace = 1;
    d.dstSpace = 2;
    d.rowBytes = 100;
    d.rows = 3;
    d.planes = 2;
    d.src = 10'000;
    d.dst = 0;
    d.srcRowStride = 1000;
    d.srcPlaneStride = 100'000;
    d.dstRowStride = 100;
    d.dstPlaneStride = 300;
    return d;
}

TEST(Footprint, DmaReadsEveryRowOfTheSourceAndWritesTheDestination) {
    auto f = footprint(dmaStartOp(7, transfer3d()));
    ASSERT_EQ(f.size(), 2u);
    const FootprintRange& src = f[0];
    EXPECT_EQ(src.space, 1);
    EXPECT_FALSE(src.write);
    EXPECT_EQ(src.totalBytes(), 600u);
    EXPECT_EQ(src.runBegin(1, 2), 10'000u + 100'000 + 2000);
    EXPECT_EQ(src.highest(), 10'000u + 100'000 + 2000 + 100);
    const FootprintRange& dst = f[1];
    EXPECT_EQ(dst.space, 2);
    EXPECT_TRUE(dst.write);
    // Densely packed destination: 6 rows of 100 B back to back.
    EXPECT_EQ(dst.lowest(), 0u);
    EXPECT_EQ(dst.highest(), 600u);
}

TEST(Footprint, MulticastWritesEachDestination) {
    DmaArgs d = transfer3d();
    d.multicastCount = 2;
    d.multicastStride = 4096;
    auto strided = footprint(dmaStartOp(1, d));
    ASSERT_EQ(strided.size(), 4u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(strided[1 + i].space, 2);
        EXPECT_EQ(strided[1 + i].begin, i * 4096u);
        EXPECT_TRUE(strided[1 + i].write);
    }
    // Stride 0: the same offset in consecutive spaces.
    d.multicastStride = 0;
    auto spaces = footprint(dmaStartOp(1, d));
    ASSERT_EQ(spaces.size(), 4u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(spaces[1 + i].space, 2 + i);
        EXPECT_EQ(spaces[1 + i].begin, 0u);
    }
}

TEST(Footprint, MacTileReadsInputAndWeightsAndWritesPartialSums) {
    Op op;
    op.kind = OpKind::MacTile;
    op.mac = MacTileArgs{};
    MacTileArgs& m = op.mac;
    m.space = 0;
    m.strideH = m.strideW = 1;
    m.kh = m.kw = 3;
    m.channels = 4;
    m.filters = 8;
    m.inH = m.inW = 10;
    m.outH = m.outW = 8;
    m.in = 0;
    m.weights = 1000;
    m.out = 5000;
    m.out8 = 9000;
    auto f = footprint(op);
    ASSERT_EQ(f.size(), 3u);
    EXPECT_EQ(f[0].totalBytes(), 4u * 10 * 10);  // input, INT8
    EXPECT_EQ(f[1].begin, 1000u);
    EXPECT_EQ(f[1].totalBytes(), 8u * 4 * 3 * 3);  // weights
    EXPECT_TRUE(f[2].write);
    EXPECT_EQ(f[2].totalBytes(), 8u * 8 * 8 * 4);  // INT32 partial sums
    m.accumulate = 1;
    m.requantize = 1;
    f = footprint(op);
    ASSERT_EQ(f.size(), 5u);
    EXPECT_FALSE(f[2].write);  // partial sums read first
    EXPECT_EQ(f[2].begin, 5000u);
    EXPECT_TRUE(f[3].write);
    EXPECT_EQ(f[4].begin, 9000u);
    EXPECT_EQ(f[4].totalBytes(), 8u * 8 * 8);  // INT8 outputs
    EXPECT_TRUE(footprint(macArrayFence(0)).empty());
}

TEST(Footprint, OpsWithoutMemoryOperandsTouchNothing) {
    for (OpKind k : {OpKind::Nop, OpKind::Fma, OpKind::Broadcast, OpKind::DmaWait, OpKind::Barrier}) {
        Op op;
        op.kind = k;
        EXPECT_TRUE(footprint(op).empty()) << opKindName(k);
    }
}

}  // namespace
}  // namespace tessim
