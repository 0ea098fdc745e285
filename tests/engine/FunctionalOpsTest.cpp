// Functional execution (--functional) of the extended op IR on real bytes: scalar ALU ops,
// scalar stores, vsetvl, vector-scalar FMA, register gather and reductions over LMUL groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "engine/EngineTestUtil.h"

namespace tessim {
namespace {

using namespace test;

constexpr std::uint64_t kX = 0, kIndex = 256, kScalar = 512, kOut = 1024, kScalarOut = 1536;

Op memoryOp(OpKind kind, DType dtype, std::uint8_t reg, std::uint64_t addr, std::uint32_t vl) {
    Op op;
    op.kind = kind;
    op.dtype = dtype;
    op.vl = vl;
    op.addr = addr;
    op.space = 0;  // spm
    if (kind == OpKind::VLoad || kind == OpKind::ScalarLoad)
        op.dst = reg;
    else
        op.src[0] = reg;
    return op;
}

TEST(FunctionalOps, NewOpsComputeOnRealBytes) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x(32), index{7, 6, 5, 4, 3, 2, 1, 100};
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i + 1);
    const std::int32_t three = 3;
    t.write(0, kX, x.data(), x.size() * 4);
    t.write(0, kIndex, index.data(), index.size() * 4);
    t.write(0, kScalar, &three, 4);

    Op vsetvl = scalarOp(OpKind::VSetVl, s(5), kNoReg, 4);  // lmul 4 of f32: VLMAX 32
    vsetvl.dtype = DType::F32;
    vsetvl.vl = 100;  // AVL
    Op broadcast = vector(OpKind::Broadcast, 16, kNoReg, kNoReg, kNoReg, 32);
    broadcast.imm = 1.0;
    Op shiftRight = scalarOp(OpKind::SShift, s(8), s(7), -2);
    Op multiply = scalarOp(OpKind::SMul, s(9), s(3), 0);
    multiply.src[1] = s(8);
    Op ordered = vector(OpKind::Reduce, s(6), 16, kNoReg, kNoReg, 32);
    ordered.flags = Op::kOrdered;
    std::vector<Op> ops{
        memoryOp(OpKind::ScalarLoad, DType::I32, s(3), kScalar, 1),
        vsetvl,
        memoryOp(OpKind::VLoad, DType::F32, 8, kX, 32),  // m4: v8..v11
        broadcast,                                       // v16..v19 ← 1
        vector(OpKind::Fma, 16, s(3), 8, 16, 32),        // vfmacc.vf: v16 ← 3 · v8 + v16
        memoryOp(OpKind::VStore, DType::F32, 16, kOut, 32),
        memoryOp(OpKind::VLoad, DType::F32, 4, kIndex, 8),
        vector(OpKind::Gather, 12, 8, 4),  // v12[i] ← v8[v4[i]]
        ordered,                           // s6 ← Σ v16
        scalarOp(OpKind::SShift, s(7), s(3), 4),
        shiftRight,
        multiply,
        memoryOp(OpKind::ScalarStore, DType::I32, s(9), kScalarOut, 1),
    };
    runOn("rvv", ops, /*functional=*/true);
    Engine* e = target()->findEngine("rvv");

