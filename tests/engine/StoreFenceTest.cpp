// A fence holds the engine until every store it issued has reached its memory: the op after it
// issues in the cycle the last store completes, not in the next issue slot.
#include <gtest/gtest.h>

#include "EngineTestUtil.h"

namespace tessim {
namespace {

using namespace test;

// Runs the ops on the RVV engine of a fresh target; returns its finish cycle.
std::uint64_t runFenceOps(std::vector<Op> ops) {
    const std::uint8_t spm = makeTarget().info().space("spm").id;
    for (Op& op : ops)
        if (op.kind == OpKind::VStore)
            op.space = spm;
    return runOn("rvv", std::move(ops)).cycles;
}

Op store() {
    Op op = vector(OpKind::VStore, kNoReg, 8);
    op.addr = 512;
    return op;
}

TEST(StoreFence, TheNextOpWaitsForTheStoresToComplete) {
    const std::uint64_t storeDone = runFenceOps({store()});  // the run ends when the store completes
    ASSERT_GT(storeDone, 1u);
    // smul (latency 3) after a fence: issued when the store completes.
    EXPECT_EQ(runFenceOps({store(), fenceOp(), scalarOp(OpKind::SMul, s(5), s(6), 4)}), storeDone + 3);
    // Without the fence it issues in the next cycle, under the store.
    EXPECT_EQ(runFenceOps({store(), scalarOp(OpKind::SMul, s(5), s(6), 4)}),
              std::max<std::uint64_t>(storeDone, 1 + 3));
    // With no store outstanding a fence costs nothing.
    EXPECT_EQ(runFenceOps({fenceOp(), scalarOp(OpKind::SMul, s(5), s(6), 4)}), 3u);
}

}  // namespace
}  // namespace tessim
