// Helpers for engine tests on tests/engine/issue-models.yaml: a fresh target per call (so one
// test may run several streams), op builders, and one run of a stream on one engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/targets/ConfiguredTarget.h"
#include "sim/config/Loader.h"
#include "sim/core/ProcessFailure.h"
#include "sim/core/SimulationSetup.h"

namespace tessim::test {

constexpr std::uint8_t s(unsigned r) {
    return static_cast<std::uint8_t>(kScalarRegBase + r);
}

struct EngineRun {
    std::uint64_t cycles;
    StallBreakdown stalls;
};

inline std::unique_ptr<ConfiguredTarget>& target() {
    static std::unique_ptr<ConfiguredTarget> t;  // outlives sc_start; one per test process
    return t;
}

// A new target in a fresh SystemC kernel (the previous one is leaked with its kernel), so one
// test may run several streams.
inline ConfiguredTarget& makeTarget(const std::vector<std::string>& overrides = {}) {
    initSystemC();
    if (target()) {
        (void)target().release();
        sc_core::sc_curr_simcontext = new sc_core::sc_simcontext();
        sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
    }
    config::Node root =
        config::loadYamlFile(std::string(TESSIM_SOURCE_DIR) + "/tests/engine/issue-models.yaml");
    for (const auto& o : overrides)
        config::applyOverride(root, o, {"<test>", 0, 0});
    target() = std::make_unique<ConfiguredTarget>(root);
    return *target();
}

inline EngineRun runOn(const std::string& engineName, std::vector<Op> ops, bool functional = false) {
    ConfiguredTarget& t = target() ? *target() : makeTarget();
    Engine* e = t.findEngine(engineName);
    e->setFunctional(functional);
    e->setStream(std::make_unique<VectorOpStream>(std::move(ops)));
    sc_core::sc_start();
    rethrowProcessFailure();
    return EngineRun{e->finishCycle(), e->stalls(e->finishCycle())};
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
