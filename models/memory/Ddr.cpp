#include "models/memory/Ddr.h"

#include <algorithm>
#include <numeric>

namespace tessim {

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config)
    : Memory(name, config.level, config.size), config_(config), map_(config), period_(config.clock.period),
      burstTicks_(config.burstCycles() * config.clock.period), refi_(config.t.tREFI * config.clock.period),
      rfc_(config.t.tRFC * config.clock.period),
      banks_(std::size_t{config.channels} * config.ranks * config.banks), bus_(config.channels),
      epochs_(config.ranks), writeSlotFree_(config.writeQueue, 0), edges_(period_) {
    posted_.reserve(config.writeQueue);
    orderFreeSlots();
}

void Ddr::resetTiming() {
    Memory::resetTiming();
    for (auto& b : banks_)
        b = Bank{};
    for (auto& b : bus_)
        b = ReservationTimeline{};
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
}

// Ranks refresh in turn, spread evenly over the interval.
Tick Ddr::refreshOffset(unsigned rank) const {
    return (config_.t.tREFI * rank / config_.ranks) * period_;
}

std::uint64_t Ddr::refreshIndex(unsigned rank, Tick t) const {
    Tick o = refreshOffset(rank);
    return t < o ? 0 : (t - o) / refi_;
}

const Ddr::RefreshEpoch& Ddr::epoch(unsigned rank, Tick t) {
    RefreshEpoch& e = epochs_[rank];
    if (t >= e.from && t < e.to)
        return e;
    Tick o = refreshOffset(rank);
    e.index = refreshIndex(rank, t);
    e.from = e.index == 0 ? 0 : o + e.index * refi_;
    e.to = o + (e.index + 1) * refi_;
    return e;
}

Tick Ddr::nextRefreshStart(unsigned rank, Tick t) {
    const RefreshEpoch& e = epoch(rank, t);
    // Inside the window that opened this epoch, or else the window that closes it.
    if (e.index > 0 && t < e.from + rfc_)
        return e.from;
    return e.to;
}

std::uint64_t Ddr::refreshesBy(Tick until) const {
    if (refi_ == 0)
        return 0;
    std::uint64_t n = 0;
    for (unsigned r = 0; r < config_.ranks; ++r)
        n += refreshIndex(r, until);
    return n * config_.channels;
}

Tick Ddr::serve(const DdrLocation& loc, std::uint64_t bursts, bool write, Tick arrival) {
    const DdrTiming& tm = config_.t;
    Bank& b = banks_[(std::size_t{loc.channel} * config_.ranks + loc.rank) * config_.banks + loc.bank];
    ReservationTimeline& bus = bus_[loc.channel];
    const Tick dur = bursts * burstTicks_;
    const Tick lat = (write ? tm.tCWL : tm.tCL) * period_;
    const Tick first = edges_.alignUp(arrival);
    Tick t = first;

    if (config_.frfcfs && !b.closed.empty()) {
        if (Tick end = serveInPast(b, loc, bursts, write, t))
            return end;
    }

    RowOutcome outcome;
    Tick act = 0, pre = 0, ds = 0;
    for (;;) {
        if (refi_ != 0) {
            // A refresh since the bank was last used closed its row.
            const RefreshEpoch& e = epoch(loc.rank, t);
            if (e.index > b.refreshSeen) {
                b.refreshSeen = e.index;
                b.open = false;
                b.closed.clear();
                b.actReady = std::max(b.actReady, e.from + rfc_);
            }
        }
        Tick colReady;
        if (b.open && b.row == loc.row) {
            outcome = RowOutcome::Hit;
            colReady = std::max(t, b.colReady);
        } else if (!b.open) {
            outcome = RowOutcome::Empty;
            act = std::max(t, b.actReady);
            colReady = act + tm.tRCD * period_;
        } else {
            outcome = RowOutcome::Miss;
            pre = std::max(t, b.preReady);
            act = std::max(pre + tm.tRP * period_, b.actReady);
            colReady = act + tm.tRCD * period_;
        }
        // In-order arrivals (the common case) need no search of the bus timeline.
        ds = bus.busyUntil() <= colReady + lat ? colReady + lat : bus.earliestStart(colReady + lat, dur);
        if (refi_ == 0)
            break;
        // The whole command sequence must fit between refreshes of the rank.
        Tick window = nextRefreshStart(loc.rank, t);
        if (window >= ds + dur)
            break;
        t = window + rfc_;
    }
    bus.reserve(ds, dur);
    const Tick end = ds + dur;
    const Tick col = ds - lat;
    {
        // Beyond what the same command sequence takes on an idle bank and bus.
        Tick unloaded = lat + dur;
        if (outcome != RowOutcome::Hit)
            unloaded += tm.tRCD * period_;
        if (outcome == RowOutcome::Miss)
            unloaded += tm.tRP * period_;
        segmentWait_ = end - std::min(end, first + unloaded);
    }
    switch (outcome) {
    case RowOutcome::Hit: ++rowHits_; break;
    case RowOutcome::Empty: ++rowEmpty_; break;
    case RowOutcome::Miss:
        ++rowMisses_;
        ++precharges_;
        b.closed.push_back(ClosedEpoch{b.row, b.opened, b.colReady, b.preReady, pre});
        if (b.closed.size() > config_.rowHistory)
            b.closed.erase(b.closed.begin());
        break;
    }
    if (outcome != RowOutcome::Hit) {
        ++activates_;
        b.opened = outcome == RowOutcome::Miss ? pre : act;
        b.row = loc.row;
        b.open = true;
        b.colReady = act + tm.tRCD * period_;
        b.preReady = act + tm.tRAS * period_;
    }
    Tick preAfter =
        write ? end + tm.tWR * period_ : col + (tm.tRTP + (bursts - 1) * config_.burstCycles()) * period_;
    b.preReady = std::max(b.preReady, preAfter);
    if (!config_.openPage) {
        // Auto-precharge: the row closes as soon as allowed.
        ++precharges_;
        b.open = false;
        b.closed.clear();
        b.actReady = std::max(b.actReady, b.preReady + tm.tRP * period_);
    }
    return end;
}

