// The extended op IR's timing against closed forms: scalar ALU ops and branches, vector-scalar
// forms, LMUL register groups in the scoreboard, per-LMUL cost tables, ordered reductions, VLIW
// bundles with slot classes, and the registers an engine has.
#include <gtest/gtest.h>

#include "engine/EngineTestUtil.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using namespace test;

Op branch(std::uint8_t condition, bool taken) {
    Op op;
    op.kind = OpKind::Branch;
    op.src[0] = condition;
    op.flags = taken ? Op::kTaken : 0;
    return op;
}

Op reduce(bool ordered, std::uint32_t vl) {
    Op op = vector(OpKind::Reduce, s(1), 8, kNoReg, kNoReg, vl);
    if (ordered)
        op.flags |= Op::kOrdered;
    return op;
}

Op bundled(Op op) {
    op.flags |= Op::kBundleStart;
    return op;
}

TEST(IssueModel, ScalarMultiplyChainCostsItsLatencyAndIndependentOnesItsThroughput) {
    const std::uint64_t n = 100;
    std::vector<Op> dependent, independent;
    for (std::uint64_t i = 0; i < n; ++i) {
        dependent.push_back(scalarOp(OpKind::SMul, s(1), s(1), 3));
        independent.push_back(scalarOp(OpKind::SMul, s(2 + i % 8), s(1), 3));
    }
    EXPECT_EQ(runOn("rvv", dependent).cycles, n * 3);
    makeTarget();
    EXPECT_EQ(runOn("rvv", independent).cycles, (n - 1) * 1 + 3);
}

TEST(IssueModel, EveryScalarOpHasItsTableLatency) {
    // Each op feeds the next: sadd 1, sshift 1, scmp 1, smul 3, vsetvl 1.
    std::vector<Op> ops{scalarOp(OpKind::SAdd, s(1), s(0), 5), scalarOp(OpKind::SShift, s(2), s(1), 2),
                        scalarOp(OpKind::SCompare, s(3), s(2), 100), scalarOp(OpKind::SMul, s(4), s(3), 7)};
    Op vsetvl = scalarOp(OpKind::VSetVl, s(5), kNoReg, 1);
    vsetvl.src[0] = s(4);
    vsetvl.vl = 1000;  // a requested length: it costs nothing more
    ops.push_back(vsetvl);
    EngineRun r = runOn("rvv", ops);
    EXPECT_EQ(r.cycles, 1u + 1 + 1 + 3 + 1);
    EXPECT_EQ(r.stalls.total(), r.cycles);
}

TEST(IssueModel, ScalarLoopCostsItsChainPlusTheRedirectPenaltyPerTakenBranch) {
    // for (s1 = 0; s1 < n; ) { s1 += 1; s2 = s1 < n; branch back if s2 }: sadd, scmp and the
    // branch each wait for the previous (1 cycle each); a taken branch adds 2 cycles.
    const unsigned n = 50;
    std::vector<Op> ops;
    for (unsigned i = 0; i < n; ++i) {
        ops.push_back(scalarOp(OpKind::SAdd, s(1), s(1), 1));
        ops.push_back(scalarOp(OpKind::SCompare, s(2), s(1), n));
        ops.push_back(branch(s(2), i + 1 < n));
    }
    makeTarget();
    EngineRun r = runOn("rvv", ops, /*functional=*/true);
    const std::uint64_t period = 1 + 1 + 1 + 2;
    EXPECT_EQ(r.cycles, (n - 1) * period + 3);
    EXPECT_EQ(r.stalls[StallReason::Compute], 3u * n);
    // The redirect's cycles are the front end's (branch), not a wait for an operand.
    EXPECT_EQ(r.stalls[StallReason::Branch], 2u * (n - 1));
    EXPECT_EQ(r.stalls[StallReason::Dependency], 0u);
    EXPECT_EQ(r.stalls.total(), r.cycles);
    EXPECT_EQ(target()->findEngine("rvv")->scalarRegister(1), n);
}

TEST(IssueModel, NotTakenBranchesCostNoRedirect) {
    std::vector<Op> ops;
    for (unsigned i = 0; i < 10; ++i)
        ops.push_back(branch(kNoReg, false));
    EXPECT_EQ(runOn("rvv", ops).cycles, 10u);
}

