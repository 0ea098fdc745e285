// Base of every memory model (scratchpad, cache, DDR, simple fixed-latency memory): a TLM-2.0
// target with many initiators, traffic counters per direction, a traffic level name for reports,
// and an optional backing store of real bytes for functional runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "models/memory/BackingStore.h"
#include "sim/core/AccessObserver.h"
#include "sim/core/InitiatorRegistry.h"
#include "sim/core/MemoryAccess.h"
#include "sim/energy/EnergyLedger.h"
#include "sim/stats/StatsTree.h"

namespace tessim {

class Memory : public sc_core::sc_module {
public:
    // Zero or more initiators: a memory no engine uses is legal (probes bind to it later).
    tlm_utils::multi_passthrough_target_socket<Memory, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        socket;

    Memory(sc_core::sc_module_name name, std::string level, std::uint64_t capacity);

    const std::string& level() const { return level_; }
    std::uint64_t capacity() const { return capacity_; }
    std::uint64_t bytesRead() const { return bytesRead_; }
    std::uint64_t bytesWritten() const { return bytesWritten_; }
    // Bytes the memory's data path moved: whole bursts where it transfers in bursts (what energy
    // and bandwidth see); bytesRead()/bytesWritten() are the bytes requested.
    virtual std::uint64_t busBytesRead() const { return bytesRead_; }
    virtual std::uint64_t busBytesWritten() const { return bytesWritten_; }
    // The smallest transfer of the data path (a DDR burst); 0 where accesses move exactly their bytes.
    virtual std::uint64_t burstBytes() const { return 0; }
    // Peak bandwidth of the memory's data path, B/s (bounds use it).
    virtual double peakBandwidth() const = 0;
    // Peak rate of the engines' stores, B/s: below peakBandwidth() where a store holds the data path
    // longer than a read of the same bytes (a cache's `store_bytes_per_cycle`).
    virtual double peakWriteBandwidth() const { return peakBandwidth(); }
    virtual void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const = 0;
    // Traffic that an ideal interface moved to or from this memory without simulated accesses:
    // counted in its bytes (and so in the energy of models that charge per byte), never in its
    // timing. Models that charge per burst override it; per-access energy is not charged.
    virtual void countUntimed(std::uint64_t readBytes, std::uint64_t writeBytes) {
        bytesRead_ += readBytes;
        bytesWritten_ += writeBytes;
        untimedRead_ += readBytes;
        untimedWritten_ += writeBytes;
    }
    BackingStore& store() { return store_; }

    // Byte access for functional initialisation and checks. A memory that keeps no data of its
    // own (a cache) forwards to the level that does.
    virtual void debugRead(std::uint64_t addr, void* data, std::uint64_t bytes);
    virtual void debugWrite(std::uint64_t addr, const void* data, std::uint64_t bytes);

    // Levels that forward misses to another memory (caches) expose the initiator socket to bind
    // to that memory (or to an interconnect in front of it); others return null.
    virtual tlm::tlm_initiator_socket<>* nextLevelSocket() { return nullptr; }
    // Called once the next level is bound: its memory space (interconnects route by it) and its
    // capacity, which becomes this level's address range.
    virtual void setNextLevel(std::uint8_t space, std::uint64_t capacity) {}

    // The end of a run, in the order the target asks. A memory that keeps data its level below
    // has not seen (a write-back cache) writes it back from `from`: returns when the last
    // write-back completes (`from` when none) and whether it wrote any back.
    virtual Tick writeBackAtEnd(Tick from, bool& wroteBack) {
        wroteBack = false;
        return from;
    }
    // A memory that accepted writes it has not yet performed (a posted-write queue) performs
    // them: returns when the last completes (0: none).
    virtual Tick completePendingWrites() { return 0; }
    // Whether it holds copies of a level below (a cache): its end-of-run write-backs are dirty
    // data, not traffic of the kernel.
    virtual bool isCache() const { return false; }

    // Forgets all timing state and counters (row buffers, tags, timelines), keeping the backing
    // store: probes run each micro-pattern on a fresh memory.
    virtual void resetTiming() {
        bytesRead_ = bytesWritten_ = untimedRead_ = untimedWritten_ = 0;
        byInitiator_.clear();
    }