Tick Ddr::serveInPast(Bank& b, const DdrLocation& loc, std::uint64_t bursts, bool write, Tick t) {
    const DdrTiming& tm = config_.t;
    ReservationTimeline& bus = bus_[loc.channel];
    const Tick dur = bursts * burstTicks_;
    const Tick lat = (write ? tm.tCWL : tm.tCL) * period_;
    auto refreshFree = [&](Tick end) { return refi_ == 0 || nextRefreshStart(loc.rank, t) >= end; };
    auto prechargeAfter = [&](Tick ds) {
        return write ? ds + dur + tm.tWR * period_
                     : ds - lat + (tm.tRTP + (bursts - 1) * config_.burstCycles()) * period_;
    };
    // Arrived while its row was open: a row-hit-first controller would have served it before
    // the precharge that a later-served request caused.
    for (ClosedEpoch& e : b.closed) {
        if (e.row != loc.row || t >= e.precharge)
            continue;
        Tick ds = bus.earliestStart(std::max(t, e.colReady) + lat, dur);
        if (ds + dur <= e.precharge && refreshFree(ds + dur)) {
            bus.reserve(ds, dur);
            ++rowHits_;
            ++reorderedHits_;
            e.preReady = std::max(e.preReady, prechargeAfter(ds));
            segmentWait_ = ds - std::min(ds, t + lat);
            return ds + dur;
        }
    }
    if (config_.rowHistory < 2 || !b.open)
        return 0;
    // Its own row opened in a gap between two epochs: the precharge that opened the later one
    // closes this row instead, as if this request had been presented in time order.
    for (std::size_t k = 0; k < b.closed.size(); ++k) {
        ClosedEpoch& e = b.closed[k];
        const Tick nextOpened = k + 1 < b.closed.size() ? b.closed[k + 1].opened : b.opened;
        if (nextOpened <= t)
            continue;
        const Tick pre = std::max(t, e.preReady);
        const Tick act = pre + tm.tRP * period_;
        const Tick colReady = act + tm.tRCD * period_;
        const Tick ds = bus.earliestStart(colReady + lat, dur);
        const Tick preReady = std::max(act + tm.tRAS * period_, prechargeAfter(ds));
        if (preReady > nextOpened || !refreshFree(ds + dur))
            continue;
        bus.reserve(ds, dur);
        ++rowMisses_;
        ++precharges_;
        ++activates_;
        e.precharge = pre;
        b.closed.insert(b.closed.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                        ClosedEpoch{loc.row, pre, colReady, preReady, nextOpened});
        if (b.closed.size() > config_.rowHistory)
            b.closed.erase(b.closed.begin());
        const Tick unloaded = (tm.tRP + tm.tRCD) * period_ + lat + dur;
        segmentWait_ = ds + dur - std::min(ds + dur, t + unloaded);
        return ds + dur;
    }
    return 0;
}