TEST(IssueModel, BranchFlagThatContradictsItsConditionIsAnError) {
    std::vector<Op> ops{scalarOp(OpKind::SCompare, s(2), s(1), 5), branch(s(2), false)};
    try {
        runOn("rvv", ops, true);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("branch is marked not taken"), std::string::npos) << e.what();
    }
}

TEST(IssueModel, VectorScalarFmaChainWaitsForTheScalarThenCostsLatencyPerOp) {
    // s1 ← s0 + 3 (1 cycle), then n × vfmacc.vf v8 ← s1 · v2 + v8.
    const std::uint64_t n = 40;
    std::vector<Op> ops{scalarOp(OpKind::SAdd, s(1), s(0), 3)};
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(vector(OpKind::Fma, 8, s(1), 2, 8));
    EXPECT_EQ(runOn("rvv", ops).cycles, 1 + n * 5);
}

TEST(IssueModel, GatherOccupancyFollowsThePerLmulTable) {
    // Independent vrgather.vv at m1, m2, m4, m8 (vl = 8·G f32): the table gives 4/16/64/256; the
    // last result's latency is 4 plus what the group adds over m1, so n ops take n·occupancy.
    const std::uint64_t n = 20;
    for (std::uint32_t group : {1u, 2u, 4u, 8u}) {
        std::vector<Op> ops;
        for (std::uint64_t i = 0; i < n; ++i)
            ops.push_back(vector(OpKind::Gather, 0, 8, 16, kNoReg, 8 * group));
        makeTarget();
        const std::uint64_t occupancy = group == 1 ? 4 : group == 2 ? 16 : group == 4 ? 64 : 256;
        EXPECT_EQ(runOn("rvv", ops).cycles, n * occupancy) << "m" << group;
    }
}

TEST(IssueModel, OrderedReductionsHaveTheirOwnTable) {
    const std::uint64_t n = 30;
    auto cycles = [&](bool ordered, std::uint32_t vl) {
        std::vector<Op> ops;
        for (std::uint64_t i = 0; i < n; ++i)
            ops.push_back(reduce(ordered, vl));
        makeTarget();
        return runOn("rvv", ops).cycles;
    };
    // m1: unordered 6.5 cycles per op (whole cycles 7, 6, 7, … that add up to the fractions:
    // the last op issues at ⌈29 · 6.5⌉), latency 7; ordered 11 and 11.
    EXPECT_EQ(cycles(false, 8), (n - 1) * 13 / 2 + 1 + 7);
    EXPECT_EQ(cycles(true, 8), (n - 1) * 11 + 11);
    // m4: unordered 17 per op, latency 7 + (17 − 6.5) → 18; ordered 48, latency 11 + (48 − 11).
    EXPECT_EQ(cycles(false, 32), (n - 1) * 17 + 18);
    EXPECT_EQ(cycles(true, 32), (n - 1) * 48 + 48);
}

TEST(IssueModel, LatencyFollowsThePerLmulTable) {
    // Dependent slides (v8 ← v8 shifted): the latency table gives 3 at m1 and 17 at m4, more
    // than the occupancy (2 per register).
    const std::uint64_t n = 20;
    for (std::uint32_t group : {1u, 4u}) {
        std::vector<Op> ops;
        for (std::uint64_t i = 0; i < n; ++i) {
            Op slide = vector(OpKind::Slide, 8, 8, kNoReg, kNoReg, 8 * group);
            slide.imm = 1;
            ops.push_back(slide);
        }
        makeTarget();
        EXPECT_EQ(runOn("rvv", ops).cycles, n * (group == 1 ? 3 : 17)) << "m" << group;
    }
}

TEST(IssueModel, LinearScalingWithoutATable) {
    // vfadd m4: 4 × reciprocal 1; latency 4 + 3.
    const std::uint64_t n = 25;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(vector(OpKind::Add, 0, 8, 16, kNoReg, 32));
    EXPECT_EQ(runOn("rvv", ops).cycles, (n - 1) * 4 + 7);
}

