// Systolic array timing (SCALE-Sim v2 formula) and the conv planner's geometry.
#include <gtest/gtest.h>

#include "models/compute/SystolicArray.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {
namespace {

TEST(SystolicArray, ScaleSimGoldenAlexnetPart) {
    // docs/sources/scalesim-compat.md: WS, 32×32, 224×224 input, 11×11, C 3, N 96, stride 4.
    // SCALE-Sim counts output pixels per filter as ceil((224 − 11 + 4) / 4) = 55 per side (its
    // golden T = 3025), not the floor of the facts file's formula.
    std::uint64_t e = 55 * 55;
    SystolicMapping m = mapTile(32, 32, Dataflow::WeightStationary, e, 96, 11 * 11 * 3);
    EXPECT_EQ(m.folds, 36u);
    EXPECT_EQ(m.cyclesPerFold, 3119u);
    EXPECT_EQ(m.cycles() - 1, 112283u);
}

TEST(SystolicArray, DataflowsMapOperands) {
    SystolicMapping os = mapTile(8, 8, Dataflow::OutputStationary, 100, 16, 27);
    EXPECT_EQ(os.folds, 13u * 2u);
    EXPECT_EQ(os.cyclesPerFold, 8u + 8u + 27u - 2u);
    SystolicMapping is = mapTile(8, 8, Dataflow::InputStationary, 100, 16, 27);
    EXPECT_EQ(is.folds, 4u * 13u);
    EXPECT_EQ(is.cyclesPerFold, 16u + 8u + 16u - 2u);
}

TEST(SystolicArray, OccupancyWorkAndFence) {
    SystolicConfig c;
    c.name = "mac";
    c.rows = 32;
    c.cols = 64;
    SystolicArray a(c);
    EXPECT_DOUBLE_EQ(a.peakWorkPerCycle(), 2048.0);
    Op op;
    op.kind = OpKind::MacTile;
    op.mac = MacTileArgs{};
    op.mac.strideH = op.mac.strideW = 1;
    EXPECT_EQ(a.occupancy(op), 1u);  // fence
    op.mac.kh = op.mac.kw = 3;
    op.mac.channels = 64;
    op.mac.filters = 64;
    op.mac.outH = 4;
    op.mac.outW = 8;
    op.mac.inH = 6;
    op.mac.inW = 10;
    EXPECT_DOUBLE_EQ(a.work(op), 4.0 * 8 * 64 * 64 * 9);
    EXPECT_EQ(a.occupancy(op), 18u * (64 + 64 + 32 - 2));
}

TEST(SystolicArray, RequantisationRoundsHalfAwayAndClamps) {
    EXPECT_EQ(requantizeI8(3, 1, 1), 2);    // 1.5 → 2
    EXPECT_EQ(requantizeI8(-3, 1, 1), -2);  // −1.5 → −2
    EXPECT_EQ(requantizeI8(5, 1, 2), 1);    // 1.25 → 1
    EXPECT_EQ(requantizeI8(-5, 1, 2), -1);  // −1.25 → −1
    EXPECT_EQ(requantizeI8(7, 3, 3), 3);    // 21 / 8 = 2.625 → 3
    EXPECT_EQ(requantizeI8(100, -1, 0), -100);
    EXPECT_EQ(requantizeI8(1000, 1, 0), 127);
    EXPECT_EQ(requantizeI8(-1000, 1, 0), -128);
    EXPECT_EQ(requantizeI8(255, 1, 1), 127);    // 127.5 → 128 → clamped
    EXPECT_EQ(requantizeI8(-257, 1, 1), -128);  // −128.5 → −129 → clamped
    // The extremes: |acc · multiplier| = 2^62; shift 63 gives exactly ±0.5, rounded away.
    EXPECT_EQ(requantizeI8(INT32_MIN, INT32_MIN, 63), 1);
    EXPECT_EQ(requantizeI8(INT32_MIN, INT32_MAX, 62), -1);
    EXPECT_EQ(requantizeI8(INT32_MAX, INT32_MAX, 0), 127);
}

TEST(SystolicArray, RequantisationTakesOneArrayRowOfOutputsPerCycle) {
    SystolicConfig c;
    c.name = "mac";
    c.rows = 32;
    c.cols = 64;
    SystolicArray a(c);
    Op op;
    op.kind = OpKind::MacTile;
    op.mac = MacTileArgs{};
    op.mac.strideH = op.mac.strideW = 1;
    op.mac.kh = op.mac.kw = 3;
    op.mac.channels = 64;
    op.mac.filters = 48;
    op.mac.outH = 3;
    op.mac.outW = 5;
    op.mac.inH = 5;
    op.mac.inW = 7;
    const std::uint64_t plain = a.occupancy(op);
    op.mac.requantize = 1;
    op.mac.multiplier = 1;
    EXPECT_EQ(a.occupancy(op), plain + (48u * 15u + 63u) / 64u);  // 720 outputs: 12 cycles
    EXPECT_EQ(requantCycles(op.mac, 64), 12u);
}

TEST(ConvGeometry, HaloSpans) {
    // 3×3, stride 1, pad 1: a 4-row output tile needs (4 − 1)·1 + 3 = 6 input rows.
    TileSpan t = tileSpan(0, 4, 10, 10, 3, 1, 1);
    EXPECT_EQ(t.in, 6u);
    EXPECT_EQ(t.padBefore, 1u);
    EXPECT_EQ(t.valid, 5u);
    TileSpan last = tileSpan(8, 4, 10, 10, 3, 1, 1);
    EXPECT_EQ(last.n, 2u);
    EXPECT_EQ(last.in, 4u);
    EXPECT_EQ(last.padAfter, 1u);
    // Stride 2: (n − 1)·2 + 3.
    EXPECT_EQ(tileSpan(0, 3, 5, 9, 3, 2, 0).in, 7u);
}

TEST(ConvGeometry, PlannerFitsAndFailsClearly) {
    ConvShape s{540, 960, 64, 64, 3, 3, 1, 1, 1, 1};
    PlannerMachine m;
    m.sramBytes = 1 << 20;
    m.ddrBytesPerSecond = 34e9;
    m.clockHz = 1e9;
    m.rows = 32;
    m.cols = 64;
    ConvTiling t;
    std::string msg;
    ASSERT_TRUE(planTiling(s, ConvStrategy::DoubleBuffer, TileRequest{}, m, t, msg));
    EXPECT_LE(sramLayout(s, t, ConvStrategy::DoubleBuffer).total, m.sramBytes);
    m.sramBytes = 4096;
    EXPECT_FALSE(planTiling(s, ConvStrategy::DoubleBuffer, TileRequest{kFull, kFull, 0, 0}, m, t, msg));
    EXPECT_NE(msg.find("SRAM holds 4096 B"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tessim
