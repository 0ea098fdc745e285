// A set-associative, write-back, write-allocate cache (K1 L1D per core, L2 per cluster,
// FT-Matrix2000 global cache). Misses and write-backs go to the next level as TLM transactions
// on `next`, which is bound to another memory (or an interconnect in front of it), naming the
// initiator whose access missed (fills) or evicted the line (write-backs). MSHRs bound the
// misses in flight: a miss that finds them all busy waits for the first to free (an MSHR-full
// stall). A line whose fill is in flight is present in the tags at once; a later access to it
// waits for the fill (a merged miss) but counts as a hit. A write of a whole line (a write-back
// from the level above) allocates the line without reading it from the next level.
//
// Initiators run ahead of each other (temporal decoupling), so accesses may arrive out of time
// order. Answers go by each access's annotated time: the MSHRs are an occupancy timeline (an
// early miss can use an MSHR that later misses leave free at its time), and an access that
// finds a line whose fill was requested by a later access is the one that really missed first:
// it gets the line one fill latency after its own arrival, and the line is ready from then.
// With miss_lookahead (private caches in front of a shared level), an engine's miss that is
// further ahead of simulated time waits until it is within that look-ahead, so the shared level
// sees every engine's misses in time order up to it, whatever the engines' quantum.
//
// Functional runs: the cache holds no data; functional bytes pass through to the next level's
// backing store (debug transport), so every level sees the same, always-current data.
//
// YAML (impl: cache): size, ways, line (64 B), policy (lru | plru | random | bip | dip), seed (random),
// write_backs_touch (bool, default true: a write-back hit makes its line the most recent),
// prefetch_uses_touch (bool, default true: the first use of a prefetched line makes it the most recent),
// store_fills_at_lru (bool, default false: a line fetched for a store enters at the LRU position),
// streamed_at_lru (bool, default false: a line write streaming allocates enters at the LRU position),
// store_bytes_per_cycle (a core's stores enter the array at this rate; default 0: as any look-up),
// port_occupancy (cycles a line look-up holds its port), write_back_occupancy (cycles a write-back
// from the level above holds it; default port_occupancy), fill_occupancy (cycles a fill or a dirty
// victim's read-out holds one; default 0), write_granule, write_streaming,
// clock, hit_latency (cycles or duration), ports (line look-ups per cycle), mshrs, writeback_buffer
// (entries for dirty victims on their way down; default 8), miss_lookahead (duration),
// same_time_turns (bool, with miss_lookahead 0), next (memory name, wired
// by the target), level, energy: {read, write: per access; fill: per line moved to or from the next level;
// array: the SRAM array model (sim/energy/SramArrayModel.h), which gives line-wide access energies,
// leakage and area for the size; reference_size: the size explicit energies are stated for},
// static_power. The address range is the next level's.
#pragma once

#include <array>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "models/memory/CacheTags.h"
#include "models/memory/Memory.h"
#include "sim/config/Reader.h"
#include "sim/core/OccupancyTimeline.h"
#include "sim/core/ReservationTimeline.h"

