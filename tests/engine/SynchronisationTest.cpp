// Barriers, fork/join events and VLIW bundles between and within engines, against closed forms.
#include <gtest/gtest.h>

#include "models/targets/ConfiguredTarget.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Loader.h"
#include "sim/core/SimulationSetup.h"

namespace tessim {
namespace {

constexpr std::uint64_t kLatency = 5;

Op fma(std::uint8_t dst, std::uint8_t c, bool bundleStart = false) {
    Op op;
    op.kind = OpKind::Fma;
    op.vl = 8;
    op.dst = dst;
    op.src[0] = 0;
    op.src[1] = 1;
    op.src[2] = c;
    if (bundleStart)
        op.flags = Op::kBundleStart;
    return op;
}

Op control(OpKind kind, std::uint32_t id, std::uint32_t count) {
    Op op;
    op.kind = kind;
    op.tag = id;
    op.count = count;
    return op;
}

std::unique_ptr<ConfiguredTarget> makeTarget(const std::vector<std::string>& overrides = {}) {
    initSystemC();
    config::Node root =
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/tests/engine/two-engines.yaml");
    for (const auto& o : overrides)
        config::applyOverride(root, o, {"<test>", 0, 0});
    return std::make_unique<ConfiguredTarget>(root);
}

TEST(Synchronisation, BarrierReleasesBothEnginesAtTheLastArrival) {
    auto target = makeTarget();
    std::vector<Op> a, b;
    for (int i = 0; i < 100; ++i)
        a.push_back(fma(3, 3));  // dependent chain: 500 cycles
    a.push_back(control(OpKind::Barrier, 7, 2));
    b.push_back(control(OpKind::Barrier, 7, 2));
    b.push_back(fma(4, 2));
    target->findEngine("a")->setStream(std::make_unique<VectorOpStream>(a));
    target->findEngine("b")->setStream(std::make_unique<VectorOpStream>(b));
    sc_core::sc_start();
    // Engine a issues its barrier after its last FMA issued (cycle 495 + 1); the chain's last
    // result completes at 500, after the barrier — b resumes at 496.
    const std::uint64_t release = 99 * kLatency + 1;
    Engine* eb = target->findEngine("b");
    EXPECT_EQ(eb->finishCycle(), release + kLatency);
    EXPECT_EQ(eb->stalls(eb->finishCycle())[StallReason::Sync], release);
}

TEST(Synchronisation, JoinWaitsForEveryFork) {
    auto target = makeTarget();
    std::vector<Op> a, b;
    for (int i = 0; i < 40; ++i)
        a.push_back(fma(3, 3));
    a.push_back(control(OpKind::Fork, 1, 0));
    for (int i = 0; i < 40; ++i)
        a.push_back(fma(3, 3));
    a.push_back(control(OpKind::Fork, 1, 0));
    b.push_back(control(OpKind::Join, 1, 2));
    target->findEngine("a")->setStream(std::make_unique<VectorOpStream>(a));
    target->findEngine("b")->setStream(std::make_unique<VectorOpStream>(b));
    sc_core::sc_start();
    // The second fork is issued when a's 80th FMA has issued: cycle 79·5 + 1.
    EXPECT_EQ(target->findEngine("b")->finishCycle(), 79 * kLatency + 1);
}

TEST(Synchronisation, BarrierLatencyDelaysEveryParticipantAfterTheLastArrival) {
    auto target = makeTarget({"a.barrier_latency=30", "b.barrier_latency=30"});
    std::vector<Op> a, b;
    for (int i = 0; i < 100; ++i)
        a.push_back(fma(3, 3));
    a.push_back(control(OpKind::Barrier, 7, 2));
    a.push_back(fma(5, 2));
    b.push_back(control(OpKind::Barrier, 7, 2));
    b.push_back(fma(4, 2));
    target->findEngine("a")->setStream(std::make_unique<VectorOpStream>(a));
    target->findEngine("b")->setStream(std::make_unique<VectorOpStream>(b));
    sc_core::sc_start();
    // Last arrival at 99·5 + 1 (a's barrier after its last FMA's issue), then 30 cycles; b's
    // FMA issues then and completes 5 cycles later.
    const std::uint64_t release = 99 * kLatency + 1 + 30;
    Engine* eb = target->findEngine("b");
    EXPECT_EQ(eb->finishCycle(), release + kLatency);
    EXPECT_EQ(eb->stalls(eb->finishCycle())[StallReason::Sync], release);
    Engine* ea = target->findEngine("a");
    EXPECT_EQ(ea->finishCycle(), release + kLatency);
    EXPECT_EQ(ea->stalls(ea->finishCycle())[StallReason::Sync], 30u);
}

TEST(Synchronisation, ForkLatencyCountsFromTheSignalNotFromTheJoin) {
    auto target = makeTarget({"b.fork_latency=50"});
    std::vector<Op> a, b;
    a.push_back(control(OpKind::Fork, 1, 0));  // signalled at cycle 0
    for (int i = 0; i < 40; ++i)
        a.push_back(fma(3, 3));
    // b joins first at cycle 0 (waits 50 cycles), then again after 20 dependent FMAs (cycle
    // 19·5 + 1 + 50 = 146 … already past the fork + 50: no wait).
    b.push_back(control(OpKind::Join, 1, 1));
    for (int i = 0; i < 20; ++i)
        b.push_back(fma(4, 4));
    b.push_back(control(OpKind::Join, 1, 1));
    target->findEngine("a")->setStream(std::make_unique<VectorOpStream>(a));
    target->findEngine("b")->setStream(std::make_unique<VectorOpStream>(b));
    sc_core::sc_start();
    Engine* eb = target->findEngine("b");
    EXPECT_EQ(eb->stalls(eb->finishCycle())[StallReason::Sync], 50u);
    EXPECT_EQ(eb->finishCycle(), 50 + 19 * kLatency + kLatency);
}

TEST(Synchronisation, SyncLatenciesAreWholeCycleCounts) {
    for (const char* bad : {"a.barrier_latency=-1", "b.fork_latency=2.5", "a.barrier_latency=2000000"}) {
        std::string error = "no error";
        try {
            makeTarget({bad});
        } catch (const config::ConfigError& e) {
            error = e.what();
        }
        const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
        EXPECT_NE(error.find(key + ":"), std::string::npos) << bad << ": " << error;
    }
}

TEST(Synchronisation, VliwBundlesIssueTogetherAndSplitWhereMarked) {
    auto target = makeTarget();
    std::vector<Op> ops;
    const std::uint64_t bundles = 200;
    for (std::uint64_t i = 0; i < bundles; ++i) {
        ops.push_back(fma(static_cast<std::uint8_t>(8 + (2 * i) % 24), 2, true));
        ops.push_back(fma(static_cast<std::uint8_t>(9 + (2 * i) % 24), 2));
    }
    Engine* e = target->findEngine("vliw");
    e->setStream(std::make_unique<VectorOpStream>(ops));
    sc_core::sc_start();
    // Two FMAs per bundle on two units: one bundle per cycle, even though issue width is 4.
    EXPECT_EQ(e->finishCycle(), (bundles - 1) + kLatency);
}

}  // namespace
}  // namespace tessim
