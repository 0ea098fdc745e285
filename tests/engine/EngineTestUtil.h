// Helpers for engine tests on tests/engine/issue-models.yaml: a fresh target per call (so one
// test may run several streams), op builders, and one run of a stream on one engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "common/FreshTarget.h"

namespace tessim::test {

constexpr std::uint8_t s(unsigned r) {
    return static_cast<std::uint8_t>(kScalarRegBase + r);
}

struct EngineRun {
    std::uint64_t cycles;
    StallBreakdown stalls;
};

// A new target in a fresh SystemC kernel, so one test may run several streams.
inline ConfiguredTarget& makeTarget(const std::vector<std::string>& overrides = {}) {
    return freshTarget("tests/engine/issue-models.yaml", overrides);
}

inline EngineRun runOn(const std::string& engineName, std::vector<Op> ops, bool functional = false) {
    if (!target())
        makeTarget();
    Engine& e = runStream(engineName, std::move(ops), functional);
    return EngineRun{e.finishCycle(), e.stalls(e.finishCycle())};
}

inline Op vector(OpKind kind, std::uint8_t dst, std::uint8_t a, std::uint8_t b = kNoReg,
                 std::uint8_t c = kNoReg, std::uint32_t vl = 8) {
    Op op;
    op.kind = kind;
    op.dtype = DType::F32;
    op.vl = vl;
    op.dst = dst;
    op.src[0] = a;
    op.src[1] = b;
    op.src[2] = c;
    return op;
}

inline Op scalarOp(OpKind kind, std::uint8_t dst, std::uint8_t a, double imm) {
    Op op;
    op.kind = kind;
    op.dtype = DType::I32;
    op.dst = dst;
    op.src[0] = a;
    op.imm = imm;
    return op;
}

}  // namespace tessim::test
