// The memory protocol between initiators (engines, DMA, caches) and memories: TLM-2.0 blocking
// transport with annotated delay. The generic payload carries address (offset inside the
// target memory's space), length and data; this extension carries what TLM has no field for.
//
// Timing contract of b_transport(gp, delay): the request arrives at sc_time_stamp() + delay; the
// target reserves its timelines and returns delay such that sc_time_stamp() + delay is the time
// the last byte is delivered (read) or accepted (write). Targets do not call wait(), with one
// exception: a cache with a miss look-ahead may wait, in an engine's thread, until an engine's
// miss is within that look-ahead of simulated time. Initiators therefore read sc_time_stamp() after
// b_transport returns (absoluteAfter) to turn the returned delay into an absolute tick.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

#include "sim/core/Time.h"

namespace tessim {

// Why a transaction was issued (observers and traces tell engine, DMA and cache traffic apart).
// MacOperand: a MAC array's operand reads and result writes of a tile, streamed through its
// scratchpad while the tile runs (SystolicArray::streamOperands through the engine's ports);
// observers see them from the engine.
enum class AccessSource : std::uint8_t { Engine, DmaBurst, CacheFill, CacheWriteBack, MacOperand };

// An access or transfer that no op of an engine's stream made.
constexpr std::uint64_t kNoOpIndex = ~std::uint64_t{0};
// The op that started a DMA transfer: its engine (an InitiatorRegistry id) and its index in the
// engine's stream, so that a diagnostic about the transfer can name the op.
struct OpOrigin {
    std::uint16_t engine = 0;
    std::uint64_t op = kNoOpIndex;
    Tick issued = 0;  // when the engine issued it (a full queue may take the transfer later)
};

struct AccessExtension : tlm::tlm_extension<AccessExtension> {
    std::uint32_t elementBytes = 0;  // > 0: strided access of `elements` elements of this size
    std::uint32_t elements = 0;
    std::int64_t stride = 0;        // bytes between element starts
    std::uint16_t initiator = 0;    // who asks (stats, arbitration): an InitiatorRegistry id
    std::uint64_t op = kNoOpIndex;  // the index of the engine's op that asks, in its stream
    AccessSource source = AccessSource::Engine;
    std::uint8_t space = 0;   // destination memory space (interconnects route by it)
    bool functional = false;  // move real bytes to/from gp data pointer
    // Filled by the target: ticks of the latency caused by bank or port conflicts.
    Tick conflictTicks = 0;

    tlm::tlm_extension_base* clone() const override { return new AccessExtension(*this); }
    void copy_from(const tlm::tlm_extension_base& other) override {
        *this = static_cast<const AccessExtension&>(other);
    }
    bool strided() const { return elementBytes != 0; }
};

inline Tick nowTicks() {
    return sc_core::sc_time_stamp().value();
}
inline sc_core::sc_time ticksToScTime(Tick t) {
    return sc_core::sc_time::from_value(t);
}

// Converts an absolute tick to the annotated delay of a b_transport call and back.
inline sc_core::sc_time delayUntil(Tick absolute) {
    Tick now = nowTicks();
    return sc_core::sc_time::from_value(absolute > now ? absolute - now : 0);
}
inline Tick absoluteAfter(const sc_core::sc_time& delay) {
    return nowTicks() + delay.value();
}

}  // namespace tessim
