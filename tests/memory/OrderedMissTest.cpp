// A private cache with a zero miss look-ahead holds an engine's miss until simulated time reaches it,
// so the shared level behind sees misses in time order; other accesses are not held.
#include <memory>

#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>

#include "memory/MemoryTestUtil.h"
#include "models/memory/Cache.h"
#include "models/memory/SimpleMemory.h"

namespace tessim {
namespace {

// An initiator thread that runs ahead: it presents requests with annotated delays, as a
// temporally decoupled engine does, and records the simulated time after each returns.
struct AheadInitiator : sc_core::sc_module {
    SC_HAS_PROCESS(AheadInitiator);
    tlm_utils::simple_initiator_socket<AheadInitiator> socket;
    std::vector<Tick> at, returnedAt, completion;
    explicit AheadInitiator(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") {
        SC_THREAD(run);
    }
    void run() {
        for (Tick t : at) {
            tlm::tlm_generic_payload gp;
            AccessExtension ext;
            gp.set_extension(&ext);
            gp.set_command(tlm::TLM_READ_COMMAND);
            gp.set_address(t);  // one line per request
            gp.set_data_length(8);
            gp.set_streaming_width(8);
            sc_core::sc_time delay = delayUntil(t);
            socket->b_transport(gp, delay);
            gp.clear_extension(&ext);
            returnedAt.push_back(nowTicks());
            completion.push_back(absoluteAfter(delay));
        }
    }
};

// Another core, busy until late: while it has something to do, a miss must wait for its time (a
// core alone does not: no one could present a request before it).
struct BusyCore : sc_core::sc_module {
    SC_HAS_PROCESS(BusyCore);
    explicit BusyCore(sc_core::sc_module_name n) : sc_core::sc_module(n) { SC_THREAD(run); }
    void run() {
        for (int k = 0; k < 10; ++k)
            sc_core::wait(sc_core::sc_time(1, sc_core::SC_MS));
    }
};

void run(bool ordered, std::vector<Tick>& returnedAt, std::vector<Tick>& completion, bool alone = false) {
    test::freshKernel();
    SimpleMemory mem("mem", test::dramBehindCache());
    Cache l1("l1", test::configFrom<CacheConfig>(std::string("size: 32 KiB\nways: 4\nline: 64 B\n"
                                                             "clock: 1 GHz\nhit_latency: 2\nnext: mem\n") +
                                                 (ordered ? "miss_lookahead: 0 ns\n" : "")));
    l1.next.bind(mem.socket);
    l1.setNextLevel(0, mem.capacity());
    AheadInitiator core("core");
    core.at = {1'000'000, 1'500'000, 5'000'000};
    std::unique_ptr<BusyCore> other = alone ? nullptr : std::make_unique<BusyCore>("other");
    core.socket.bind(l1.socket);
    sc_core::sc_start();
    returnedAt = core.returnedAt;
    completion = core.completion;
}

TEST(OrderedMisses, AMissWaitsUntilItsTimeAndKeepsItsCompletion) {
    std::vector<Tick> freeReturn, freeDone, orderedReturn, orderedDone;
    run(false, freeReturn, freeDone);
    run(true, orderedReturn, orderedDone);
    // Without ordering the initiator never waits inside the memory.
    EXPECT_EQ(freeReturn, (std::vector<Tick>{0, 0, 0}));
    // With it, each miss returns once simulated time reached its request to the next level
    // (arrival + the 2-cycle tag check); the completion times are the same either way.
    EXPECT_EQ(orderedReturn, (std::vector<Tick>{1'002'000, 1'502'000, 5'002'000}));
    EXPECT_EQ(orderedDone, freeDone);
    // Tag check, then 64 B at 10 GB/s and 50 ns.
    EXPECT_EQ(freeDone[0], 1'000'000u + 2000 + 6400 + 50'000);
}

TEST(OrderedMisses, ACoreAloneDoesNotWait) {
    std::vector<Tick> aloneReturn, aloneDone, orderedReturn, orderedDone;
    run(true, aloneReturn, aloneDone, true);
    run(true, orderedReturn, orderedDone);
    EXPECT_EQ(aloneReturn, (std::vector<Tick>{0, 0, 0}));
    EXPECT_EQ(aloneDone, orderedDone);
}

}  // namespace
}  // namespace tessim
