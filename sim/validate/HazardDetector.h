// Dynamic hazard detection: an AccessObserver that records, per on-chip memory, the byte range
// and time window of every engine access and every DMA transfer, then finds pairs from different
// initiators whose bytes overlap and whose windows overlap in simulated time, one of them writing.
// Two engines (cores) are ordered by synchronisation instead: an access of core A at ta comes before
// one of core B at tb when, between ta and tb, A arrived at a barrier (or forked an event) that B
// then went on from (or joined); otherwise the pair is unordered even if they never overlap in time.
// A transfer and a later engine access of its bytes are ordered only by a DMA wait of the
// transfer's tag in between, by that engine: without one, the access is a hazard however the
// timing fell out.
// Such a pair is unordered: a read of bytes a DMA is still writing (raw-hazard), a DMA or engine
// overwriting bytes another party is still reading (war-hazard), two writers at once (waw-hazard).
//
// A DMA transfer counts from the moment its descriptor was ready to its last burst: a schedule
// must not touch its destination (nor write its source) before waiting for it. A MAC tile counts
// over its whole occupancy of the array. Off-chip memories (level "ddr") are not checked: the
// host's tensors there are read-only or written once), except for engine accesses through caches,
// which are checked on the memory behind the caches.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/AccessObserver.h"
#include "sim/core/InitiatorRegistry.h"
#include "sim/machine/TargetInfo.h"
#include "sim/validate/ValidationError.h"

namespace tessim {

class HazardDetector : public AccessObserver {
public:
    // Before the simulation starts: whose accesses come (names), which memories are off chip, and
    // the memory that holds each memory's bytes (a cache's: the last level behind it, so that
    // cores writing one buffer through their private caches meet in one map).
    void attach(const InitiatorRegistry& initiators, const TargetInfo& target,
                const std::map<std::string, std::string>& backing);

    void onAccess(const char* memory, const TimedAccess& access) override;
    void onTransferEnd(std::uint16_t initiator, std::uint32_t tag, Tick issued, Tick done,
                       const OpOrigin& origin) override;
    void onSync(std::uint16_t initiator, SyncKind kind, std::uint32_t tag, Tick arrival,
                Tick resume) override;

    // After the simulation: every unordered conflicting pair, into `log`.
    void analyse(ValidationLog& log);
    // Who last wrote the byte at `address` of `memory` (on or off chip), as describe() names it; empty
    // when nobody did. Off-chip writes are kept for this alone: they are not checked for hazards.
    std::string lastWriter(const std::string& memory, std::uint64_t address) const;
    std::uint64_t windows() const;

private:
    struct Window {
        std::uint64_t lo, hi;  // bytes [lo, hi)
        Tick begin, end;       // simulated time [begin, end)
        std::uint32_t party;   // index into parties_
        bool write;
        std::uint64_t op;  // the engine's op (a transfer: its dma_start), kNoOpIndex when unknown
    };
    struct Party {
        std::uint16_t initiator;
        bool dma;
        std::uint32_t tag;    // DMA transfers
        std::string name;     // "npu", "dma_ch3 (DMA tag 5)"
        std::string starter;  // DMA transfers: the engine whose dma_start began it
        Tick started = 0;     // DMA transfers: when that engine issued the dma_start
    };
    struct OpenRange {
        std::uint32_t memory;
        bool write;
        std::uint64_t lo, hi;
        bool offChip = false;
    };

    void report(ValidationLog& log, std::uint32_t memory, const Window& early, const Window& late);
    void checkWaitsHaveTransfers(ValidationLog& log);
    std::string describe(const Window& w) const;
    bool ordered(const Window& first, const Window& second) const;
    void sweepDmaOverlaps(ValidationLog& log, std::uint32_t memory);
    void checkEnginePairs(ValidationLog& log, std::uint32_t memory);
    void checkDmaWaits(ValidationLog& log, std::uint32_t memory);
    // Whether the engine of `access` waited for the tag of `transfer` between the two.
    bool waited(const Window& transfer, const Window& access) const;
    std::uint32_t memoryIndex(const char* memory);
    std::uint32_t engineParty(std::uint16_t initiator);
    bool offChip(const char* memory) const;

    std::vector<std::string> initiators_;  // names by id (the registry dies with the target)
    const std::string& initiatorName(std::uint16_t id) const;
    std::vector<std::string> offChipNames_;
    std::map<std::string, std::string> backing_;
    std::map<std::string, std::uint32_t> memoryIds_;
    std::vector<std::string> memoryNames_;
    std::vector<std::vector<Window>> windows_;                    // per memory
    std::map<std::uint32_t, std::vector<Window>> offChipWrites_;  // per memory, for lastWriter()
    std::vector<Party> parties_;
    std::map<std::uint16_t, std::uint32_t> engineParties_;
    // Per engine, in its order: what it published (barrier arrivals, forks) and what it waited
    // for (barrier and join resumes), by sync object (barrier id, or event id + 2^32).
    struct SyncPoint {
        std::uint64_t object;
        Tick time;
    };
    struct Syncs {
        std::vector<SyncPoint> releases, acquires;
        std::vector<SyncPoint> dmaWaits;  // object: the tag; time: arrival (resume in waitResumes)
        std::vector<Tick> waitResumes;
    };
    std::map<std::uint16_t, Syncs> syncs_;
    std::map<std::uint16_t, std::vector<OpenRange>> openTransfers_;  // DMA bursts since the last end
    const char* lastMemory_ = nullptr;
    std::uint32_t lastMemoryId_ = 0;
};

}  // namespace tessim