void Ddr::orderFreeSlots() {
    freeOrder_.resize(writeSlotFree_.size());
    std::iota(freeOrder_.begin(), freeOrder_.end(), 0u);
    std::stable_sort(freeOrder_.begin(), freeOrder_.end(),
                     [this](unsigned a, unsigned b) { return writeSlotFree_[a] < writeSlotFree_[b]; });
    nextFree_ = 0;
}

Tick Ddr::postWrite(const DdrLocation& loc, std::uint64_t bursts, Tick arrival) {
    if (nextFree_ == freeOrder_.size()) {
        // Every entry is queued and none drained: drain now, then take the first to free.
        drainWrites();
    }
    // The entry that frees first (the earliest-indexed among equals).
    const unsigned slot = freeOrder_[nextFree_++];
    Tick accepted = alignUp(std::max(arrival, writeSlotFree_[slot]), period_);
    writeWait_ = accepted - alignUp(arrival, period_);
    writeSlotFree_[slot] = kTickMax;
    posted_.push_back(PostedWrite{loc, bursts, accepted, slot});
    if (posted_.size() == writeSlotFree_.size())
        drainWrites();
    return accepted;
}

void Ddr::drainWrites() {
    if (posted_.empty())
        return;
    ++writeDrains_;
    // Served bank by bank, row by row; each write no earlier than it was accepted.
    std::stable_sort(posted_.begin(), posted_.end(), [](const PostedWrite& a, const PostedWrite& b) {
        if (a.loc.channel != b.loc.channel)
            return a.loc.channel < b.loc.channel;
        if (a.loc.rank != b.loc.rank)
            return a.loc.rank < b.loc.rank;
        if (a.loc.bank != b.loc.bank)
            return a.loc.bank < b.loc.bank;
        if (a.loc.row != b.loc.row)
            return a.loc.row < b.loc.row;
        return a.loc.rowOffset < b.loc.rowOffset;
    });
    for (const auto& w : posted_) {
        Tick end = serve(w.loc, w.bursts, true, w.accepted);
        writeSlotFree_[w.slot] = end;
        lastEnd_ = std::max(lastEnd_, end);
        lastWriteEnd_ = std::max(lastWriteEnd_, end);
    }
    posted_.clear();
    orderFreeSlots();
}

Tick Ddr::completePostedWrites() {
    drainWrites();
    return lastWriteEnd_;
}

Tick Ddr::serveRange(std::uint64_t addr, std::uint64_t bytes, bool write, Tick arrival) {
    const std::uint64_t g = map_.granule(), burst = config_.burstBytes();
    Tick done = arrival;
    Tick maxWait = 0;
    std::uint64_t end = addr + bytes;
    while (addr < end) {
        DdrLocation loc = map_.decode(addr);
        std::uint64_t segEnd = std::min(end, (addr / g + 1) * g);
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
        std::uint64_t bursts = (rowEnd - 1) / burst - loc.rowOffset / burst + 1;
        if (write)
            writeBursts_ += bursts;
        else
            readBursts_ += bursts;
        Tick end = 0;
        if (write && !writeSlotFree_.empty()) {
            end = postWrite(loc, bursts, arrival);
            maxWait = std::max(maxWait, writeWait_);
        } else {
            end = serve(loc, bursts, write, arrival);
            maxWait = std::max(maxWait, segmentWait_);
            if (write)
                lastWriteEnd_ = std::max(lastWriteEnd_, end);
        }
        done = std::max(done, end);
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
    if (ext && ext->strided()) {
        bytes = std::uint64_t{ext->elements} * ext->elementBytes;
        for (std::uint32_t i = 0; i < ext->elements; ++i)
            done = std::max(done, serveRange(addr + static_cast<std::uint64_t>(ext->stride *
                                                                               static_cast<std::int64_t>(i)),
                                             ext->elementBytes, write, arrival));
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
    node.add("refreshes", refreshes, "commands", "all-bank refreshes, all ranks and channels");
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
    energy.addEvents(name(), "refresh", refreshes, config_.refreshJoules);
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
