// DDR memory (LPDDR4/4X, DDR4): channels with their own data bus, ranks, banks with open-page
// row buffers, the main timing parameters, refresh, and energy per command.
//
// Transaction-level controller: a request is split into row segments by the address map; each
// segment is scheduled at arrival against its bank's state (row hit: CL + burst; empty bank:
// RCD + CL + burst; row conflict: RP + RCD + CL + burst, precharge no earlier than RAS after the
// activate and RTP/WR after the last column) and its channel's data bus (a reservation timeline
// that fills gaps, so requests to other banks overlap activates). Refresh: every tREFI each
// rank is blocked for tRFC (ranks staggered) and its rows are closed. FR-FCFS: a request that
// arrived while its row was still open, before a later-served request switched the row, is
// served as a row hit ahead of that switch (the only reordering a controller that answers each
// transaction on arrival can see); `scheduler: fcfs` serves strictly in call order. Each bank
// remembers its last `row_history` row epochs: a request presented after later ones (initiators
// run ahead of each other) is a row hit in an epoch of its row that was open at its time, or,
// with row_history > 1, opens its row in a gap between two remembered epochs when one fits.
// Writes are posted into a write queue of `write_queue` entries: a write completes when it is
// accepted; a full queue is drained in one batch sorted by bank and row (so write-backs do not
// ping-pong row buffers with reads), and a write that finds every entry busy waits until the
// earliest drained one has reached the DRAM.
//
// YAML (impl: ddr): preset (a parameter set in configs/memory/), and any of its keys: level,
// standard, size, channels, ranks, banks, row_size, bus_width (bits), burst_length, clock
// (command clock; data rate = 2 × clock), tCL, tCWL, tRCD, tRP, tRAS, tRTP, tWR, tRFC, tREFI
// (cycles or durations), mapping (MSB first, e.g. [row, rank, bank, column, channel]),
// interleave, page_policy (open | closed), scheduler (fr-fcfs | fcfs), row_history (row epochs
// per bank, default 1), write_queue (entries,
// 0 = writes are scheduled on arrival), energy: {activate,
// read_burst, write_burst, refresh, background_power}.
//
// Command rules between banks, each kept in either time order against the last few commands of
// the rank and the bounds the forgotten ones leave (so requests presented out of time order still
// obey them): bank groups (bank_groups;
// tCCD_L/S between column commands, tRRD_L/S between activates, tWTR_L/S from write data to a
// read), the four-activate window tFAW, the read-to-write turnaround tRTW, LPDDR4's tDQSCK
// (read data later) and multi-cycle read/write commands (column_cycles: read and write latency
// count from the command's last cycle; the command bus itself is not modelled, as tRRD and tCCD
// keep one rank's commands further apart than they last), tRPab before an all-bank refresh, per-bank
// refresh (refresh: per-bank; tRFCpb every tREFIpb, banks in turn; a REFpb counts as an activate
// for tRRD and tFAW), and a bounded queue per bank
// (bank_queue: a request that finds it full waits until one ahead of it issues its column
// command). Keys left out disable their rule, so an older configuration times as before.
#pragma once

#include <array>
#include <vector>

#include "models/memory/DdrAddressMap.h"
#include "models/memory/DdrConfig.h"
#include "models/memory/Memory.h"
#include "sim/core/ReservationTimeline.h"

namespace tessim {

class Ddr : public Memory {
public:
    Ddr(sc_core::sc_module_name name, const DdrConfig& config);

    double peakBandwidth() const override { return config_.peakBandwidth(); }
    // Whole bursts: a request that ends mid-burst still occupies the data bus for the burst.
    std::uint64_t burstBytes() const override { return config_.burstBytes(); }
    std::uint64_t busBytesRead() const override { return readBursts_ * config_.burstBytes(); }
    std::uint64_t busBytesWritten() const override { return writeBursts_ * config_.burstBytes(); }
    void collect(StatsTree& stats, EnergyLedger& energy, double seconds) const override;
    // Whole bursts, charged per burst; no command (activate, precharge) since no access is timed.
    void countUntimed(std::uint64_t readBytes, std::uint64_t writeBytes) override;
    void resetTiming() override;

