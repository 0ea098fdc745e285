// The functional executor on its own, without the timing model: ops in, register values and
// memory bytes out; and a timed run without --functional keeps no values at all.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <stdexcept>

#include "engine/EngineTestUtil.h"
#include "sim/engine/FunctionalExecutor.h"

namespace tessim {
namespace {

using namespace test;

// Flat byte arrays, one per memory space.
class PlainMemory : public FunctionalMemory {
public:
    void read(std::uint8_t space, std::uint64_t addr, void* data, std::uint64_t bytes) override {
        auto& m = bytes_[space];
        if (m.size() < addr + bytes)
            m.resize(addr + bytes);
        std::memcpy(data, m.data() + addr, bytes);
    }
    void write(std::uint8_t space, std::uint64_t addr, const void* data, std::uint64_t bytes) override {
        auto& m = bytes_[space];
        if (m.size() < addr + bytes)
            m.resize(addr + bytes);
        std::memcpy(m.data() + addr, data, bytes);
    }

private:
    std::map<std::uint8_t, std::vector<std::uint8_t>> bytes_;
};

Op load(std::uint8_t reg, std::uint64_t addr, std::uint32_t vl, std::int64_t stride = 0) {
    Op op = vector(OpKind::VLoad, reg, kNoReg, kNoReg, kNoReg, vl);
    op.addr = addr;
    op.stride = stride;
    return op;
}

TEST(FunctionalExecutor, RunsOpsWithoutTheTimingModel) {
    PlainMemory memory;
    std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8};
    memory.write(0, 0, x.data(), x.size() * 4);
    FunctionalExecutor executor("alone", 32, true);

    Op two = vector(OpKind::Broadcast, 2, kNoReg, kNoReg, kNoReg, 8);
    two.imm = 2.0;
    Op sum = vector(OpKind::Reduce, s(1), 3, kNoReg, kNoReg, 8);
    Op store = vector(OpKind::VStore, kNoReg, 3, kNoReg, kNoReg, 8);
    store.addr = 64;
    for (const Op& op : {load(1, 0, 8), two, vector(OpKind::Fma, 3, 1, 2, 1, 8),  // v3 ← 2·x + x
                         sum, store, load(4, 0, 4, 8)})                           // every other x
        executor.run(op, memory);

    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(executor.vectorRegister(3)[i], 3.0 * x[i]) << i;
    EXPECT_EQ(executor.scalarRegister(1), 3.0 * 36);
    std::vector<float> stored(8);
    memory.read(0, 64, stored.data(), stored.size() * 4);
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_EQ(stored[i], 3.0f * x[i]) << i;
    const std::vector<double> strided{1, 3, 5, 7};
    for (std::size_t i = 0; i < strided.size(); ++i)
        EXPECT_EQ(executor.vectorRegister(4)[i], strided[i]) << i;
}

TEST(FunctionalExecutor, RefusesWhatNeedsTheEngine) {
    PlainMemory memory;
    FunctionalExecutor executor("alone", 32, true);
    EXPECT_THROW(executor.run(dmaWaitOp(1), memory), std::runtime_error);
    EXPECT_THROW(executor.run(macArrayFence(0), memory), std::runtime_error);
    // A vector op naming a scalar register as its destination: the semantics refuse it.
    EXPECT_THROW(executor.run(vector(OpKind::Add, s(2), 1, 1), memory), std::runtime_error);
}

TEST(FunctionalExecutor, ATimedRunWithoutFunctionalKeepsNoValues) {
    makeTarget();
    runOn("rvv", {vector(OpKind::Broadcast, 2, kNoReg, kNoReg, kNoReg, 8)}, /*functional=*/false);
    Engine* e = target()->findEngine("rvv");
    EXPECT_FALSE(e->functional());
    EXPECT_TRUE(e->vectorRegister(2).empty());

    makeTarget();
    Op two = vector(OpKind::Broadcast, 2, kNoReg, kNoReg, kNoReg, 8);
    two.imm = 2.0;
    runOn("rvv", {two}, /*functional=*/true);
    e = target()->findEngine("rvv");
    EXPECT_TRUE(e->functional());
    ASSERT_EQ(e->vectorRegister(2).size(), 8u);
    EXPECT_EQ(e->vectorRegister(2)[7], 2.0);
}

}  // namespace
}  // namespace tessim