    std::vector<float> out(32);
    t.read(0, kOut, out.data(), out.size() * 4);
    for (std::size_t i = 0; i < out.size(); ++i)
        EXPECT_EQ(out[i], 3.0f * static_cast<float>(i + 1) + 1.0f) << i;
    const std::vector<double>& gathered = e->vectorRegister(12);
    const std::vector<double> expected{8, 7, 6, 5, 4, 3, 2, 0};  // index 100 is out of range
    ASSERT_GE(gathered.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
        EXPECT_EQ(gathered[i], expected[i]) << i;
    EXPECT_EQ(e->scalarRegister(5), 32.0);
    EXPECT_EQ(e->scalarRegister(6), 3.0 * 528 + 32);  // Σ (3 (i + 1) + 1), i < 32
    EXPECT_EQ(e->scalarRegister(7), 48.0);
    EXPECT_EQ(e->scalarRegister(8), 12.0);
    std::int32_t stored = 0;
    t.read(0, kScalarOut, &stored, 4);
    EXPECT_EQ(stored, 36);
}

// Pooling and activations: max and min element by element (a negative, zero and positive mix
// against a splat), at vfadd's cost (issued as add by a unit that times no max or min).
TEST(FunctionalOps, MaxAndMinComputeElementwiseAndCostAsAdd) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x{-3.5f, -0.0f, 0.25f, 1.0f, 6.0f, 7.5f, -100.0f, 42.0f};
    t.write(0, kX, x.data(), x.size() * 4);
    Op zero = vector(OpKind::Broadcast, 16, kNoReg);
    zero.imm = 0.0;
    Op six = vector(OpKind::Broadcast, 24, kNoReg);
    six.imm = 6.0;
    auto clip = [&](OpKind lower, OpKind upper) {
        return std::vector<Op>{memoryOp(OpKind::VLoad, DType::F32, 8, kX, 8),
                               zero,
                               six,
                               vector(lower, 0, 8, 16),
                               vector(upper, 0, 0, 24),
                               memoryOp(OpKind::VStore, DType::F32, 0, kOut, 8)};
    };
    const EngineRun clipped = runOn("rvv", clip(OpKind::Max, OpKind::Min), /*functional=*/true);
    std::vector<float> out(8);
    t.read(0, kOut, out.data(), out.size() * 4);
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(out[i], std::min(std::max(x[i], 0.0f), 6.0f)) << i;
    makeTarget();
    EXPECT_EQ(clipped.cycles, runOn("rvv", clip(OpKind::Add, OpKind::Add)).cycles);
}

// A Reduce whose count is kReduceMax keeps the largest element (vfredmax), with the scalar it is
// given or over the vector alone, at the sum's cost (the board times vfredmax as vfredusum).
TEST(FunctionalOps, AMaxReductionKeepsTheLargestAtTheSumsCost) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x{-3.5f, -0.0f, 0.25f, -1.0f, 6.0f, 7.5f, -100.0f, 2.0f};
    t.write(0, kX, x.data(), x.size() * 4);
    auto reduce = [&](bool max) {
        Op alone = vector(OpKind::Reduce, s(6), 8, kNoReg, kNoReg, 8);
        Op more = vector(OpKind::Reduce, s(7), 8, s(6), kNoReg, 8);  // with s6 as the start
        if (max)
            alone.count = more.count = kReduceMax;
        return std::vector<Op>{memoryOp(OpKind::VLoad, DType::F32, 8, kX, 8), alone, more};
    };
    const EngineRun maxRun = runOn("rvv", reduce(true), /*functional=*/true);
    Engine* e = target()->findEngine("rvv");
    EXPECT_EQ(e->scalarRegister(6), 7.5);
    EXPECT_EQ(e->scalarRegister(7), 7.5);
    makeTarget().functionalMemory().write(0, kX, x.data(), x.size() * 4);
    const EngineRun sumRun = runOn("rvv", reduce(false), /*functional=*/true);
    EXPECT_EQ(target()->findEngine("rvv")->scalarRegister(6), -88.75);
    EXPECT_EQ(target()->findEngine("rvv")->scalarRegister(7), -177.5);
    EXPECT_EQ(maxRun.cycles, sumRun.cycles);
}

// Divides element by element, rounded once (a zero divisor gives IEEE's infinity), on the
// divider's own row: unpipelined, so a second independent divide issues a whole reciprocal later.
TEST(FunctionalOps, DivideComputesElementwiseOnAnUnpipelinedDivider) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x{1.0f, -3.0f, 10.0f, 0.1f, 7.0f, 1e30f, -0.5f, 2.0f};
    std::vector<float> y{3.0f, 2.0f, -4.0f, 3.0f, 0.0f, 1e-10f, 0.25f, 7.0f};
    t.write(0, kX, x.data(), x.size() * 4);
    t.write(0, kIndex, y.data(), y.size() * 4);
    const std::vector<Op> one{
        memoryOp(OpKind::VLoad, DType::F32, 8, kX, 8), memoryOp(OpKind::VLoad, DType::F32, 16, kIndex, 8),
        vector(OpKind::Div, 0, 8, 16), memoryOp(OpKind::VStore, DType::F32, 0, kOut, 8)};
    const EngineRun single = runOn("rvv", one, /*functional=*/true);
    std::vector<float> out(8);
    t.read(0, kOut, out.data(), out.size() * 4);
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(out[i], x[i] / y[i]) << i;
    std::vector<Op> two = one;  // a second divide, whose result is stored
    two.insert(two.begin() + 3, vector(OpKind::Div, 24, 16, 8));
    two.back().src[0] = 24;
    makeTarget();
    EXPECT_EQ(runOn("rvv", two).cycles, single.cycles + 23);
}

