// The synchronisation part on its own (no engine, no ops): plain SC_THREADs hand it their local
// cycle and get back the cycle they may go on from.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "sim/core/MemoryAccess.h"
#include "sim/core/SimulationSetup.h"
#include "sim/engine/Synchroniser.h"

namespace tessim {
namespace {

// A thread that runs `body` with its own synchroniser (1 GHz: a cycle is 1000 ps).
struct Thread : sc_core::sc_module {
    SC_HAS_PROCESS(Thread);
    Thread(sc_core::sc_module_name name, const EngineConfig& config, SyncHub& hub,
           std::function<void(Synchroniser&)> body)
        : sc_core::sc_module(name), sync(config, hub), body_(std::move(body)) {
        SC_THREAD(run);
    }
    void run() {
        sync.start();
        body_(sync);
    }
    Synchroniser sync;
    std::function<void(Synchroniser&)> body_;
};

EngineConfig config(unsigned barrierLatency = 0, unsigned forkLatency = 0) {
    EngineConfig c;
    c.clock = ClockDomain{1000};
    c.quantum = 1'000'000;  // 1 µs = 1000 cycles
    c.barrierLatency = barrierLatency;
    c.forkLatency = forkLatency;
    return c;
}

TEST(Synchroniser, BarrierReleasesAtTheLastArrivalPlusItsLatency) {
    initSystemC();
    SyncHub hub;
    const EngineConfig c = config(10);
    std::uint64_t resumeA = 0, resumeB = 0;
    Thread a("a", c, hub, [&](Synchroniser& s) { resumeA = s.rendezvous(SyncRule::Barrier, 3, 2, 100); });
    Thread b("b", c, hub, [&](Synchroniser& s) { resumeB = s.rendezvous(SyncRule::Barrier, 3, 2, 300); });
    sc_core::sc_start();
    EXPECT_EQ(resumeA, 310u);
    EXPECT_EQ(resumeB, 310u);
    EXPECT_EQ(sc_core::sc_time_stamp().value(), c.clock.at(300));
    EXPECT_TRUE(hub.waiting().empty());
}

TEST(Synchroniser, JoinResumesAtTheCountedForkPlusItsLatencyOrAtItsOwnCycle) {
    initSystemC();
    SyncHub hub;
    const EngineConfig c = config(0, 7);
    std::uint64_t early = 0, late = 0;
    Thread forker("forker", c, hub, [&](Synchroniser& s) {
        s.rendezvous(SyncRule::Signal, 1, 0, 50);
        s.rendezvous(SyncRule::Signal, 1, 0, 80);
    });
    Thread joiner("joiner", c, hub, [&](Synchroniser& s) {
        early = s.rendezvous(SyncRule::Join, 1, 2, 10);  // waits for the second fork (cycle 80)
        late = s.rendezvous(SyncRule::Join, 1, 1, 200);  // the first fork lies long before
    });
    sc_core::sc_start();
    EXPECT_EQ(early, 87u);
    EXPECT_EQ(late, 200u);
}

TEST(Synchroniser, RunsAheadWhenNoOtherProcessCouldObserveIt) {
    initSystemC();
    SyncHub hub;
    const EngineConfig c = config();
    std::vector<Tick> seen;
    // Alone, 5 µs ahead: nothing could observe it, so SystemC time stays 0.
    Thread alone("alone", c, hub, [&](Synchroniser& s) {
        s.keepQuantum(5000);
        seen.push_back(nowTicks());
    });
    sc_core::sc_start();
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0], 0u);
}

TEST(Synchroniser, SynchronisesAQuantumAheadOfAnotherProcess) {
    initSystemC();
    SyncHub hub;
    const EngineConfig c = config();
    Tick seen = 1, after = 0;
    Thread ahead("ahead", c, hub, [&](Synchroniser& s) {
        s.keepQuantum(500);  // half a quantum ahead: no switch
        seen = nowTicks();
        s.keepQuantum(5000);  // 5 µs ahead while `ticker` wakes every 100 ns: catch up
        after = nowTicks();
    });
    Thread ticker("ticker", c, hub, [](Synchroniser&) {
        for (int i = 0; i < 100; ++i)
            sc_core::wait(100, sc_core::SC_NS);
    });
    sc_core::sc_start();
    EXPECT_EQ(seen, 0u);
    EXPECT_EQ(after, c.clock.at(5000));
}

}  // namespace
}  // namespace tessim