    const DdrConfig& config() const { return config_; }
    // A command as issued, for checks of the rules between banks: an activate (first = last = its
    // tick), or a segment's column commands (first to last, tCCD_L apart) and the end of its data.
    struct Command {
        enum class Kind : std::uint8_t { Activate, Read, Write, Refresh };  // Refresh: a REFpb
        Kind kind;
        unsigned rank;  // channel × ranks + rank
        unsigned group;
        Tick first, last, dataEnd;
    };
    // Every command from now on is appended to `log` (nullptr: none; the default).
    void logCommands(std::vector<Command>* log) { commandLog_ = log; }
    const DdrAddressMap& addressMap() const { return map_; }
    std::uint64_t rowHits() const { return rowHits_; }
    std::uint64_t rowMisses() const { return rowMisses_; }
    std::uint64_t rowEmpty() const { return rowEmpty_; }
    std::uint64_t activates() const { return activates_; }
    std::uint64_t bursts() const { return readBursts_ + writeBursts_; }
    // All-bank refreshes issued (all ranks, all channels) by `until`.
    std::uint64_t refreshesBy(Tick until) const;
    Tick lastCompletion() const { return lastEnd_; }
    // When the last access was accepted: its arrival, or later when a bank queue (or the posted
    // write queue) was full; a requester cannot present its next request before it.
    Tick lastAcceptance() const { return accepted_; }
    std::uint64_t precharges() const { return precharges_; }
    std::uint64_t reads() const { return reads_; }
    std::uint64_t writes() const { return writes_; }
    // Busy time of all data buses together.
    Tick busBusyTicks() const {
        Tick busy = 0;
        for (const auto& b : bus_)
            busy += b.busyTicks();
        return busy;
    }
    // Serves the writes still waiting in the posted-write queue (a run ends only once they have
    // reached the DRAM) and returns when the last write served so far completes (0: none).
    Tick completePostedWrites();
    Tick completePendingWrites() override { return completePostedWrites(); }

protected:
    Tick access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) override;

private:
    // A row that was open over [opened, precharge): the bank's past, for requests that arrive
    // out of time order.
    struct ClosedEpoch {
        std::uint64_t row = 0;
        Tick opened = 0;     // the precharge (or activate) that opened it
        Tick colReady = 0;   // activate + RCD
        Tick preReady = 0;   // earliest precharge its columns and RAS allowed
        Tick precharge = 0;  // when it was closed
    };
    struct Bank {
        std::uint64_t row = 0;
        bool open = false;
        Tick colReady = 0;  // earliest column command for the open row (activate + RCD)
        Tick preReady = 0;  // earliest precharge
        Tick actReady = 0;  // earliest activate
        Tick opened = 0;    // the precharge (or activate) that opened the current row
        std::uint64_t refreshSeen = 0;
        // Rows open before the last switches, oldest first (at most row_history): FR-FCFS
        // serves a request that arrived while one was open as a row hit ahead of its precharge.
        std::vector<ClosedEpoch> closed;
    };
    enum class RowOutcome { Hit, Empty, Miss };