// A slide at stride S reads its (up to three) sources end to end and keeps every S-th element from
// imm: the lane phases of a stride-S convolution row (seed 003's shuffle mode set by the stride).
TEST(FunctionalOps, AStridedSlideDealsEveryStrideThElementOfItsSources) {
    std::vector<float> x(24);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i) + 0.5f;
    for (const auto& [stride, imm] : {std::pair{2, 0}, std::pair{2, 1}, std::pair{3, 2}, std::pair{2, 7}}) {
        SCOPED_TRACE("stride " + std::to_string(stride) + " imm " + std::to_string(imm));
        FunctionalMemory& t = makeTarget().functionalMemory();  // a run per target
        t.write(0, kX, x.data(), x.size() * 4);
        Op deal = vector(OpKind::Slide, 0, 8, 16, 24);
        deal.stride = stride;
        deal.imm = imm;
        const std::vector<Op> ops{memoryOp(OpKind::VLoad, DType::F32, 8, kX, 8),
                                  memoryOp(OpKind::VLoad, DType::F32, 16, kX + 32, 8),
                                  memoryOp(OpKind::VLoad, DType::F32, 24, kX + 64, 8), deal,
                                  memoryOp(OpKind::VStore, DType::F32, 0, kOut, 8)};
        runOn("rvv", ops, /*functional=*/true);
        std::vector<float> out(8);
        t.read(0, kOut, out.data(), out.size() * 4);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const std::size_t j = i * static_cast<std::size_t>(stride) + static_cast<std::size_t>(imm);
            EXPECT_EQ(out[i], j < x.size() ? x[j] : 0.0f) << i;
        }
    }
}

// Converts f32 → i32 rounding to nearest even and saturating, i32 → i16 saturating (read back
// through i16 → i32); priced by the wider group: the narrowing convert reads 4 registers (m4: 8
// cycles), and its source group must start at a multiple of 4.
TEST(FunctionalOps, ConvertRoundsToNearestEvenSaturatesAndIsPricedByTheWiderGroup) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x(32, 0.0f);
    const std::vector<float> head{1.5f, 2.5f, -2.5f, -0.5f, 3e9f, -3e9f, 16777217.0f, 0.49f};
    std::copy(head.begin(), head.end(), x.begin());
    t.write(0, kX, x.data(), x.size() * 4);
    auto convert = [](std::uint8_t dst, std::uint8_t src, DType to, DType from) {
        Op op = vector(OpKind::Convert, dst, src, kNoReg, kNoReg, 32);
        op.dtype = to;
        op.count = static_cast<std::uint32_t>(from);
        return op;
    };
    const std::vector<Op> ops{memoryOp(OpKind::VLoad, DType::F32, 8, kX, 32),
                              convert(16, 8, DType::I32, DType::F32),  // vfcvt.x.f.v, m4
                              memoryOp(OpKind::VStore, DType::I32, 16, kOut, 32),
                              convert(4, 16, DType::I16, DType::I32),  // vnclip: reads v16..v19
                              convert(24, 4, DType::I32, DType::I16),  // vsext.vf2: reads v4..v5
                              memoryOp(OpKind::VStore, DType::I32, 24, kScalarOut, 32)};
    const EngineRun run = runOn("rvv", ops, /*functional=*/true);
    std::vector<std::int32_t> ints(8), shorts(8);
    t.read(0, kOut, ints.data(), ints.size() * 4);
    t.read(0, kScalarOut, shorts.data(), shorts.size() * 4);
    EXPECT_EQ(ints, (std::vector<std::int32_t>{2, 2, -2, 0, 2147483647, -2147483647 - 1, 16777216, 0}));
    EXPECT_EQ(shorts, (std::vector<std::int32_t>{2, 2, -2, 0, 32767, -32768, 32767, 0}));
    // The narrowing convert waits for the whole group it reads and takes m4's 8 cycles.
    const std::vector<Op> first{ops[0], ops[1], ops[2]};
    makeTarget();
    EXPECT_GE(run.cycles, runOn("rvv", first).cycles + 8);
    // A source group that does not start at a multiple of its span is refused.
    const std::vector<Op> misaligned{ops[0], convert(4, 10, DType::I16, DType::I32)};
    makeTarget();
    EXPECT_THROW(runOn("rvv", misaligned), std::runtime_error);
}

