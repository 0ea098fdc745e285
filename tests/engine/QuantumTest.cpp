// Temporal decoupling: an engine runs at most one quantum ahead of SystemC time, checked at
// every op (not only every few thousand ops).
#include <gtest/gtest.h>

#include "engine/EngineTestUtil.h"

namespace tessim {
namespace {

using namespace test;

// Reads, at a given SystemC time, how many cycles the engine has accounted so far.
struct Probe : sc_core::sc_module {
    SC_HAS_PROCESS(Probe);
    Probe(sc_core::sc_module_name name, const Engine& engine, sc_core::sc_time at)
        : sc_core::sc_module(name), engine_(engine), at_(at) {
        SC_THREAD(look);
    }
    void look() {
        sc_core::wait(at_);
        accounted = engine_.stalls(0).total();
    }
    const Engine& engine_;
    sc_core::sc_time at_;
    std::uint64_t accounted = 0;
};

std::uint64_t cyclesAheadAt(const std::string& quantum, std::uint64_t probeNs) {
    ConfiguredTarget& t = makeTarget({"rvv.quantum=" + quantum});
    Engine* e = t.findEngine("rvv");
    std::vector<Op> ops;
    for (unsigned i = 0; i < 10000; ++i)  // independent FMAs: one cycle (1 ns) each
        ops.push_back(vector(OpKind::Fma, static_cast<std::uint8_t>(8 + i % 8), 0, 1, 2));
    e->setStream(std::make_unique<VectorOpStream>(std::move(ops)));
    Probe probe("probe", *e, sc_core::sc_time(static_cast<double>(probeNs), sc_core::SC_NS));
    sc_core::sc_start();
    rethrowProcessFailure();
    return probe.accounted;
}

TEST(Quantum, AnEngineRunsAtMostOneQuantumAhead) {
    // At 500 ns the engine has accounted 500 cycles, plus at most one quantum (10 cycles) and
    // the op that crossed it.
    const std::uint64_t accounted = cyclesAheadAt("10 ns", 500);
    EXPECT_GE(accounted, 500u);
    EXPECT_LE(accounted, 500u + 10 + 1);
}

TEST(Quantum, ALongQuantumLetsTheEngineRunFarAhead) {
    EXPECT_GE(cyclesAheadAt("100 us", 500), 10000u);
}

}  // namespace
}  // namespace tessim