namespace tessim {

struct CacheConfig {
    std::string level;
    std::uint64_t size = 0;
    unsigned ways = 1;
    unsigned lineBytes = 64;
    ReplacementPolicy policy = ReplacementPolicy::Lru;
    std::uint64_t seed = 1;
    ClockDomain clock;
    std::uint64_t hitCycles = 1;
    unsigned mshrs = 8;
    unsigned writebackBuffer = 8;  // dirty lines on their way to the next level
    unsigned ports = 1;            // line look-ups at a time
    std::uint64_t portCycles = 1;  // cycles a line look-up holds its port (its data crossing it)
    // Cycles a line filled from the next level holds a port while its data is written into the
    // array, and a dirty victim while it is read out for its write-back. 0: neither holds one.
    std::uint64_t fillCycles = 0;
    // Cycles a whole line written from the level above (a write-back) holds a port; default
    // port_occupancy (fromYaml).
    std::uint64_t writeBackCycles = 1;
    // Hardware prefetcher, trained on demand read misses and on reads that use a prefetched line:
    // next-line fetches the `degree` lines after the one read; stride fetches `degree` lines ahead along a
    // stride seen twice in a row within a 4 KiB region. A prefetch takes an MSHR free at its time or is
    // dropped.
    enum class Prefetcher { None, NextLine, Stride } prefetcher = Prefetcher::None;
    unsigned prefetchDegree = 1;
    // An engine's miss further ahead of simulated time than this waits before the next level
    // sees it, so a next level shared by several engines sees their misses in time order (up to
    // this) whatever their temporal-decoupling quantum. kTickMax: misses never wait.
    Tick missLookahead = kTickMax;
    // With missLookahead 0: the requests of one simulated time go below in turns (initiator order
    // from a first picked by a hash of the time) instead of in the order the kernel runs their
    // processes, so results do not move with the quantum; costs a delta cycle a request.
    bool sameTimeTurns = false;
    // The bytes an engine's store writes into the array at a time (its store datapath). A store
    // miss needs the line's other bytes from the next level unless one write covers the whole
    // line (by default the line: a store of a whole line allocates it without fetching).
    unsigned writeGranule = 64;
    // Write streaming: after this many store misses in a row with no read between them, store
    // misses allocate their line without fetching it (the stores will overwrite it), until the
    // next read. 0 = off.
    unsigned writeStreaming = 0;
    // Whether a write-back from the level above that hits makes its line the most recently used.
    // false: the line keeps its place (a write-back is not a use: the level above is done with
    // it), so under bip/dip the lines a copy writes do not displace those it reads.
    bool writeBacksTouch = true;
    // Whether the first demand access to a line the prefetcher brought in makes it the most
    // recently used. false: the line keeps the place its prefetch was given (under bip/dip mostly
    // the LRU one), so a prefetched stream is placed as the same stream's demand fills would be.
    bool prefetchUsesTouch = true;
    // Whether a line fetched for a core's store that missed (outside write streaming) enters at
    // the LRU position: fetched only to be overwritten, it gives way before lines loads brought in
    // (a copy's source). A later access to it moves it as any access does. lru, bip, dip only.
    bool storeFillsAtLru = false;
    // Whether a line a core's store miss allocates in write streaming (without a fetch) enters at
    // the LRU position: it is its set's next victim, and the lines already there, used again,
    // stay — a fill larger than the cache keeps all but one way of it from pass to pass instead of
    // none. lru, bip, dip only.
    bool streamedAtLru = false;
    // The bytes per cycle a core's stores enter the array at: a store holds its port for its bytes
    // in a line at this rate, in whole cycles (at least port_occupancy). 0: a store holds it as any
    // look-up does.
    double storeBytesPerCycle = 0.0;
    std::string next;
    double readJoules = 0.0;
    double writeJoules = 0.0;
    double fillJoules = 0.0;
    double staticWatts = 0.0;
    double areaMm2 = 0.0;  // from the SRAM array model; 0 when the energy section names none

    static CacheConfig fromYaml(config::Reader& r, const std::string& name);
    std::uint64_t sets() const { return size / (std::uint64_t{ways} * lineBytes); }
};

class Cache : public Memory {
public:
    tlm_utils::simple_initiator_socket<Cache> next;

    Cache(sc_core::sc_module_name name, const CacheConfig& config);
    ~Cache() override;

    double peakBandwidth() const override {
        return static_cast<double>(config_.lineBytes) * config_.ports * config_.clock.hz() /
               static_cast<double>(config_.portCycles);
    }
    // Writes: a write-back from the level above holds a port for write_back_occupancy, a core's
    // store for its bytes at store_bytes_per_cycle (at least port_occupancy). A bound takes the
    // faster of the two a cache is configured for (a top-level cache takes no write-backs).
    double peakWriteBandwidth() const override {
        const double writeBacks = static_cast<double>(config_.lineBytes) * config_.ports *
                                  config_.clock.hz() / static_cast<double>(config_.writeBackCycles);
        if (config_.storeBytesPerCycle <= 0)
            return writeBacks;
        const double stores =
            std::min(peakBandwidth(), config_.storeBytesPerCycle * config_.ports * config_.clock.hz());
        return config_.writeBackCycles == config_.portCycles ? stores : std::max(stores, writeBacks);
    }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const override;
    void resetTiming() override;
    tlm::tlm_initiator_socket<>* nextLevelSocket() override { return &next; }
    void setNextLevel(std::uint8_t space, std::uint64_t capacity) override;
    void debugRead(std::uint64_t addr, void* data, std::uint64_t bytes) override;
    void debugWrite(std::uint64_t addr, const void* data, std::uint64_t bytes) override;
    // The end of a run: every dirty line goes to the next level through the write-back buffer, as
    // an eviction's would, from `at`. Returns when the next level has accepted the last one (`at`
    // when none was dirty). Their bytes and energy count as any write-back's.
    Tick writeBackDirtyLines(Tick at);
    Tick writeBackAtEnd(Tick from, bool& wroteBack) override {
        const std::uint64_t before = writebacksAtEnd_;
        const Tick done = writeBackDirtyLines(from);
        wroteBack = writebacksAtEnd_ != before;
        return done;
    }
    bool isCache() const override { return true; }