    // Per-initiator statistics are named from this registry (none: they are not reported).
    void setInitiatorRegistry(const InitiatorRegistry* registry) { registry_ = registry; }
    // Every timed access is reported to the observer, if any.
    void setObserver(AccessObserver* observer) { observer_ = observer; }

    // What one initiator asked of this memory.
    struct InitiatorTraffic {
        std::uint64_t reads = 0, writes = 0;
        std::uint64_t bytesRead = 0, bytesWritten = 0;  // moved, as traffic_bytes: whole bursts on a DDR
        Tick waitTicks = 0;  // beyond the unloaded latency: queueing behind other requests
    };
    // Indexed by initiator id (ids never seen have no entry or a zero one).
    const std::vector<InitiatorTraffic>& byInitiator() const { return byInitiator_; }
    InitiatorTraffic initiatorTraffic(std::uint16_t id) const {
        return id < byInitiator_.size() ? byInitiator_[id] : InitiatorTraffic{};
    }

protected:
    // Timing: given the arrival tick, returns the tick the access completes. Counts traffic.
    // May fill ext->conflictTicks.
    virtual Tick access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) = 0;
    // Moves the payload's bytes for a functional access (default: this memory's backing store).
    virtual void functionalAccess(tlm::tlm_generic_payload& gp, const AccessExtension& ext);
    void setCapacity(std::uint64_t capacity) { capacity_ = capacity; }
    // Models report the ticks the current access queued behind others (ports, MSHRs, banks,
    // buses); the base attributes them to the access's initiator.
    void noteWait(Tick ticks) { accessWait_ += ticks; }
    // Models whose data path moves whole bursts report the bytes the current access put on the
    // bus; the base attributes them to the access's initiator (0: exactly the bytes requested).
    void noteBusBytes(std::uint64_t bytes) { accessBusBytes_ = bytes; }
    // Waits for simulated time inside b_transport (a cache's miss look-ahead), counted so that
    // an access during which none happened need not read the simulated time again.
    static inline std::uint64_t waitsInTransport_ = 0;
    // The simulated time during the current access, read from the kernel (a library call) once
    // per b_transport and again only after a wait inside a transport.
    Tick transportNow() {
        if (nowWaits_ != waitsInTransport_) {
            now_ = nowTicks();
            nowWaits_ = waitsInTransport_;
        }
        return now_;
    }
    // `<memory>.by_initiator.<name>.*` in `node` (the memory's own stats node), when a registry is set.
    void collectByInitiator(StatsTree& node) const;

    std::uint64_t bytesRead_ = 0;
    std::uint64_t bytesWritten_ = 0;
    std::uint64_t untimedRead_ = 0, untimedWritten_ = 0;  // of which countUntimed's
    // `untimed_bytes_read` / `_written` in `node` when an ideal interface moved any.
    void collectUntimed(StatsTree& node) const;

private:
    void bTransport(int initiator, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
    unsigned transportDbg(int initiator, tlm::tlm_generic_payload& gp);
    bool inRange(const tlm::tlm_generic_payload& gp, const AccessExtension* ext) const;

    std::string level_;
    std::uint64_t capacity_;
    BackingStore store_;
    std::vector<InitiatorTraffic> byInitiator_;
    Tick accessWait_ = 0;
    std::uint64_t accessBusBytes_ = 0;
    Tick now_ = 0;
    std::uint64_t nowWaits_ = ~std::uint64_t{0};
    const InitiatorRegistry* registry_ = nullptr;
    AccessObserver* observer_ = nullptr;
};

// Rounds a tick up to the next edge of a clock (commands and transfers start on edges).
inline Tick alignUp(Tick t, Tick period) {
    return (t + period - 1) / period * period;
}

// alignUp for the arrivals at one memory, which mostly stay close to the previous one: the last
// edge is kept, so an arrival within a few periods of it costs compares instead of a division.
class ClockEdges {
public:
    explicit ClockEdges(Tick period) : period_(period) {}
    Tick alignUp(Tick t) {
        if (t <= last_ && t + period_ > last_)
            return last_;
        if (t > last_ && t <= last_ + 4 * period_) {
            do
                last_ += period_;
            while (last_ < t);
            return last_;
        }
        last_ = tessim::alignUp(t, period_);
        return last_;
    }

private:
    Tick period_;
    Tick last_ = 0;  // an edge
};

}  // namespace tessim
