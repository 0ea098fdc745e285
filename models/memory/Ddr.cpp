// The DDR controller's façade (Ddr.h): construction, TLM access split into row segments, read
// and write bookkeeping, statistics and energy. Its parts: DdrBankScheduler.cpp (serving a
// segment), DdrRankRules.h, DdrRefresh.h, DdrWriteQueue.cpp.
#include "models/memory/Ddr.h"

#include <algorithm>
#include <initializer_list>

#include "models/memory/DdrRefresh.h"
#include "models/memory/PowerOfTwo.h"

namespace tessim {

namespace {

// The timings in ticks of the command clock.
DdrTiming inTicks(DdrTiming t, Tick period) {
    for (std::uint64_t* v : {&t.tCL,    &t.tCWL,   &t.tRCD,   &t.tRP,    &t.tRAS,   &t.tRTP,   &t.tWR,
                             &t.tRFC,   &t.tREFI,  &t.tCCD_S, &t.tCCD_L, &t.tRRD_S, &t.tRRD_L, &t.tFAW,
                             &t.tWTR_S, &t.tWTR_L, &t.tRTW,   &t.tDQSCK, &t.tRPab,  &t.tRFCpb, &t.tREFIpb})
        *v *= period;
    return t;
}

}  // namespace

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config)
    : Memory(name, config.level, config.size), config_(config), map_(config), period_(config.clock.period),
      tk_(inTicks(config.t, config.clock.period)), burstTicks_(config.burstCycles() * config.clock.period),
      stepTicks_(std::max(config.burstCycles(), config.t.tCCD_L) * config.clock.period),
      readLat_((config.columnCycles - 1 + config.t.tCL + config.t.tDQSCK) * config.clock.period),
      writeLat_((config.columnCycles - 1 + config.t.tCWL) * config.clock.period),
      refi_(config.refreshPeriodCycles() * config.clock.period),
      rfc_(config.refreshBlockCycles() * config.clock.period),
      actRules_(config.t.tRRD_S != 0 || config.t.tRRD_L != 0 || config.t.tFAW != 0),
      ccdRules_(config.t.tCCD_S > config.burstCycles() || config.t.tCCD_L > config.burstCycles()),
      turnRules_(config.t.tWTR_S != 0 || config.t.tWTR_L != 0 || config.t.tRTW != 0),
      colRules_(ccdRules_ || turnRules_), rrdS_(config.t.tRRD_S * config.clock.period),
      rrdL_(config.t.tRRD_L * config.clock.period), faw_(config.t.tFAW * config.clock.period),
      refreshActs_(config.perBankRefresh && config.refreshPeriodCycles() != 0 && actRules_),
      actReach_(std::max(rrdL_, faw_)), granulePow2_(isPow2(map_.granule())),
      burstPow2_(isPow2(config.burstBytes())), burstShift_(log2Of(config.burstBytes())),
      banks_(std::size_t{config.channels} * config.ranks * config.banks), bus_(config.channels),
      rules_(std::size_t{config.channels} * config.ranks, RankRules(config.bankGroups)),
      queues_(config.bankQueue ? banks_.size() * config.bankQueue : 0),
      queueBlocked_(config.bankQueue ? banks_.size() : 0, 0), queueFirst_(queueBlocked_.size()),
      epochs_(config.perBankRefresh ? std::size_t{config.ranks} * config.banks : config.ranks),
      writeSlotFree_(config.writeQueue, 0),
      periodInverse_(period_ > 1 && period_ < (Tick{1} << 32) ? ~std::uint64_t{0} / period_ + 1 : 0) {
    posted_.reserve(config.writeQueue);
    orderFreeSlots();
}

void Ddr::resetTiming() {
    Memory::resetTiming();
    for (auto& b : banks_)
        b = Bank{};
    for (auto& b : bus_)
        b = ReservationTimeline{};
    for (auto& r : rules_)
        r = RankRules(config_.bankGroups);
    std::fill(queues_.begin(), queues_.end(), QueueEntry{});
    std::fill(queueBlocked_.begin(), queueBlocked_.end(), 0);
    std::fill(queueFirst_.begin(), queueFirst_.end(), QueueFirst{});
    for (auto& e : epochs_)
        e = RefreshEpoch{};
    std::fill(writeSlotFree_.begin(), writeSlotFree_.end(), 0);
    posted_.clear();
    orderFreeSlots();
    writeDrains_ = 0;
    reads_ = writes_ = readBursts_ = writeBursts_ = 0;
    rowHits_ = rowMisses_ = rowEmpty_ = reorderedHits_ = activates_ = precharges_ = 0;
    firstArrival_ = kTickMax;
    lastEnd_ = lastWriteEnd_ = 0;
    accepted_ = 0;
}