    // Recent commands of a rank, for the rules between banks.
    // Activates among which a new one may be placed, and the latest ones that left them: still
    // checked against (four, as a tFAW window holds five), never placed before.
    static constexpr unsigned kActHistory = 16;
    static constexpr unsigned kActTail = 4;
    static constexpr unsigned kActSeq = kActTail + kActHistory + 1;  // the most held at once
    static constexpr unsigned kActPad = 3;
    static constexpr unsigned kColHistory = 16;
    struct ActRecord {
        Tick at = 0;
        unsigned group = 0;
    };
    struct ColRecord {
        Tick first = 0, last = 0;  // first and last column command of a segment
        Tick dataEnd = 0;
        unsigned group = 0;
        bool write = false;
    };
    struct RankRules {
        // The activates in time order, seq() = actBuffer[kActPad + actHead, ... + nTail + nActs):
        // the nTail (≤ kActTail) latest that left the history, then the nActs remembered ones. The
        // sequence slides over twice its longest, with kActPad records either side that the tFAW
        // window update may read (what it reads there is masked out).
        std::array<ActRecord, 2 * kActSeq + 2 * kActPad> actBuffer{};
        unsigned actHead = 0;
        unsigned nTail = 0;
        const ActRecord* seq() const { return actBuffer.data() + kActPad + actHead; }
        ActRecord* seq() { return actBuffer.data() + kActPad + actHead; }
        // Reads and writes, each in time order of their first command: colBuffer[kind][colHead[kind],
        // colHead[kind] + nCols[kind]) (the window slides in a buffer twice its size).
        std::array<std::array<ColRecord, 2 * kColHistory>, 2> colBuffer{};
        std::array<unsigned, 2> colHead{};
        const ColRecord* cols(unsigned kind) const { return colBuffer[kind].data() + colHead[kind]; }
        // Of each kind: the longest time from a segment's first column command to its last and to
        // the end of its data, so a look back through the history stops at the first command that
        // cannot reach the candidate.
        std::array<Tick, 2> colSpan{}, colTail{};
        unsigned nActs = 0;
        // Bit j: the activates seq()[j..j + 3] lie within tFAW.
        std::uint32_t shortWindows = 0;
        std::array<unsigned, 2> nCols{};
        // Of the column commands that left the history, of each kind: the latest first command
        // (nothing is placed before it).
        std::array<Tick, 2> forgottenColFirst{};
        std::array<bool, 2> forgotCols{};
        // From these on, no column command constrains a new one (raiseColumnBounds): of all the
        // rank's commands (a check that may skip the look at the remembered ones), and of those
        // that left the history (a bound the look cannot give).
        std::array<Tick, 2> colFree{}, forgottenColFree{};  // for a read, for a write, in any bank group
        std::vector<Tick> colFreeInGroup, forgottenColFreeInGroup;  // [group][read, write]
        std::vector<Tick> lastActInGroup;                           // [group]
        // Per group: tRRD_L after the latest of its activates that left the history (0: none left).
        std::vector<Tick> forgottenActFree;  // [group]
        // Per-bank refresh: the rank's next REFpb not yet in the activate sequence (index m of
        // the rank's refreshes: bank m mod banks), and the tick up to which all of them are.
        std::uint64_t nextRefpb = 0;
        Tick refpbUntil = 0;
        explicit RankRules(unsigned groups = 1)
            : colFreeInGroup(2 * groups, 0), forgottenColFreeInGroup(2 * groups, 0),
              lastActInGroup(groups, 0), forgottenActFree(groups, 0) {}
    };
    struct QueueEntry {
        Tick admitted = 0, leaves = 0;
    };
    // One row segment being scheduled: where it goes and how long its data takes.
    struct Segment {
        ReservationTimeline* bus;
        RankRules* rules;
        unsigned group;
        bool write;
        std::uint64_t bursts;
        Tick lat;  // column command to first data
        Tick dur;  // data bus time of all bursts
    };
    // Also gives the slot of the history the activate goes to (recordActivate() puts it there).
    Tick placeActivate(RankRules& rr, unsigned group, Tick a, unsigned& slot) const;
    // placeActivate() with per-bank refreshes counted as activates (tRRD, tFAW; JESD209-4): the
    // rank's REFpb commands within a rule's reach of the activate join its sequence first.
    Tick scheduleActivate(const Segment& s, Tick a, unsigned& slot);
    void addRefreshCommands(RankRules& rr, unsigned rank, Tick until);
    void recordActivate(RankRules& rr, unsigned group, Tick a, unsigned slot);
    Tick columnRulesAllow(const RankRules& rr, const Segment& s, Tick c) const;
    void recordColumns(RankRules& rr, const Segment& s, Tick c, Tick dataEnd);
    // Raises `any` ([read, write], any bank group) and `inGroup` ([group][read, write]) to where
    // command e lets the next read and the next write issue.
    void raiseColumnBounds(const ColRecord& e, std::array<Tick, 2>& any, std::vector<Tick>& inGroup) const;
    unsigned rankIndex(const RankRules& rr) const { return static_cast<unsigned>(&rr - rules_.data()); }
    Tick placeColumns(const Segment& s, Tick c) const;
    void commitColumns(const Segment& s, Tick c);
    void commitActivate(const Segment& s, Tick act, unsigned slot);
    Tick prechargeAfter(const Segment& s, Tick col) const;
    Tick admit(std::size_t bank, Tick t) const;
    void enqueue(std::size_t bank, Tick admitted, Tick leaves);
    unsigned refreshUnit(const DdrLocation& loc) const;

    struct PostedWrite {
        DdrLocation loc;
        std::uint64_t bursts;
        Tick accepted;
        unsigned slot;
    };

