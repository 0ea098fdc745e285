// Barriers, fork/join events and VLIW bundles between and within engines, against closed forms.
#include <gtest/gtest.h>

#include "models/targets/ConfiguredTarget.h"
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

std::unique_ptr<ConfiguredTarget> makeTarget() {
    initSystemC();
    return std::make_unique<ConfiguredTarget>(
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/tests/engine/two-engines.yaml"));
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
