// Standard micro-patterns on one memory, like lmbench on a board: latencies of single accesses
// and bandwidths of streams with a fixed number of requests in flight. The probe is a TLM
// initiator bound to the memory's socket before elaboration; each pattern starts from a fresh
// memory (the `reset` callback forgets timing state of every level) at time zero.
#pragma once

#include <functional>

#include <nlohmann/json.hpp>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/memory/Cache.h"
#include "models/memory/Ddr.h"
#include "models/memory/Scratchpad.h"

namespace tessim {

struct ProbeOptions {
    unsigned outstanding = 64;            // requests in flight in streaming patterns
    std::uint64_t requestBytes = 64;      // request size of latency and streaming patterns
    std::uint64_t streamBytes = 8 << 20;  // bytes per streaming pattern
};

// One request stream on a DDR memory alone (`tessim probe ddr --memory FILE`).
struct DdrStreamSpec {
    enum class Pattern { Sequential, Random, Strided };
    Pattern pattern = Pattern::Sequential;
    std::uint64_t stride = 0;  // bytes between requests (strided)
    double readRatio = 1.0;    // fraction of reads; the rest are writes, mixed at random
    std::uint64_t seed = 1;    // random addresses and the read/write mix
    std::uint64_t requests = 100000;
    std::uint64_t requestBytes = 64;
    double rate = 0.0;          // open loop: requests per second; 0: closed loop
    unsigned outstanding = 64;  // closed loop: requests in flight
    static const char* name(Pattern p);
};

class MemoryProbe : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<MemoryProbe> socket;

    MemoryProbe(sc_core::sc_module_name name, std::function<void()> reset, ProbeOptions options = {});
    ~MemoryProbe() override;

    // Call after elaboration (sc_start(SC_ZERO_TIME)), with `socket` bound to the memory.
    nlohmann::ordered_json probeDdr(Ddr& ddr);
    // One stream from a fresh memory: bandwidth, latency distribution, row hits, activates,
    // refreshes and data-bus utilisation.
    nlohmann::ordered_json probeDdrStream(Ddr& ddr, const DdrStreamSpec& spec);
    // Every timing parameter the DDR model uses, in cycles and in ns.
    static nlohmann::ordered_json ddrTimings(const DdrConfig& c);
    // A cache's latencies and stream bandwidths. A write stream's window closes once its data
    // reached memory: the lines still dirty written back and the posted writes drained, by the
    // `drain` callback (the hierarchy below; this cache alone when none is given).
    nlohmann::ordered_json probeCache(Cache& cache);
    void setDrain(std::function<Tick(Tick from)> drain) { drain_ = std::move(drain); }
    nlohmann::ordered_json probeScratchpad(Scratchpad& spm);

    // One request arriving at `at`; returns its completion tick.
    Tick request(bool write, std::uint64_t addr, std::uint64_t bytes, Tick at,
                 const AccessExtension* shape = nullptr);
    // Requests addr(i), i < count, with at most `outstanding` in flight, all ready at `start`;
    // returns the completion tick of the last.
    Tick stream(bool write, std::uint64_t count, const std::function<std::uint64_t(std::uint64_t)>& addr,
                Tick start = 0);

private:
    std::function<void()> reset_;
    std::function<Tick(Tick)> drain_;
    ProbeOptions options_;
    tlm::tlm_generic_payload gp_;
    AccessExtension ext_;
};

}  // namespace tessim
