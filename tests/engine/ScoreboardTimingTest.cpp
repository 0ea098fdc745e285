// The engine's issue model against closed forms: dependent chains cost latency per op,
// independent streams cost reciprocal throughput per op, exactly.
#include <gtest/gtest.h>

#include "engine/EngineTestUtil.h"
#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

constexpr std::uint64_t kFmaLatency = 5;  // configs/targets/minimal.yaml

struct EngineRun {
    std::uint64_t cycles;
    StallBreakdown stalls;
    double work;
};

EngineRun runOps(std::vector<Op> ops, std::vector<std::string> overrides = {}) {
    initSystemC();
    config::Node root =
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal.yaml");
    for (const auto& o : overrides)
        config::applyOverride(root, o, {"<test>", 0, 0});
    static std::unique_ptr<ConfiguredTarget> target;  // outlives sc_start; one per test process
    target = std::make_unique<ConfiguredTarget>(root);
    Engine* engine = target->findEngine("core");
    engine->setStream(std::make_unique<VectorOpStream>(std::move(ops)));
    sc_core::sc_start();
    return EngineRun{engine->finishCycle(), engine->stalls(engine->finishCycle()), engine->workDone()};
}

Op fma(std::uint8_t dst, std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint32_t vl = 8) {
    return test::vector(OpKind::Fma, dst, a, b, c, vl);
}

TEST(ScoreboardTiming, DependentChainCostsLatencyPerOp) {
    const std::uint64_t n = 1000;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(fma(3, 0, 1, 3));
    EngineRun r = runOps(ops);
    EXPECT_EQ(r.cycles, n * kFmaLatency);
    // One issue cycle per op, the rest waiting on the previous result, the last result's
    // latency drains as compute.
    EXPECT_EQ(r.stalls[StallReason::Dependency], (n - 1) * (kFmaLatency - 1));
    EXPECT_EQ(r.stalls[StallReason::Compute], n + kFmaLatency - 1);
    EXPECT_EQ(r.stalls.total(), r.cycles);
}

TEST(ScoreboardTiming, IndependentOpsCostReciprocalThroughputPerOp) {
    const std::uint64_t n = 1000;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(fma(static_cast<std::uint8_t>(8 + i % 24), 0, 1, 2));
    EngineRun r = runOps(ops);
    EXPECT_EQ(r.cycles, (n - 1) * 1 + kFmaLatency);
    EXPECT_EQ(r.stalls[StallReason::Compute], r.cycles);
    EXPECT_DOUBLE_EQ(r.work, 2.0 * 8 * n);
}

TEST(ScoreboardTiming, SlowerReciprocalThroughputIsHonoured) {
    const std::uint64_t n = 500;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(fma(static_cast<std::uint8_t>(8 + i % 24), 0, 1, 2));
    EngineRun r = runOps(ops, {"core.units.valu.ops.fma.reciprocal=3"});
    EXPECT_EQ(r.cycles, (n - 1) * 3 + kFmaLatency);
}

TEST(ScoreboardTiming, RegisterGroupsOccupyTheUnitProportionally) {
    // vl = 16 f32 elements = two 32-byte registers (LMUL 2): twice the occupancy, as on the X60.
    const std::uint64_t n = 400;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(fma(static_cast<std::uint8_t>(8 + i % 24), 0, 1, 2, 16));
    EngineRun r = runOps(ops);
    EXPECT_EQ(r.cycles, (n - 1) * 2 + kFmaLatency + 1);
}

TEST(ScoreboardTiming, DualIssueWithTwoUnitsHalvesTheTime) {
    const std::uint64_t n = 1000;
    std::vector<Op> ops;
    for (std::uint64_t i = 0; i < n; ++i)
        ops.push_back(fma(static_cast<std::uint8_t>(8 + i % 24), 0, 1, 2));
    EngineRun r = runOps(ops, {"core.issue_width=2", "core.units.valu.instances=2"});
    EXPECT_EQ(r.cycles, (n / 2 - 1) + kFmaLatency);
}

TEST(ScoreboardTiming, StallCategoriesCoverEveryCycleOfAMixedStream) {
    std::vector<Op> ops;
    for (std::uint32_t i = 0; i < 300; ++i) {
        Op load;
        load.kind = OpKind::VLoad;
        load.dtype = DType::F32;
        load.vl = 8;
        load.space = 1;  // ddr
        load.addr = 32ull * i;
        load.dst = static_cast<std::uint8_t>(8 + i % 8);
        ops.push_back(load);
        ops.push_back(fma(static_cast<std::uint8_t>(20 + i % 8), static_cast<std::uint8_t>(8 + i % 8), 1, 2));
        if (i % 10 == 0)
            ops.push_back(fma(30, 30, 1, 30));
    }
    EngineRun r = runOps(ops);
    EXPECT_EQ(r.stalls.total(), r.cycles);
    EXPECT_GT(r.stalls[StallReason::Memory], 0u);
    EXPECT_GT(r.stalls[StallReason::Compute], 0u);
}

}  // namespace
}  // namespace tessim