// A reciprocal estimate keeps 8 significant bits of 1/x (1/3 → 171/512), exact where 1/x is a
// power of two; ±0 gives ±infinity, infinity 0; and it waits for the unit's `recip` latency.
TEST(FunctionalOps, RecipEstimatesTheReciprocalToEightBits) {
    FunctionalMemory& t = makeTarget().functionalMemory();
    std::vector<float> x(8, 1.0f);
    const std::vector<float> head{3.0f, -0.75f, 256.0f, 0.0f, -0.0f, INFINITY, 10.0f};
    std::copy(head.begin(), head.end(), x.begin());
    t.write(0, kX, x.data(), x.size() * 4);
    const std::vector<Op> ops{memoryOp(OpKind::VLoad, DType::F32, 8, kX, 8),
                              vector(OpKind::Recip, 16, 8, kNoReg, kNoReg, 8),
                              memoryOp(OpKind::VStore, DType::F32, 16, kOut, 8)};
    const EngineRun run = runOn("rvv", ops, /*functional=*/true);
    std::vector<float> r(8);
    t.read(0, kOut, r.data(), r.size() * 4);
    EXPECT_EQ(r[0], 171.0f / 512);
    EXPECT_EQ(r[1], -171.0f / 128);
    EXPECT_EQ(r[2], 1.0f / 256);
    EXPECT_EQ(r[3], INFINITY);
    EXPECT_EQ(r[4], -INFINITY);
    EXPECT_EQ(r[5], 0.0f);
    EXPECT_EQ(r[6], 205.0f / 2048);  // 0.1 = 0.8 · 2^-3; 0.8 · 256 = 204.8 → 205
    EXPECT_EQ(r[7], 1.0f);
    for (std::size_t i = 0; i < head.size(); ++i)
        if (std::isfinite(head[i]) && head[i] != 0.0f)
            EXPECT_LE(std::fabs(r[i] * head[i] - 1.0f), 1.0f / 512) << head[i];
    const std::vector<Op> load{ops[0]};
    makeTarget();
    EXPECT_GE(run.cycles, runOn("rvv", load).cycles + 7);
}

TEST(FunctionalOps, ScalarCompareAndAddFollowTheirDatatype) {
    Op add = scalarOp(OpKind::SAdd, s(1), s(0), 2147483647.0);  // i32 wraps
    Op wrap = scalarOp(OpKind::SAdd, s(2), s(1), 1);
    Op less = scalarOp(OpKind::SCompare, s(3), s(2), 0);
    Op notLess = scalarOp(OpKind::SCompare, s(4), s(1), 0);
    runOn("rvv", {add, wrap, less, notLess}, true);
    Engine* e = target()->findEngine("rvv");
    EXPECT_EQ(e->scalarRegister(2), -2147483648.0);
    EXPECT_EQ(e->scalarRegister(3), 1.0);
    EXPECT_EQ(e->scalarRegister(4), 0.0);
}

TEST(FunctionalOps, ShiftOfAFloatIsAnError) {
    Op shift = scalarOp(OpKind::SShift, s(1), s(0), 1);
    shift.dtype = DType::F32;
    EXPECT_THROW(runOn("rvv", {shift}, true), std::runtime_error);
}

Op bundleStart(Op op) {
    op.flags |= Op::kBundleStart;
    return op;
}

TEST(FunctionalOps, VliwBundlesExecute) {
    Op five = bundleStart(scalarOp(OpKind::SAdd, s(1), s(0), 5));
    Op seven = scalarOp(OpKind::SAdd, s(2), s(0), 7);
    Op sum = bundleStart(scalarOp(OpKind::SAdd, s(3), s(1), 0));
    sum.src[1] = s(2);
    runOn("dsp", {five, seven, sum}, true);
    EXPECT_EQ(target()->findEngine("dsp")->scalarRegister(3), 12.0);
}

TEST(FunctionalOps, ABundleThatReadsItsOwnResultIsRefused) {
    Op first = bundleStart(scalarOp(OpKind::SAdd, s(1), s(0), 5));
    Op reader = scalarOp(OpKind::SAdd, s(2), s(1), 1);
    try {
        runOn("dsp", {first, reader}, true);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("reads s1, which an earlier op of the same bundle writes"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace tessim
