// The scalar pipeline's three calibrated knobs (configs/targets/k1.yaml, against the board's scalar
// memcpy and memset) in closed form on the fixture's RVV engine: a store that reads its data late
// (`store_data_delay`), a predicted taken branch that does not end its issue group
// (`taken_branch_ends_group: false`), and stores that join the youngest store-buffer entry
// (`store_merge`).
#include <gtest/gtest.h>

#include "EngineTestUtil.h"

namespace tessim {
namespace {

using namespace test;

Op scalarStore(std::uint8_t data, std::uint64_t addr, std::uint8_t space) {
    Op op;
    op.kind = OpKind::ScalarStore;
    op.dtype = DType::I32;
    op.src[0] = data;
    op.space = space;
    op.addr = addr;
    return op;
}

Op takenBranch() {
    Op op;
    op.kind = OpKind::Branch;
    op.flags = Op::kTaken;
    return op;
}

// smul s5 (latency 3), then a store of s5, or a store whose address s5 is.
std::uint64_t storeAfterProducer(const std::vector<std::string>& sets, bool addressRegister) {
    ConfiguredTarget& t = makeTarget(sets);
    Op store = scalarStore(addressRegister ? s(7) : s(5), 64, t.info().space("spm").id);
    if (addressRegister)
        store.base = s(5);
    return runOn("rvv", {scalarOp(OpKind::SMul, s(5), s(6), 4), store}).cycles;
}

TEST(ScalarPipeline, AStoreReadsItsDataLateButItsAddressAtIssue) {
    const std::uint64_t atIssue = storeAfterProducer({}, false);
    // Data read 2 cycles after issue: the store issues 2 cycles earlier (cycle 1, not 3).
    EXPECT_EQ(storeAfterProducer({"rvv.store_data_delay=2"}, false), atIssue - 2);
    // A delay longer than the wait does not issue it before its turn (cycle 1).
    EXPECT_EQ(storeAfterProducer({"rvv.store_data_delay=5"}, false), atIssue - 2);
    // The address register is read at issue whatever the delay.
    EXPECT_EQ(storeAfterProducer({"rvv.store_data_delay=2"}, true), storeAfterProducer({}, true));
}

// n iterations of {sadd, sadd, taken branch} on a dual-issue engine with two scalar ALUs and no
// branch penalty.
std::uint64_t loop(bool endsGroup, unsigned n) {
    makeTarget({"rvv.issue_width=2", "rvv.units.salu.instances=2", "rvv.branch_penalty=0",
                std::string("rvv.taken_branch_ends_group=") + (endsGroup ? "true" : "false")});
    std::vector<Op> ops;
    for (unsigned i = 0; i < n; ++i) {
        ops.push_back(scalarOp(OpKind::SAdd, s(1), s(0), 1));
        ops.push_back(scalarOp(OpKind::SAdd, s(2), s(0), 1));
        ops.push_back(takenBranch());
    }
    return runOn("rvv", ops).cycles;
}

TEST(ScalarPipeline, ATakenBranchThatDoesNotEndItsGroupSharesItsCycle) {
    const unsigned n = 100;
    // Ending the group: {sadd, sadd} then {branch}, 2 cycles an iteration. Not: the next
    // iteration's first op issues beside the branch, 3 ops in 1.5 cycles.
    EXPECT_EQ(loop(true, n), 2u * n);
    EXPECT_EQ(loop(false, n), 3u * n / 2);
}

// 64 stores of 4 B to consecutive addresses through a one-entry store buffer; the scratchpad
// accepts a store 2 cycles after it issues.
std::uint64_t consecutiveStores(const std::string& merge) {
    std::vector<std::string> sets{"rvv.store_buffer=1"};
    if (!merge.empty())
        sets.push_back("rvv.store_merge=" + merge);
    ConfiguredTarget& t = makeTarget(sets);
    std::vector<Op> ops;
    for (unsigned i = 0; i < 64; ++i)
        ops.push_back(scalarStore(s(1), 4u * i, t.info().space("spm").id));
    return runOn("rvv", ops).cycles;
}

TEST(ScalarPipeline, StoresIntoTheSameBytesJoinTheYoungestEntry) {
    const std::uint64_t oneEach = consecutiveStores("");
    const std::uint64_t merged = consecutiveStores("16B");
    // Four stores a 16 B entry: the buffer holds the core a quarter as often.
    EXPECT_LT(merged, oneEach);
    EXPECT_EQ(consecutiveStores("4B"), oneEach);  // 4 B entries: nothing to merge
    EXPECT_LT(consecutiveStores("64B"), merged);
}

}  // namespace
}  // namespace tessim