    template <bool write> Tick serveAs(const DdrLocation& loc, std::uint64_t bursts, Tick arrival);
    // An early request served in the bank's past: a row hit in a closed epoch of its row, or (with
    // row_history > 1) a row opened in a gap between two epochs. Returns 0 when neither fits.
    Tick serveInPast(Bank& b, const Segment& s, const DdrLocation& loc, Tick t);
    Tick serveRange(std::uint64_t addr, std::uint64_t bytes, bool write, Tick arrival);
    Tick serveSegment(const DdrLocation& loc, std::uint64_t bursts, bool write, Tick arrival, Tick& maxWait);
    // Queues a write segment; returns when it is accepted.
    Tick postWrite(const DdrLocation& loc, std::uint64_t bursts, Tick arrival);
    void drainWrites();
    // A refresh unit is a rank (all-bank refresh) or one bank of a rank (per-bank refresh).
    Tick refreshOffset(unsigned unit) const;
    // Refreshes of `unit` started at or before t (the first starts at offset + its period).
    std::uint64_t refreshIndex(unsigned unit, Tick t) const;
    // The interval between two refresh starts that holds t, remembered per rank because
    // requests mostly arrive in time order (saves two divisions per request).
    struct RefreshEpoch {
        Tick from = 1, to = 0;  // empty
        std::uint64_t index = 0;
    };
    const RefreshEpoch& epoch(unsigned unit, Tick t);
    // The first refresh window of `unit` that ends after t: its start.
    Tick nextRefreshStart(unsigned unit, Tick t);

    DdrConfig config_;
    DdrAddressMap map_;
    Tick period_;
    DdrTiming tk_;  // config_.t in ticks
    Tick burstTicks_;
    Tick stepTicks_;           // between the bursts of one segment (one bank group): max(burst, tCCD_L)
    Tick readLat_, writeLat_;  // column command to data
    Tick refi_, rfc_;
    bool actRules_, ccdRules_, turnRules_, colRules_;
    Tick rrdS_, rrdL_, faw_;
    bool refreshActs_;  // per-bank refreshes count as activates (per-bank refresh and tRRD or tFAW)
    Tick actReach_;     // how far the rules between activates reach: max(tRRD_L, tFAW)
    bool granulePow2_, burstPow2_;  // the interleave granule and the burst: shifts, not divisions
    unsigned burstShift_;
    std::vector<Bank> banks_;               // [channel][rank][bank]
    std::vector<ReservationTimeline> bus_;  // per channel
    std::vector<RankRules> rules_;          // [channel][rank]
    std::vector<QueueEntry> queues_;        // [bank][bank_queue]
    std::vector<Tick> queueBlocked_;        // per bank: admission of the last request that waited
    // Per bank: the entry that leaves first (the first of equals) and when.
    struct QueueFirst {
        Tick leaves = 0;
        unsigned slot = 0;
    };
    std::vector<QueueFirst> queueFirst_;
    std::vector<RefreshEpoch> epochs_;  // per refresh unit
    std::vector<Tick> writeSlotFree_;   // per write-queue entry: free from (kTickMax: queued)
    std::vector<PostedWrite> posted_;
    // The queue only drains when every entry is posted, so between drains entries are taken in
    // the order they free (by tick, then index): that order, computed once per drain, and the
    // next entry to take in it.
    // Arrivals at serve() rounded up to a clock edge, counted from the last edge by a
    // multiplication (a saturated random stream's arrivals jump back and forth, where ClockEdges
    // would divide): periodInverse_ = ⌊(2^64 − 1) / period⌋ + 1 (0: divide).
    Tick alignArrival(Tick t);
    Tick lastEdge_ = 0;
    std::uint64_t periodInverse_;
    std::vector<unsigned> freeOrder_;
    std::size_t nextFree_ = 0;
    void orderFreeSlots();
    std::uint64_t writeDrains_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0, readBursts_ = 0, writeBursts_ = 0;
    std::uint64_t rowHits_ = 0, rowMisses_ = 0, rowEmpty_ = 0, reorderedHits_ = 0;
    std::uint64_t activates_ = 0, precharges_ = 0;
    Tick firstArrival_ = kTickMax, lastEnd_ = 0, lastWriteEnd_ = 0, accepted_ = 0;
    Tick segmentWait_ = 0, writeWait_ = 0;  // of the segment served last (per-initiator waits)
    std::vector<Command>* commandLog_ = nullptr;
};

}  // namespace tessim