    const CacheConfig& config() const { return config_; }
    std::uint64_t hits() const { return hits_; }
    std::uint64_t misses() const { return readMisses_ + writeMisses_; }
    std::uint64_t evictions() const { return evictions_; }
    std::uint64_t writebacks() const { return writebacks_; }
    std::uint64_t writebacksAtEnd() const { return writebacksAtEnd_; }
    std::uint64_t mshrStalls() const { return mshrStalls_; }
    std::uint64_t streamedAllocations() const { return streamedAllocations_; }
    // Bytes sent to (write-backs) and requested from (fills) the next level.
    std::uint64_t bytesToNext() const { return writebacks_ * config_.lineBytes; }
    std::uint64_t bytesFromNext() const { return fills_ * config_.lineBytes; }

protected:
    Tick access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) override;
    void functionalAccess(tlm::tlm_generic_payload& gp, const AccessExtension& ext) override;

private:
    // `wholeLine`: a write that covers every byte of the line (no fill on a miss).
    Tick evict(const CacheTags::Victim& victim, Tick at, std::uint16_t initiator);
    void prefetchFrom(std::uint64_t lineNumber, Tick at, std::uint16_t initiator);
    // Stride detection, one entry per recently missed 4 KiB region.
    struct StrideEntry {
        std::uint64_t region = ~std::uint64_t{0};
        std::uint64_t lastLine = 0;
        std::int64_t stride = 0;
        bool confirmed = false;
    };
    std::array<StrideEntry, 16> strides_{};
    // Where the lines a prefetch last looked at or brought in are held, by line number: the
    // prefetcher asks about the same few lines ahead of a stream again and again.
    struct KnownSlot {
        std::uint64_t line = ~std::uint64_t{0};
        std::size_t slot = 0;
    };
    std::array<KnownSlot, 32> knownSlots_{};
    bool prefetchCandidatePresent(std::uint64_t lineNumber);
    std::uint64_t prefetches_ = 0, prefetchHits_ = 0, prefetchesDropped_ = 0;
    // One line of an access: a port look-up, then the tags. Plain hits stay inline; the rest
    // (hits on lines in flight or prefetched, misses) go on in lookUpRest with the port's tick.
    Tick accessLine(std::uint64_t lineNumber, bool write, Tick arrival, std::uint16_t initiator,
                    bool wholeLine, Tick hold);
    Tick lookUpRest(std::uint64_t lineNumber, bool write, Tick t, std::uint16_t initiator, bool wholeLine,
                    CacheTags::Line* present);
    Tick reservePort(Tick arrival, Tick period);
    // The port free first for `period` from `arrival` (one port: without a search); its start.
    Tick takePort(Tick arrival, Tick period) {
        return ports_.size() == 1 ? ports_[0].reserve(arrival, period) : reservePort(arrival, period);
    }
    // How long the look-up of line `line` for the bytes [from, to) holds its port: a core's store
    // (storeRate) its bytes in the line at store_bytes_per_cycle, anything else `otherwise`.
    Tick portHold(bool storeRate, Tick otherwise, std::uint64_t line, std::uint64_t from,
                  std::uint64_t to) const {
        if (!storeRate)
            return otherwise;
        const std::uint64_t start = line << lineShift_;
        return storeHold_[std::min(to, start + config_.lineBytes) - std::max(from, start)];
    }
    Tick sendNext(bool write, std::uint64_t addr, Tick at, std::uint16_t initiator);
    // Miss look-ahead: waits (in an engine's thread) until `at` is within it of simulated time.
    void waitUntil(Tick at, std::uint16_t initiator);
    // With misses in exact time order: the request goes on in its turn among those of its time.
    void takeTurn(std::uint16_t initiator);
    void debugNext(bool write, std::uint64_t addr, void* data, std::uint64_t bytes);

    CacheConfig config_;
    CacheTags tags_;
    OccupancyTimeline mshrs_;
    Tick lastHold_ = 0;
    // The engine's access being served (null for fills, write-backs, DMA): a miss that waits for
    // an MSHR holds the engine's load/store unit until one frees, via its conflictTicks.
    AccessExtension* engineAccess_ = nullptr;
    Tick engineArrival_ = 0;
    OccupancyTimeline writebackBuffer_;
    Tick lastWritebackHold_ = 0;
    AccessSource requestSource_ =
        AccessSource::Engine;  // how long the last miss held its MSHR: the next one's expectation
    std::vector<ReservationTimeline> ports_;
    Tick hitTicks_;
    Tick portTicks_;       // how long a line look-up holds its port
    Tick fillTicks_;       // how long a fill (or a victim's read-out) holds it
    Tick writeBackTicks_;  // how long a write-back from the level above holds it
    void holdForFill(Tick at);
    // How long a store of b bytes in a line holds it, [0, line]; empty: portTicks_ whatever its bytes.
    std::vector<Tick> storeHold_;
    ClockEdges edges_;
    unsigned lineShift_ = 0;
    tlm::tlm_generic_payload nextGp_;
    AccessExtension nextExt_;
    std::uint64_t reads_ = 0, writes_ = 0, hits_ = 0, readMisses_ = 0, writeMisses_ = 0;
    std::uint64_t lineAccesses_ = 0, fills_ = 0, evictions_ = 0, writebacks_ = 0;
    std::uint64_t writebacksAtEnd_ = 0;  // of writebacks_, the dirty lines written back at the run's end
    std::uint64_t mshrStalls_ = 0;
    unsigned storeMissRun_ = 0;              // store misses since the last read (write streaming)
    std::uint64_t streamedAllocations_ = 0;  // store misses allocated without a fetch while streaming
    Tick mshrStallTicks_ = 0;
};

}  // namespace tessim
