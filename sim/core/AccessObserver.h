// Notified of every timed access a memory serves: traces, per-initiator statistics and hazard
// checks implement it. A memory with no observer pays one null check per access.
#pragma once

#include <cstdint>

#include "sim/core/MemoryAccess.h"

namespace tessim {

// "engine_load", "engine_store", "dma_burst", "cache_fill", "cache_writeback".
const char* accessSourceName(AccessSource s, bool write);

enum class SyncKind : std::uint8_t { Barrier, Fork, Join, DmaWait };

struct TimedAccess {
    std::uint16_t initiator = 0;
    std::uint8_t space = 0;  // the memory's space id as the initiator addressed it
    // Caches forward the initiator of the access that missed (fills) or that evicted the line
    // (write-backs); the source says which.
    AccessSource source = AccessSource::Engine;
    bool write = false;
    std::uint64_t addr = 0;   // offset in the memory (first element when strided)
    std::uint64_t bytes = 0;  // payload bytes (strided: elements × elementBytes)
    // Strided accesses: elements of elementBytes, stride bytes apart; elementBytes 0 = contiguous.
    std::uint32_t elementBytes = 0;
    std::uint32_t elements = 0;
    std::int64_t stride = 0;
    Tick arrival = 0;
    Tick completion = 0;
    Tick wait = 0;                  // ticks beyond the unloaded latency (contention)
    std::uint64_t op = kNoOpIndex;  // engine accesses: the op's index in the engine's stream
};

class AccessObserver {
public:
    virtual ~AccessObserver() = default;
    // `memory` is the module name of the memory that served the access.
    virtual void onAccess(const char* memory, const TimedAccess& access) = 0;
    // A DMA transfer (one descriptor) of channel `initiator` has moved its last byte: its bursts
    // are the accesses of that initiator since its previous transfer ended. `issued` is when the
    // engine issued it (or, with a full queue, when the queue took it), `done` when its last burst completed;
    // `origin` is the dma_start op that started it.
    virtual void onTransferEnd(std::uint16_t initiator, std::uint32_t tag, Tick issued, Tick done,
                               const OpOrigin& origin) {
        (void)initiator, (void)tag, (void)issued, (void)done, (void)origin;
    }
    // An engine passed a barrier, fork, join or DMA wait `tag`: it arrived at `arrival` and went
    // on at `resume`. What it did before a barrier or fork is ordered before what the others do
    // after the barrier or after joining that event; a DMA wait orders the transfers of its tag.
    virtual void onSync(std::uint16_t initiator, SyncKind kind, std::uint32_t tag, Tick arrival,
                        Tick resume) {
        (void)initiator, (void)kind, (void)tag, (void)arrival, (void)resume;
    }
};

}  // namespace tessim
