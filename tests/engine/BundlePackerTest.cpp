// BundlePacker: a single-issue op stream packed into a VLIW engine's bundles in program order —
// as many ops per bundle as units, slots and register dependences allow, and no more.
#include <gtest/gtest.h>

#include "engine/EngineTestUtil.h"
#include "sim/workload/BundlePacker.h"

namespace tessim {
namespace {

using namespace test;

// The ops after packing, each bundle a list (the first op of each carries kBundleStart).
std::vector<std::vector<Op>> packed(const std::vector<Op>& ops, const EngineInfo& engine) {
    auto stream = packForEngine(std::make_unique<VectorOpStream>(ops), engine);
    std::vector<std::vector<Op>> bundles;
    while (const Op* op = stream->next()) {
        if ((op->flags & Op::kBundleStart) || bundles.empty())
            bundles.emplace_back();
        bundles.back().push_back(*op);
    }
    return bundles;
}

std::vector<Op> loads(unsigned n, std::uint8_t firstReg) {
    std::vector<Op> ops;
    for (unsigned i = 0; i < n; ++i) {
        Op load = vector(OpKind::VLoad, static_cast<std::uint8_t>(firstReg + i), kNoReg);
        load.addr = 32 * i;
        ops.push_back(load);
    }
    return ops;
}

TEST(BundlePacker, FillsSlotsAndUnitsInProgramOrderAndSplitsAtADependence) {
    const EngineInfo& dsp = *makeTarget().info().findEngine("dsp");
    std::vector<Op> ops{vector(OpKind::Fma, 8, 0, 1, 2), vector(OpKind::Fma, 9, 0, 1, 2),
                        vector(OpKind::Fma, 10, 0, 1, 2)};  // two vector slots: {8, 9} {10 …
    for (const Op& l : loads(2, 20))                        // … 20} then one vlsu: {21 …
        ops.push_back(l);
    ops.push_back(scalarOp(OpKind::SAdd, s(1), s(0), 1));  // … s1, s2} two scalar slots
    ops.push_back(scalarOp(OpKind::SAdd, s(2), s(0), 1));
    ops.push_back(scalarOp(OpKind::SAdd, s(3), s(1), 1));  // reads s1 of the bundle before: joins
    ops.push_back(vector(OpKind::Fma, 11, 8, 1, 2));       // {s3, 11}
    ops.push_back(vector(OpKind::Fma, 12, 11, 1, 2));      // reads 11 of its own bundle: {12}
    ops.push_back(vector(OpKind::Fma, 1, 0, 0, 0));        // writes v1, which 12 reads: {1}
    const auto bundles = packed(ops, dsp);
    std::vector<std::vector<std::uint8_t>> dsts;
    for (const auto& b : bundles) {
        dsts.emplace_back();
        for (const Op& op : b)
            dsts.back().push_back(op.dst);
    }
    const std::vector<std::vector<std::uint8_t>> want{{8, 9},     {10, 20}, {21, s(1), s(2)},
                                                      {s(3), 11}, {12},     {1}};
    EXPECT_EQ(dsts, want);
    // The engine takes every packed bundle; the same ops unpacked are one bundle it refuses.
    std::vector<Op> flat;
    for (const auto& b : bundles)
        flat.insert(flat.end(), b.begin(), b.end());
    EXPECT_GT(runOn("dsp", flat).cycles, 0u);
    makeTarget();
    EXPECT_THROW(runOn("dsp", ops), std::runtime_error);
}

TEST(BundlePacker, PackedLoadsRunAtTheUnitsRateAndComputeTheSameValues) {
    const EngineInfo& dsp = *makeTarget().info().findEngine("dsp");
    // 64 independent loads and FMAs: one vlsu, so at best one load per cycle with an FMA beside it.
    std::vector<Op> ops;
    for (unsigned i = 0; i < 64; ++i) {
        Op load = vector(OpKind::VLoad, static_cast<std::uint8_t>(8 + i % 8), kNoReg);
        load.addr = 32 * i;
        ops.push_back(load);
        ops.push_back(vector(OpKind::Fma, static_cast<std::uint8_t>(16 + i % 8), 0, 1, 2));
    }
    std::vector<Op> flat;
    for (const auto& b : packed(ops, dsp)) {
        EXPECT_LE(b.size(), 2u);
        flat.insert(flat.end(), b.begin(), b.end());
    }
    ASSERT_EQ(flat.size(), ops.size());
    const EngineRun run = runOn("dsp", flat, true);
    EXPECT_GE(run.cycles, 64u);
    EXPECT_LE(run.cycles, 64u + 8);
}

// An FMA that units a and b both execute may take b, which the multiply after it needs: the
// multiply opens a new bundle, whichever unit the engine gives the FMA.
TEST(BundlePacker, AnOpOfSeveralUnitsCountsAgainstEach) {
    EngineInfo e;
    e.vliw = true;
    e.slots = {{"vector", 4}};
    UnitInfo a, b;
    a.name = "a";
    a.slotClass = "vector";
    a.ops["fma"] = {};
    b.name = "b";
    b.slotClass = "vector";
    b.ops["fma"] = {};
    b.ops["mul"] = {};
    e.units = {a, b};
    const auto bundles = packed({vector(OpKind::Fma, 8, 0, 1, 2), vector(OpKind::Mul, 9, 0, 1)}, e);
    ASSERT_EQ(bundles.size(), 2u);
    EXPECT_EQ(bundles[1].front().kind, OpKind::Mul);
}

TEST(BundlePacker, LeavesASingleIssueEngineItsStream) {
    const EngineInfo& rvv = *makeTarget().info().findEngine("rvv");
    auto inner = std::make_unique<VectorOpStream>(loads(4, 8));
    OpStream* before = inner.get();
    EXPECT_EQ(packForEngine(std::move(inner), rvv).get(), before);
}

}  // namespace
}  // namespace tessim
