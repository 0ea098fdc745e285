// The DDR controller's bank scheduling (part of Ddr, models/memory/Ddr.h): a row segment placed
// against its bank's state (hit, empty, conflict; FR-FCFS in the bank's remembered past), its
// bank queue, the rank's command rules (DdrRankRules.h), refresh (DdrRefresh.h) and the channel's
// data bus.
#include <algorithm>

#include "models/memory/Ddr.h"
#include "models/memory/DdrRankRules.h"
#include "models/memory/DdrRefresh.h"
#include "models/memory/PowerOfTwo.h"

namespace tessim {

// A bank holds at most bank_queue requests that have arrived and not yet issued their column
// command; a request that finds it full is admitted when the first of them leaves.
Tick Ddr::admit(std::size_t bank, Tick t) const {
    // Mostly the entry that leaves first has left by t: room at once.
    if (t >= queueFirst_[bank].leaves)
        return t;
    const QueueEntry* q = &queues_[bank * config_.bankQueue];
    for (;;) {
        // Not full as soon as one entry is not waiting at t (every entry looked at: no branch
        // to mispredict on which).
        bool room = false;
        Tick firstLeave = kTickMax;
        for (unsigned i = 0; i < config_.bankQueue; ++i) {
            room |= (q[i].admitted > t) | (t >= q[i].leaves);
            firstLeave = std::min(firstLeave, q[i].leaves);
        }
        if (room)
            return t;
        t = firstLeave;
    }
}

void Ddr::enqueue(std::size_t bank, Tick admitted, Tick leaves) {
    QueueEntry* q = &queues_[bank * config_.bankQueue];
    QueueFirst& first = queueFirst_[bank];
    // The entry that leaves first takes the new request; then the next to leave first (the
    // first of equals) is found.
    q[first.slot] = QueueEntry{admitted, leaves};
    unsigned slot = 0;
    Tick earliest = q[0].leaves;
    for (unsigned i = 1; i < config_.bankQueue; ++i) {
        const bool earlier = q[i].leaves < earliest;
        earliest = earlier ? q[i].leaves : earliest;
        slot = earlier ? i : slot;
    }
    first = QueueFirst{earliest, slot};
}

Tick Ddr::alignArrival(Tick t) {
    __extension__ typedef unsigned __int128 Wide;
    // ⌊n / period⌋ for n below 2^32: n × ⌈2^64 / period⌉ errs by less than n / 2^64 < 1 / period.
    constexpr Tick kExact = Tick{1} << 32;
    auto quotient = [this](Tick n) { return static_cast<Tick>((Wide(n) * periodInverse_) >> 64); };
    if (periodInverse_ != 0) {
        // After the last edge: up by ⌈(t − edge) / period⌉ periods; before it: down by
        // ⌊(edge − t) / period⌋. Both directions computed without a branch on which (arrivals of
        // a saturated random stream go either way at random).
        const bool after = t >= lastEdge_;
        const Tick n = after ? t - lastEdge_ + period_ - 1 : lastEdge_ - t;
        if (n < kExact) {
            const Tick step = quotient(n) * period_;
            lastEdge_ = after ? lastEdge_ + step : lastEdge_ - step;
            return lastEdge_;
        }
    }
    lastEdge_ = alignUp(t, period_);
    return lastEdge_;
}

// One instance for reads, one for writes, each with everything it calls inlined: the branches
// on the kind of request and the calls between the rules are gone from the hot path.
template <bool write>
__attribute__((flatten, noinline)) Tick Ddr::serveAs(const DdrLocation& loc, std::uint64_t bursts,
                                                     Tick arrival) {
    const std::size_t rankIndex = std::size_t{loc.channel} * config_.ranks + loc.rank;
    const std::size_t bankIndex = rankIndex * config_.banks + loc.bank;
    Bank& b = banks_[bankIndex];
    Segment s{&bus_[loc.channel],
              &rules_[rankIndex],
              config_.bankGroupOf(loc.bank),
              write,
              bursts,
              write ? writeLat_ : readLat_,
              (bursts - 1) * stepTicks_ + burstTicks_};
    const unsigned unit = refreshUnit(loc);
    const Tick first = alignArrival(arrival);
    Tick t = first;
    if (config_.bankQueue) {
        // Admitted in order: not before a request presented ahead of it that had to wait.
        t = admit(bankIndex, std::max(first, queueBlocked_[bankIndex]));
        if (t > first)
            queueBlocked_[bankIndex] = t;
    }
    accepted_ = std::max(accepted_, t);

    if (config_.frfcfs && !b.closed.empty()) {
        // Only a closed epoch of its row open at t, or a gap between epochs, can serve it.
        bool past = config_.rowHistory >= 2 && b.open;
        for (const ClosedEpoch& e : b.closed)
            past = past || (e.row == loc.row && t < e.precharge);
        if (past)
            if (Tick end = serveInPast(b, s, loc, t))
                return end;
    }

    RowOutcome outcome;
    Tick act = 0, pre = 0, col = 0;
    unsigned actSlot = 0;
    for (;;) {
        if (refi_ != 0) {
            // A refresh since the bank was last used closed its row.
            const RefreshEpoch& e = epoch(unit, t);
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
            act = scheduleActivate(s, std::max(t, b.actReady), actSlot);
            colReady = act + tk_.tRCD;
        } else {
            outcome = RowOutcome::Miss;
            pre = std::max(t, b.preReady);
            act = scheduleActivate(s, std::max(pre + tk_.tRP, b.actReady), actSlot);
            colReady = act + tk_.tRCD;
        }
        col = placeColumns(s, colReady);
        if (refi_ == 0)
            break;
        // The whole command sequence must fit between refreshes of the rank (or bank).
        Tick window = nextRefreshStart(unit, t);
        if (window >= col + s.lat + s.dur)
            break;
        t = window + rfc_;
    }
    if (outcome != RowOutcome::Hit)
        commitActivate(s, act, actSlot);
    commitColumns(s, col);
    if (config_.bankQueue)
        enqueue(bankIndex, t, col);
    const Tick end = col + s.lat + s.dur;
    {
        // Beyond what the same command sequence takes on an idle bank and bus.
        Tick unloaded = s.lat + s.dur;
        if (outcome != RowOutcome::Hit)
            unloaded += tk_.tRCD;
        if (outcome == RowOutcome::Miss)
            unloaded += tk_.tRP;
        segmentWait_ = end - std::min(end, first + unloaded);
    }
    switch (outcome) {
    case RowOutcome::Hit: ++rowHits_; break;
    case RowOutcome::Empty: ++rowEmpty_; break;
    case RowOutcome::Miss:
        ++rowMisses_;
        ++precharges_;
        if (b.closed.size() < config_.rowHistory) {
            b.closed.push_back(ClosedEpoch{b.row, b.opened, b.colReady, b.preReady, pre});
        } else if (!b.closed.empty()) {
            // The oldest leaves (moved in place: no element is allocated or erased).
            std::move(b.closed.begin() + 1, b.closed.end(), b.closed.begin());
            b.closed.back() = ClosedEpoch{b.row, b.opened, b.colReady, b.preReady, pre};
        }
        break;
    }
    if (outcome != RowOutcome::Hit) {
        ++activates_;
        b.opened = outcome == RowOutcome::Miss ? pre : act;
        b.row = loc.row;
        b.open = true;
        b.colReady = act + tk_.tRCD;
        b.preReady = act + tk_.tRAS;
    }
    b.preReady = std::max(b.preReady, prechargeAfter(s, col));
    if (!config_.openPage) {
        // Auto-precharge: the row closes as soon as allowed.
        ++precharges_;
        b.open = false;
        b.closed.clear();
        b.actReady = std::max(b.actReady, b.preReady + tk_.tRP);
    }
    return end;
}

// Writes: write recovery after the data; reads: tRTP after the last column command.
Tick Ddr::prechargeAfter(const Segment& s, Tick col) const {
    const Tick lastCol = col + (s.bursts - 1) * stepTicks_;
    return s.write ? col + s.lat + s.dur + tk_.tWR : lastCol + tk_.tRTP;
}

Tick Ddr::serveInPast(Bank& b, const Segment& s, const DdrLocation& loc, Tick t) {
    const unsigned unit = refreshUnit(loc);
    auto refreshFree = [&](Tick end) { return refi_ == 0 || nextRefreshStart(unit, t) >= end; };
    // Arrived while its row was open: a row-hit-first controller would have served it before
    // the precharge that a later-served request caused.
    for (ClosedEpoch& e : b.closed) {
        if (e.row != loc.row || t >= e.precharge)
            continue;
        const Tick col = placeColumns(s, std::max(t, e.colReady));
        const Tick end = col + s.lat + s.dur;
        if (end <= e.precharge && refreshFree(end)) {
            commitColumns(s, col);
            ++rowHits_;
            ++reorderedHits_;
            e.preReady = std::max(e.preReady, prechargeAfter(s, col));
            segmentWait_ = col - std::min(col, t);
            return end;
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
        unsigned actSlot = 0;
        const Tick act = scheduleActivate(s, pre + tk_.tRP, actSlot);
        const Tick colReady = act + tk_.tRCD;
        const Tick col = placeColumns(s, colReady);
        const Tick end = col + s.lat + s.dur;
        const Tick preReady = std::max(act + tk_.tRAS, prechargeAfter(s, col));
        if (preReady > nextOpened || !refreshFree(end))
            continue;
        commitActivate(s, act, actSlot);
        commitColumns(s, col);
        ++rowMisses_;
        ++precharges_;
        ++activates_;
        e.precharge = pre;
        b.closed.insert(b.closed.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                        ClosedEpoch{loc.row, pre, colReady, preReady, nextOpened});
        if (b.closed.size() > config_.rowHistory)
            b.closed.erase(b.closed.begin());
        const Tick unloaded = tk_.tRP + tk_.tRCD + s.lat + s.dur;
        segmentWait_ = end - std::min(end, t + unloaded);
        return end;
    }
    return 0;
}

template Tick Ddr::serveAs<false>(const DdrLocation& loc, std::uint64_t bursts, Tick arrival);
template Tick Ddr::serveAs<true>(const DdrLocation& loc, std::uint64_t bursts, Tick arrival);

}  // namespace tessim