std::uint64_t Ddr::refreshesBy(Tick until) const {
    if (refi_ == 0)
        return 0;
    std::uint64_t n = 0;
    for (unsigned u = 0; u < epochs_.size(); ++u)
        n += refreshIndex(u, until);
    return n * config_.channels;
}

// One row segment: its bursts counted, then served (a read, an unqueued write) or posted.
inline Tick Ddr::serveSegment(const DdrLocation& loc, std::uint64_t bursts, bool write, Tick arrival,
                              Tick& maxWait) {
    if (!write) {
        readBursts_ += bursts;
        const Tick end = serveAs<false>(loc, bursts, arrival);
        maxWait = std::max(maxWait, segmentWait_);
        return end;
    }
    writeBursts_ += bursts;
    if (!writeSlotFree_.empty()) {
        const Tick end = postWrite(loc, bursts, arrival);
        maxWait = std::max(maxWait, writeWait_);
        return end;
    }
    const Tick end = serveAs<true>(loc, bursts, arrival);
    maxWait = std::max(maxWait, segmentWait_);
    lastWriteEnd_ = std::max(lastWriteEnd_, end);
    return end;
}

Tick Ddr::serveRange(std::uint64_t addr, std::uint64_t bytes, bool write, Tick arrival) {
    const std::uint64_t g = map_.granule(), burst = config_.burstBytes();
    // Shifts where the sizes are powers of two (they mostly are): no division per request.
    auto granuleEnd = [&](std::uint64_t a) { return granulePow2_ ? (a | (g - 1)) + 1 : (a / g + 1) * g; };
    auto burstOf = [&](std::uint64_t offset) { return burstPow2_ ? offset >> burstShift_ : offset / burst; };
    Tick done = arrival;
    Tick maxWait = 0;
    const std::uint64_t end = addr + bytes;
    while (addr < end) {
        DdrLocation loc = map_.decode(addr);
        std::uint64_t segEnd = std::min(end, granuleEnd(addr));
        std::uint64_t rowEnd = loc.rowOffset + (segEnd - addr);
        // Following granules in the same row of the same bank join the segment.
        while (segEnd < end) {
            DdrLocation nextLoc = map_.decode(segEnd);
            if (nextLoc.channel != loc.channel || nextLoc.rank != loc.rank || nextLoc.bank != loc.bank ||
                nextLoc.row != loc.row || nextLoc.rowOffset != rowEnd)
                break;
            std::uint64_t n = std::min(end, segEnd + g) - segEnd;
            segEnd += n;
            rowEnd += n;
        }
        const std::uint64_t bursts = burstOf(rowEnd - 1) - burstOf(loc.rowOffset) + 1;
        done = std::max(done, serveSegment(loc, bursts, write, arrival, maxWait));
        addr = segEnd;
    }
    noteWait(maxWait);
    return done;
}

Tick Ddr::access(tlm::tlm_generic_payload& gp, AccessExtension* ext, Tick arrival) {
    bool write = gp.is_write();
    std::uint64_t addr = gp.get_address(), bytes = gp.get_data_length();
    const std::uint64_t burstsBefore = write ? writeBursts_ : readBursts_;
    Tick done = arrival;
    accepted_ = arrival;
    if (ext && ext->strided()) {
        bytes = std::uint64_t{ext->elements} * ext->elementBytes;
        for (std::uint32_t i = 0; i < ext->elements; ++i)
            done = std::max(done, serveRange(addr + static_cast<std::uint64_t>(ext->stride *
                                                                               static_cast<std::int64_t>(i)),
                                             ext->elementBytes, write, arrival));
    } else if (granulePow2_ && bytes > 0 && ((addr ^ (addr + bytes - 1)) & ~(map_.granule() - 1)) == 0) {
        // Inside one interleave granule (a cache line, mostly): one segment, nothing to split or join.
        const DdrLocation loc = map_.decode(addr);
        const std::uint64_t bursts =
            burstPow2_ ? ((loc.rowOffset + bytes - 1) >> burstShift_) - (loc.rowOffset >> burstShift_) + 1
                       : (loc.rowOffset + bytes - 1) / config_.burstBytes() -
                             loc.rowOffset / config_.burstBytes() + 1;
        Tick maxWait = 0;
        done = std::max(done, serveSegment(loc, bursts, write, arrival, maxWait));
        noteWait(maxWait);
    } else {
        done = serveRange(addr, bytes, write, arrival);
    }
    if (write) {
        ++writes_;
        bytesWritten_ += bytes;
    } else {
        ++reads_;
        bytesRead_ += bytes;
    }
    noteBusBytes(((write ? writeBursts_ : readBursts_) - burstsBefore) * config_.burstBytes());
    firstArrival_ = std::min(firstArrival_, arrival);
    lastEnd_ = std::max(lastEnd_, done);
    return done;
}