TEST(IssueModel, AnLmul4ResultBlocksEveryRegisterOfItsGroupAndNoOther) {
    // vfmacc m4 into v8..v11: issue 0, occupancy 4, result at 5 + 3 = 8.
    const Op producer = vector(OpKind::Fma, 8, 0, 4, 8, 32);
    // A reader of v11 waits for 8 and finishes at 8 + 4; a reader of v12 issues when the unit is
    // free (4) and finishes with the producer (8).
    EngineRun inGroup = runOn("rvv", {producer, vector(OpKind::Add, 16, 11, 1)});
    EXPECT_EQ(inGroup.cycles, 12u);
    EXPECT_EQ(inGroup.stalls[StallReason::Dependency], 7u);
    makeTarget();
    EngineRun outside = runOn("rvv", {producer, vector(OpKind::Add, 16, 12, 1)});
    EXPECT_EQ(outside.cycles, 8u);
    EXPECT_EQ(outside.stalls[StallReason::Dependency], 0u);
}

TEST(IssueModel, AGroupReadIsBlockedByAWriteToAnyOfItsRegisters) {
    // An m1 write of v13 (ready 5) blocks an m4 read of v12..v15.
    EngineRun r =
        runOn("rvv", {vector(OpKind::Fma, 13, 0, 1, 2), vector(OpKind::Add, 16, 12, 20, kNoReg, 32)});
    EXPECT_EQ(r.cycles, 5u + 7);
}

void expectError(const std::string& engine, std::vector<Op> ops, const std::vector<std::string>& fragments) {
    try {
        runOn(engine, std::move(ops));
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        for (const auto& f : fragments)
            EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
}

TEST(IssueModel, AMisalignedRegisterGroupIsAnError) {
    expectError("rvv", {vector(OpKind::Fma, 9, 0, 4, 8, 32)}, {"rvv", "'fma'", "v9", "group of 4"});
}

TEST(IssueModel, AGroupPastTheLastRegisterIsAnError) {
    expectError("rvv", {vector(OpKind::Add, 0, 8, 16, kNoReg, 8 * 64)}, {"rvv", "group of 64", "v8"});
}

TEST(IssueModel, ARegisterBeyondTheEnginesCountIsAnError) {
    expectError("rvv", {vector(OpKind::Add, 40, 8, 16)},
                {"engine rvv", "op 'add'", "register v40", "32 vector"});
    makeTarget();
    expectError("rvv", {scalarOp(OpKind::SAdd, s(33), s(1), 1)}, {"engine rvv", "op 'sadd'", "register s33"});
}

TEST(IssueModel, RegisterCountsComeFromYaml) {
    makeTarget({"rvv.vector_registers=16"});
    expectError("rvv", {vector(OpKind::Add, 16, 0, 1)}, {"register v16", "16 vector registers"});
}

TEST(Vliw, ABundleWithOneUnreadyOperandWaitsWhole) {
    // v3 is ready at 5. The bundle {v4 ← ready operands, v5 ← v3} issues at 5, so the chain on
    // v4 issues at 10 and ends at 15. Unbundled, v4's op issues at 1 and the chain ends at 11.
    const Op producer = bundled(vector(OpKind::Fma, 3, 0, 1, 2));
    const Op ready = bundled(vector(OpKind::Fma, 4, 0, 1, 2));
    const Op unready = vector(OpKind::Fma, 5, 0, 1, 3);
    const Op chained = bundled(vector(OpKind::Fma, 6, 0, 1, 4));
    EngineRun together = runOn("dsp", {producer, ready, unready, chained});
    EXPECT_EQ(together.cycles, 15u);
    EXPECT_EQ(together.stalls.total(), together.cycles);
    EXPECT_EQ(together.stalls[StallReason::Dependency], 4u + 4);
    makeTarget();
    EngineRun apart = runOn("dsp", {producer, ready, bundled(unready), chained});
    EXPECT_EQ(apart.cycles, 11u);
    EXPECT_EQ(apart.stalls.total(), apart.cycles);
}

TEST(Vliw, FillerNopsNeitherSplitNorCostABundle) {
    Op filler;
    Op opener;
    opener.flags = Op::kBundleStart;
    // {fma, nop, fma} is one bundle, {nop, fma} another: two cycles, the last result at 1 + 5.
    EngineRun r = runOn("dsp", {bundled(vector(OpKind::Fma, 8, 0, 1, 2)), filler,
                                vector(OpKind::Fma, 9, 0, 1, 2), opener, vector(OpKind::Fma, 10, 0, 1, 2)});
    EXPECT_EQ(r.cycles, 6u);
}

TEST(Vliw, FullBundlesIssueOnePerCycle) {
    // Two scalar and two vector slots filled every cycle by independent ops.
    const std::uint64_t n = 100;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i) {
        ops.push_back(bundled(scalarOp(OpKind::SAdd, s(1), s(0), 1)));
        ops.push_back(scalarOp(OpKind::SAdd, s(2), s(0), 2));
        ops.push_back(vector(OpKind::Fma, 8, 0, 1, 2));
        Op load = vector(OpKind::VLoad, 9, kNoReg);
        load.addr = 32 * i;
        ops.push_back(load);
    }
    EngineRun r = runOn("dsp", ops);
    EXPECT_EQ(r.cycles, n + 4);  // the last FMA's latency drains
    // Every issue cycle computes; the drain belongs to the memory or the arithmetic.
    EXPECT_GE(r.stalls[StallReason::Compute], n);
    EXPECT_EQ(r.stalls[StallReason::Compute] + r.stalls[StallReason::Memory], r.cycles);
}

