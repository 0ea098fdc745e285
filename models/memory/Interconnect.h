// A shared bus or a crossbar between initiators (cores, caches, DMA channels) and memories. It
// routes each transaction by AccessExtension::space to the memory of that space and limits the
// bandwidth the initiators get together: a transfer of n bytes holds a data path for
// ceil(n / width) cycles. A bus has one data path for all memories; a crossbar one per memory
// (initiators contend only when they reach the same memory). Arbitration is first come, first
// served by arrival time (a reservation timeline; late-simulated early requests fill gaps).
// Reads are cut-through: the transfer overlaps the memory delivering the data.
//
// YAML (a component with impl: bus | crossbar): width (bytes per cycle), clock, latency
// (cycles or duration, each way), arbitration (fcfs), channels (shared: reads and writes take
// the one data path; split: each its own, as AXI's read and write data channels), energy:
// {per_byte}, static_power.
// A memory with `via: <name>` is reached through it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "sim/config/Reader.h"
#include "sim/core/MemoryAccess.h"
#include "sim/core/ReservationTimeline.h"
#include "sim/energy/EnergyLedger.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

class Memory;

struct InterconnectConfig {
    bool crossbar = false;
    bool splitChannels = false;  // a read and a write data path per path
    std::uint64_t width = 16;    // bytes per cycle per data path
    ClockDomain clock;
    std::uint64_t latencyCycles = 0;
    double joulesPerByte = 0.0;
    double staticWatts = 0.0;

    static InterconnectConfig fromYaml(config::Reader& r, const std::string& impl);
    // Data paths per path the topology has: a read and a write one with split channels.
    std::size_t channelsPerPath() const { return splitChannels ? 2 : 1; }
    double peakBandwidth() const {
        return static_cast<double>(width) * clock.hz() * static_cast<double>(channelsPerPath());
    }
};

class Interconnect : public sc_core::sc_module {
public:
    // Initiators bind to `socket`; memories are attached to `downstream`. Either may be unused.
    tlm_utils::multi_passthrough_target_socket<Interconnect, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        socket;
    tlm_utils::multi_passthrough_initiator_socket<Interconnect, 32, tlm::tlm_base_protocol_types, 0,
                                                  sc_core::SC_ZERO_OR_MORE_BOUND>
        downstream;

    Interconnect(sc_core::sc_module_name name, const InterconnectConfig& config);

    // Binds `memory` (memory space `space`) behind the interconnect.
    void attach(Memory& memory, std::uint8_t space);
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const;
    void resetTiming();
    const InterconnectConfig& config() const { return config_; }
    // Bandwidth all initiators together can get to one memory.
    double peakBandwidth() const { return config_.peakBandwidth(); }
    std::uint64_t bytesIn() const { return bytesRead_ + bytesWritten_; }

private:
    void bTransport(int initiator, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transportDbg(int initiator, tlm::tlm_generic_payload& gp);
    int route(const tlm::tlm_generic_payload& gp) const;

    InterconnectConfig config_;
    std::array<int, 256> route_;
    std::vector<std::uint8_t> spaces_;  // downstream index → space
    // One (bus) or one per downstream (crossbar); with split channels, a read then a write path each.
    std::vector<ReservationTimeline> paths_;
    std::uint64_t transfers_ = 0, bytesRead_ = 0, bytesWritten_ = 0, busyCycles_ = 0;
};

// The `impl` names of interconnect models (the target loader dispatches components by them).
const std::vector<std::string>& interconnectImpls();
std::unique_ptr<Interconnect> makeInterconnect(const std::string& impl, config::Reader& r,
                                               const std::string& name);

}  // namespace tessim
