// Loads and stores wait for the scalar register their address comes from: a load whose pointer an
// earlier op writes issues when that op's result is ready (its latency later), and a load that
// names no address register (an older stream) issues at once, as before.
#include <gtest/gtest.h>

#include "EngineTestUtil.h"

namespace tessim {
namespace {

using namespace test;

std::uint8_t spm() {
    return makeTarget().info().space("spm").id;
}

// Runs the ops on the RVV engine of a fresh target; returns its finish cycle.
std::uint64_t runFresh(std::vector<Op> ops) {
    makeTarget();
    return runOn("rvv", std::move(ops)).cycles;
}

Op loadFrom(std::uint8_t pointer) {
    Op op = vector(OpKind::VLoad, 8, kNoReg);
    op.space = spm();
    op.addr = 256;
    op.base = pointer;
    return op;
}

// The pointer: s5 ← s6 · 4 (smul, latency 3 in the fixture), or s5 ← s6 + 4 (sadd, latency 1).
std::uint64_t run(OpKind producer, std::uint8_t pointer) {
    return runFresh({scalarOp(producer, s(5), s(6), 4), loadFrom(pointer)});
}

TEST(AddressRegister, ALoadWaitsForItsPointersProducer) {
    // Alone, the load issues at cycle 0; after a producer of its pointer, at that op's latency.
    const std::uint64_t alone = runFresh({loadFrom(kNoReg)});
    EXPECT_EQ(run(OpKind::SMul, s(5)), 3 + alone);  // smul latency 3
    EXPECT_EQ(run(OpKind::SAdd, s(5)), 1 + alone);  // sadd latency 1
    // Without the address register (an older stream), or with one no earlier op writes, the
    // load takes the next issue slot (the fixture issues one op per cycle).
    EXPECT_EQ(run(OpKind::SMul, kNoReg), 1 + alone);
    EXPECT_EQ(run(OpKind::SMul, s(7)), 1 + alone);
}

TEST(AddressRegister, AScalarLoadAndAStoreWaitToo) {
    Op sload;
    sload.kind = OpKind::ScalarLoad;
    sload.dtype = DType::I32;
    sload.dst = s(9);
    sload.space = spm();
    sload.addr = 64;
    const std::uint64_t loadAlone = runFresh({sload});
    sload.base = s(5);
    EXPECT_EQ(runFresh({scalarOp(OpKind::SMul, s(5), s(6), 4), sload}), 3 + loadAlone);

    Op store = vector(OpKind::VStore, kNoReg, 8);
    store.space = spm();
    store.addr = 512;
    const std::uint64_t storeAlone = runFresh({store});
    store.base = s(5);
    EXPECT_EQ(runFresh({scalarOp(OpKind::SMul, s(5), s(6), 4), store}), 3 + storeAlone);
}

TEST(AddressRegister, AnAddressRegisterTheEngineLacksIsAnError) {
    EXPECT_THROW(runFresh({loadFrom(s(40))}), std::runtime_error);  // 32 scalar registers
}

}  // namespace
}  // namespace tessim
