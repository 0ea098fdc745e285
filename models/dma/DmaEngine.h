// Base of DMA engine models: a SystemC module that engines drive through DmaControlIf and that
// moves data with TLM transactions on its initiator socket (one socket index per memory space).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "sim/core/AccessObserver.h"
#include "sim/core/DmaControl.h"
#include "sim/core/SpanObserver.h"
#include "sim/energy/EnergyLedger.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

class DmaEngine : public sc_core::sc_module, public DmaControlIf {
public:
    tlm_utils::multi_passthrough_initiator_socket<DmaEngine> memory;

    explicit DmaEngine(sc_core::sc_module_name name) : sc_core::sc_module(name), memory("memory") {
        spaceToSocket_.fill(-1);
    }
    void mapSpace(std::uint8_t space, unsigned socketIndex) {
        spaceToSocket_[space] = static_cast<int>(socketIndex);
    }
    void setFunctional(bool on) { functional_ = on; }
    // Multicast groups by id (index 0 unused): the memory spaces each group writes.
    void setMulticastGroups(const std::vector<std::vector<std::uint8_t>>* groups) { groups_ = groups; }
    void setTrace(SpanObserver* trace) { trace_ = trace; }
    // Told when each transfer ends (memories report its bursts); null = nobody.
    void setAccessObserver(AccessObserver* observer) { observer_ = observer; }
    // Channel c's transactions carry initiator id first + c (InitiatorRegistry::addRange).
    void setInitiatorBase(std::uint16_t first) { initiatorBase_ = first; }
    std::uint16_t initiatorBase() const { return initiatorBase_; }
    virtual unsigned channelCount() const = 0;
    // Source and destination addresses and strides of a descriptor are multiples of this (bytes).
    virtual std::uint64_t alignment() const { return 1; }
    // Tick at which the last transfer completed (the kernel is not over before it).
    virtual Tick lastCompletion() const = 0;
    virtual void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const = 0;

protected:
    std::array<int, 256> spaceToSocket_{};
    const std::vector<std::vector<std::uint8_t>>* groups_ = nullptr;
    bool functional_ = false;
    SpanObserver* trace_ = nullptr;
    AccessObserver* observer_ = nullptr;
    std::uint16_t initiatorBase_ = 0;
};

}  // namespace tessim