void Ddr::collect(StatsTree& stats, EnergyLedger& energy, double seconds) const {
    auto& node = stats.child(name());
    std::uint64_t rowAccesses = rowHits_ + rowMisses_ + rowEmpty_;
    std::uint64_t refreshes = refreshesBy(secondsToTicks(seconds));
    Tick busy = 0;
    for (const auto& b : bus_)
        busy += b.busyTicks();
    node.add("reads", reads_, "requests");
    node.add("writes", writes_, "requests");
    node.add("bytes_read", bytesRead_, "B");
    node.add("bytes_written", bytesWritten_, "B");
    node.add("read_bursts", readBursts_, "bursts");
    node.add("write_bursts", writeBursts_, "bursts");
    node.add("write_queue_drains", writeDrains_, "batches", "drains of the posted-write queue");
    node.add("activates", activates_, "commands");
    node.add("precharges", precharges_, "commands");
    node.add("refreshes", refreshes, "commands",
             config_.perBankRefresh ? "per-bank refreshes, all banks, ranks and channels"
                                    : "all-bank refreshes, all ranks and channels");
    node.add("row_hits", rowHits_, "segments");
    node.add("row_misses", rowMisses_, "segments", "row conflicts: precharge + activate");
    node.add("row_empty", rowEmpty_, "segments", "bank closed (start, refresh, closed page): activate");
    node.add("row_hits_reordered", reorderedHits_, "segments",
             "row hits served ahead of a later row switch (FR-FCFS)");
    node.add("row_hit_rate",
             rowAccesses ? static_cast<double>(rowHits_) / static_cast<double>(rowAccesses) : 0.0, "ratio");
    double bytes = static_cast<double>(busBytesRead() + busBytesWritten());
    node.add("achieved_bandwidth", seconds > 0 ? bytes / seconds : 0.0, "B/s",
             "bytes moved over the run time");
    double span = lastEnd_ > firstArrival_ && firstArrival_ != kTickMax
                      ? ticksToSeconds(lastEnd_ - firstArrival_)
                      : 0.0;
    node.add("active_bandwidth", span > 0 ? bytes / span : 0.0, "B/s",
             "bytes moved from first request to last completion");
    node.add("peak_bandwidth", config_.peakBandwidth(), "B/s");
    node.add("bus_utilisation", seconds > 0 ? ticksToSeconds(busy) / (seconds * config_.channels) : 0.0,
             "ratio", "fraction of time the data buses were transferring");
    energy.addEvents(name(), "activate", activates_, config_.activateJoules);
    energy.addEvents(name(), "read_burst", readBursts_, config_.readBurstJoules);
    energy.addEvents(name(), "write_burst", writeBursts_, config_.writeBurstJoules);
    energy.addEvents(name(), "refresh", refreshes,
                     config_.perBankRefresh ? config_.refreshJoules / config_.banks : config_.refreshJoules);
    energy.addStaticPower(name(), config_.backgroundWatts);
    collectUntimed(node);
    collectByInitiator(node);
}

void Ddr::countUntimed(std::uint64_t readBytes, std::uint64_t writeBytes) {
    Memory::countUntimed(readBytes, writeBytes);
    const std::uint64_t burst = config_.burstBytes();
    readBursts_ += (readBytes + burst - 1) / burst;
    writeBursts_ += (writeBytes + burst - 1) / burst;
}

}  // namespace tessim