TEST(Vliw, SlotClassOverflowIsAnError) {
    // Three vector ops, two vector slots (the vector ALU alone has three instances).
    expectError("dsp",
                {bundled(vector(OpKind::Fma, 8, 0, 1, 2)), vector(OpKind::Fma, 9, 0, 1, 2),
                 vector(OpKind::Fma, 10, 0, 1, 2)},
                {"dsp", "more than 2 ops of slot class 'vector'"});
}

TEST(Vliw, TwoOpsForAUnitWithoutASecondInstanceAreAnError) {
    Op a = bundled(vector(OpKind::VLoad, 8, kNoReg));
    Op b = vector(OpKind::VLoad, 9, kNoReg);
    expectError("dsp", {a, b}, {"dsp", "more 'vload' ops than there are unit instances", "vlsu"});
}

TEST(EngineDescription, TargetInfoExposesRegistersSlotsAndUnitTables) {
    const TargetInfo& info = makeTarget().info();
    const EngineInfo* rvv = info.findEngine("rvv");
    ASSERT_NE(rvv, nullptr);
    EXPECT_EQ(rvv->vectorRegisters, 32u);
    EXPECT_EQ(rvv->scalarRegisters, 32u);
    EXPECT_TRUE(rvv->registerGroups);
    EXPECT_FALSE(rvv->vliw);
    const UnitInfo* valu = rvv->findUnit("valu");
    ASSERT_NE(valu, nullptr);
    EXPECT_EQ(valu->unitClass, "compute");
    const OpTimingInfo* gather = valu->findOp("vgather");
    ASSERT_NE(gather, nullptr);
    EXPECT_EQ(gather->latency, 4.0);
    ASSERT_TRUE(gather->reciprocalByLmul.has_value());
    EXPECT_EQ(*gather->reciprocalByLmul, (std::array<double, 4>{4, 16, 64, 256}));
    EXPECT_EQ(gather->reciprocalAt(4), 64.0);
    ASSERT_NE(valu->findOp("reduce_ordered"), nullptr);
    EXPECT_EQ(valu->findOp("reduce_ordered")->reciprocalAt(8), 192.0);
    EXPECT_EQ(valu->findOp("fma")->reciprocalAt(4), 4.0);

    const EngineInfo* dsp = info.findEngine("dsp");
    ASSERT_NE(dsp, nullptr);
    EXPECT_TRUE(dsp->vliw);
    ASSERT_EQ(dsp->slots.size(), 2u);
    EXPECT_EQ(dsp->slots[0].name, "scalar");
    EXPECT_EQ(dsp->slots[1].count, 2u);
    EXPECT_EQ(dsp->findUnit("valu")->instances, 3u);
    EXPECT_EQ(dsp->findUnit("valu")->slotClass, "vector");
    EXPECT_EQ(dsp->vectorRegisters, kVectorRegs);  // the default
}

void expectConfigError(const std::string& override, const std::string& fragment) {
    try {
        makeTarget({override});
        FAIL() << "expected a ConfigError for " << override;
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
}

TEST(EngineConfigYaml, BadValuesNameTheirKey) {
    expectConfigError("dsp.units.valu.slot=matrix", "no slot class 'matrix'");
    expectConfigError("rvv.vector_registers=65", "rvv.vector_registers");
    expectConfigError("rvv.slots.scalar=2", "slot classes need vliw: true");
    expectConfigError("rvv.units.valu.ops.vgather.reciprocal.m3=4", "m3");
    expectConfigError("rvv.units.salu.slot=scalar", "the engine has no slot classes");
}

}  // namespace
}  // namespace tessim
