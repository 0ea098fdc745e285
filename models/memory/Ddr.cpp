#include "models/memory/Ddr.h"

#include <algorithm>
#include <initializer_list>
#include <numeric>

#include "models/memory/PowerOfTwo.h"

namespace tessim {

namespace {

// How many records of a time-ordered history `before` holds for, when it holds for a prefix:
// counted over all of them (no branch to mispredict, and no chain of dependent loads).
template <class Record, class Before> unsigned countBefore(const Record* records, unsigned n, Before before) {
    unsigned count = 0;
    for (unsigned i = 0; i < n; ++i)
        count += before(records[i]) ? 1 : 0;
    return count;
}

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

unsigned Ddr::refreshUnit(const DdrLocation& loc) const {
    return config_.perBankRefresh ? loc.rank * config_.banks + loc.bank : loc.rank;
}

// Ranks refresh in turn, spread evenly over the interval; with per-bank refresh the banks of a
// rank follow each other tREFIpb apart.
Tick Ddr::refreshOffset(unsigned unit) const {
    const std::uint64_t period = config_.refreshPeriodCycles();
    if (!config_.perBankRefresh)
        return (period * unit / config_.ranks) * period_;
    const unsigned rank = unit / config_.banks, bank = unit % config_.banks;
    return (period * rank / config_.ranks + bank * config_.t.tREFIpb) * period_;
}

std::uint64_t Ddr::refreshIndex(unsigned unit, Tick t) const {
    Tick o = refreshOffset(unit);
    return t < o ? 0 : (t - o) / refi_;
}

const Ddr::RefreshEpoch& Ddr::epoch(unsigned unit, Tick t) {
    RefreshEpoch& e = epochs_[unit];
    if (t >= e.from && t < e.to)
        return e;
    Tick o = refreshOffset(unit);
    e.index = refreshIndex(unit, t);
    e.from = e.index == 0 ? 0 : o + e.index * refi_;
    e.to = o + (e.index + 1) * refi_;
    return e;
}

Tick Ddr::nextRefreshStart(unsigned unit, Tick t) {
    const RefreshEpoch& e = epoch(unit, t);
    // Inside the window that opened this epoch, or else the window that closes it.
    if (e.index > 0 && t < e.from + rfc_)
        return e.from;
    return e.to;
}

std::uint64_t Ddr::refreshesBy(Tick until) const {
    if (refi_ == 0)
        return 0;
    std::uint64_t n = 0;
    for (unsigned u = 0; u < epochs_.size(); ++u)
        n += refreshIndex(u, until);
    return n * config_.channels;
}

// The earliest activate at or after a that the rank's activates allow: tRRD (tRRD_L in the same
// bank group) from each in either time order, no five activates within tFAW, and after those
// that left the history (tRRD to them, tFAW with the last four of them, which the sequence still
// holds). The activates are in time order, so the candidates fall in the gaps between them: the
// gaps are tried in turn from the one that holds a, each at its earliest tick (the limits from
// the activates before a gap only grow, those from the activates after it only bound it from
// above, so a gap's earliest tick fits or none of its ticks does). slot: where among the
// remembered activates it goes.
Tick Ddr::placeActivate(RankRules& rr, unsigned group, Tick a, unsigned& slot) const {
    const unsigned tail = rr.nTail, n = tail + rr.nActs;
    slot = rr.nActs;
    if (!actRules_)
        return a;
    const ActRecord* acts = rr.seq();
    // After every activate by tRRD (tRRD_L in this group) and after the fourth latest by tFAW:
    // nothing to check.
    if (n == 0 || (a >= acts[n - 1].at + rrdS_ && a >= rr.lastActInGroup[group] + rrdL_ &&
                   (n < 4 || a >= acts[n - 4].at + faw_)))
        return a;
    if (tail > 0)
        // Never before an activate that left the history, and tRRD after each of them.
        a = std::max({a, acts[tail - 1].at + rrdS_, rr.forgottenActFree[group]});
    auto rrdTo = [&](const ActRecord& r) { return r.group == group ? rrdL_ : rrdS_; };
    // Gap p holds the ticks x with acts[p - 1].at <= x < acts[p].at (p >= tail).
    unsigned p = n;
    while (p > tail && acts[p - 1].at > a)
        --p;
    // Gaps inside four activates within tFAW hold no tick (a fifth would join them).
    const std::uint32_t blocked = (rr.shortWindows << 1) | (rr.shortWindows << 2) | (rr.shortWindows << 3);
    Tick x = a;
    for (;;) {
        if (blocked >> p & 1)
            p += static_cast<unsigned>(__builtin_ctz(~blocked >> p));
        // The earliest tick of gap p that the activates before it allow by tRRD (those closer
        // than tRRD_L) and by tFAW (the fourth before it).
        for (unsigned i = p; i > 0 && acts[i - 1].at + rrdL_ > x; --i)
            x = std::max(x, acts[i - 1].at + rrdTo(acts[i - 1]));
        if (p >= 4)
            x = std::max(x, acts[p - 4].at + faw_);
        if (p == n)
            return x;  // slot: after every remembered one
        // Before acts[p]: tRRD to it and to the later ones within tRRD_L, tFAW to the fourth
        // after it.
        bool fits = x < acts[p].at && (p + 4 > n || x + faw_ <= acts[p + 3].at);
        for (unsigned i = p; fits && i < n && acts[i].at < x + rrdL_; ++i)
            fits = x + rrdTo(acts[i]) <= acts[i].at;
        if (fits) {
            slot = p - tail;
            return x;
        }
        ++p;
    }
}

Tick Ddr::scheduleActivate(const Segment& s, Tick a, unsigned& slot) {
    RankRules& rr = *s.rules;
    if (!refreshActs_)
        return placeActivate(rr, s.group, a, slot);
    const unsigned rank = rankIndex(rr) % config_.ranks;
    // Every REFpb that a rule can bind to the activate must be in the sequence before it is placed
    // (the later ones then cannot reach the activates placed so far): once more when the activate
    // lands further than they were added.
    addRefreshCommands(rr, rank, a + actReach_);
    for (;;) {
        const Tick x = placeActivate(rr, s.group, a, slot);
        if (x + actReach_ <= rr.refpbUntil)
            return x;
        addRefreshCommands(rr, rank, x + actReach_);
    }
}

// The rank's per-bank refreshes up to `until` join its activate sequence, each where the refresh
// window of its bank puts it (after that bank's precharge): REFpb number m of the rank refreshes
// bank m mod banks, tREFIpb after number m − 1; the first of each bank comes after one period.
void Ddr::addRefreshCommands(RankRules& rr, unsigned rank, Tick until) {
    if (until <= rr.refpbUntil)
        return;
    const std::uint64_t period = config_.refreshPeriodCycles();
    if (rr.nextRefpb == 0)
        rr.nextRefpb = config_.banks;
    for (;; ++rr.nextRefpb) {
        const Tick at =
            (period * rank / config_.ranks + rr.nextRefpb * config_.t.tREFIpb + config_.t.tRP) * period_;
        if (at > until)
            break;
        const unsigned bank = static_cast<unsigned>(rr.nextRefpb % config_.banks);
        const unsigned group = config_.bankGroupOf(bank);
        // After the activates at or before it (mostly all of them: it lies ahead of each).
        unsigned slot = rr.nActs;
        while (slot > 0 && rr.seq()[rr.nTail + slot - 1].at > at)
            --slot;
        recordActivate(rr, group, at, slot);
        if (commandLog_)
            commandLog_->push_back(Command{Command::Kind::Refresh, rankIndex(rr), group, at, at, at});
    }
    rr.refpbUntil = until;
}

void Ddr::recordActivate(RankRules& rr, unsigned group, Tick a, unsigned slot) {
    if (!actRules_)
        return;
    if (rr.actHead + rr.nTail + rr.nActs == 2 * kActSeq - 1) {
        // The sequence reached the end of its buffer: move it back to the start (once per
        // kActSeq activates).
        std::copy(rr.seq(), rr.seq() + rr.nTail + rr.nActs, rr.actBuffer.begin() + kActPad);
        rr.actHead = 0;
    }
    ActRecord* acts = rr.seq();
    // The slot placeActivate() found: after the activates at or before it.
    const unsigned i = rr.nTail + slot;
    for (unsigned j = rr.nTail + rr.nActs++; j > i; --j)
        acts[j] = acts[j - 1];
    acts[i] = ActRecord{a, group};
    rr.lastActInGroup[group] = std::max(rr.lastActInGroup[group], a);
    if (faw_ != 0) {
        // The windows before the new activate keep their bits, those after it move up by one,
        // and the (at most four) that hold it are measured: windows j = i - 3 .. i, of which
        // those with 0 <= j and j + 4 <= n exist. All four are measured without a branch (the
        // padding around the sequence makes every read valid), then masked.
        const unsigned n = rr.nTail + rr.nActs;
        std::uint32_t measured = 0;
        for (unsigned k = 0; k < 4; ++k) {
            const ActRecord* w0 = acts + i + k - 3;
            measured |= std::uint32_t{w0[3].at - w0[0].at < faw_} << k;
        }
        const unsigned from = i >= 3 ? i - 3 : 0, to = std::min(i, n - 4);  // the existing ones
        const std::uint32_t exist = n >= 4 && to >= from ? (2u << to) - (1u << from) : 0;
        std::uint32_t w = rr.shortWindows;
        w = (w & ((1u << from) - 1)) | ((w >> i) << (i + 1));
        rr.shortWindows = w | (((measured << i) >> 3) & exist);
    }
    if (rr.nActs > kActHistory) {
        // The oldest remembered activate leaves the history (the new one itself when it went
        // before all of them): it joins the tail, whose oldest leaves the sequence.
        const ActRecord& oldest = acts[rr.nTail];
        rr.forgottenActFree[oldest.group] = std::max(rr.forgottenActFree[oldest.group], oldest.at + rrdL_);
        --rr.nActs;
        if (rr.nTail == kActTail) {
            ++rr.actHead;
            rr.shortWindows >>= 1;
        } else {
            ++rr.nTail;
        }
    }
}

// The column rules: tCCD, tWTR and tRTW against the rank's recent column commands, in either
// time order, and after the latest command forgotten of each kind. Each remembered command
// forbids one stretch of ticks, [from, to): before it closer than its distance from this segment,
// or after it sooner than allowed. Returned: the first tick at or after c outside every stretch.
// The commands are in time order, so only those near c are looked at: from the first whose
// stretch can still reach c to the last whose stretch can start before it; a move past one
// stretch looks at them again (from where the stretches can reach the new tick).
Tick Ddr::columnRulesAllow(const RankRules& rr, const Segment& s, Tick c) const {
    const Tick span = (s.bursts - 1) * stepTicks_;
    // Reads and writes are remembered apart: a kind whose rules cannot bind is not looked at
    // (tCCD of one burst is the data bus's own rule; no turnaround keys, no read/write rules).
    const bool check[2] = {s.write ? turnRules_ : ccdRules_, s.write ? ccdRules_ : turnRules_};
    for (unsigned kind = 0; kind < 2; ++kind)
        if (check[kind] && rr.forgotCols[kind])
            // Older than the commands of this kind remembered: after the last one forgotten.
            c = std::max(c, rr.forgottenColFirst[kind]);
    // And as far after each forgotten command as its rules ask.
    c = std::max({c, rr.forgottenColFree[s.write], rr.forgottenColFreeInGroup[2 * s.group + s.write]});
    // Before e: e must still keep its distance from this segment (c + gap <= e.first).
    auto fromOf = [](Tick first, Tick gap) {
        return gap == 0 ? first : first + 1 > gap ? first + 1 - gap : 0;
    };
    const unsigned same = s.write ? 1 : 0, other = 1 - same;
    const Tick ccdL = tk_.tCCD_L, ccdS = tk_.tCCD_S;
    const Tick rtw = tk_.tRTW;
    const Tick wtrL = tk_.tWTR_L, wtrS = tk_.tWTR_S;
    bool moved = false;
    Tick pending = kTickMax;  // the earliest start of a stretch looked at that began after c
    // One kind's commands near c; rule(e, to, gap) gives the stretch e forbids. reach: the
    // longest a stretch reaches past its command; ahead: the longest it starts before it.
    auto pass = [&](unsigned kind, Tick reach, Tick ahead, auto rule) {
        auto look = [&](const ColRecord& e) {
            Tick to, gap;
            rule(e, to, gap);
            if (c >= to)
                return;
            const Tick from = fromOf(e.first, gap);
            if (from <= c) {
                c = to;
                moved = true;
            } else {
                pending = std::min(pending, from);
            }
        };
        const ColRecord* cols = rr.cols(kind);
        const unsigned n = rr.nCols[kind];
        for (unsigned i = countBefore(cols, n, [&](const ColRecord& e) { return e.first + reach <= c; });
             i < n && cols[i].first <= c + ahead; ++i)
            look(cols[i]);
    };
    // The same kind: tCCD either way.
    auto sameRule = [&](const ColRecord& e, Tick& to, Tick& gap) {
        const Tick ccd = e.group == s.group ? ccdL : ccdS;
        to = e.last + ccd;
        gap = span + ccd;
    };
    // The other kind: a read after a write's data by tWTR, a write after a read by tRTW.
    auto otherRule = [&](const ColRecord& e, Tick& to, Tick& gap) {
        const Tick wtr = e.group == s.group ? wtrL : wtrS;
        to = s.write ? e.last + rtw : e.dataEnd + wtr;
        gap = s.write ? span + s.lat + burstTicks_ + wtr : span + rtw;
    };
    for (;;) {
        pending = kTickMax;
        moved = false;
        if (check[same])
            pass(same, rr.colSpan[same] + ccdL, span + ccdL, sameRule);
        const bool sameMoved = moved;
        moved = false;
        if (check[other])
            pass(other, s.write ? rr.colSpan[other] + rtw : rr.colTail[other] + wtrL,
                 s.write ? span + s.lat + burstTicks_ + wtrL : span + rtw, otherRule);
        // Done unless a move reached a stretch looked at before it (it began after c then), or
        // the other kind moved c past the commands of this kind looked at.
        if (!sameMoved && !moved)
            return c;
        if (c < pending && !(moved && check[same]))
            return c;
    }
}

void Ddr::recordColumns(RankRules& rr, const Segment& s, Tick c, Tick dataEnd) {
    if (!colRules_)
        return;
    const unsigned kind = s.write ? 1 : 0;
    if (rr.nCols[kind] == kColHistory) {
        // The oldest leaves the history; what it asks of later commands is kept.
        const ColRecord& oldest = rr.cols(kind)[0];
        rr.forgottenColFirst[kind] = std::max(rr.forgottenColFirst[kind], oldest.first);
        rr.forgotCols[kind] = true;
        raiseColumnBounds(oldest, rr.forgottenColFree, rr.forgottenColFreeInGroup);
        ++rr.colHead[kind];
        --rr.nCols[kind];
    }
    auto& buffer = rr.colBuffer[kind];
    if (rr.colHead[kind] + rr.nCols[kind] == buffer.size()) {
        std::copy(buffer.begin() + rr.colHead[kind], buffer.end(), buffer.begin());
        rr.colHead[kind] = 0;
    }
    ColRecord* cols = buffer.data() + rr.colHead[kind];
    // After the commands at or before it; the later ones move up by one.
    unsigned slot = rr.nCols[kind]++;
    for (; slot > 0 && cols[slot - 1].first > c; --slot)
        cols[slot] = cols[slot - 1];
    cols[slot] = ColRecord{c, c + (s.bursts - 1) * stepTicks_, dataEnd, s.group, s.write};
    rr.colSpan[kind] = std::max(rr.colSpan[kind], cols[slot].last - c);
    rr.colTail[kind] = std::max(rr.colTail[kind], dataEnd - c);
    raiseColumnBounds(cols[slot], rr.colFree, rr.colFreeInGroup);
}

// A new read waits tCCD after a read and tWTR after a write's data; a new write tCCD after a write
// and tRTW after a read (only the rules that can bind count).
void Ddr::raiseColumnBounds(const ColRecord& e, std::array<Tick, 2>& any, std::vector<Tick>& inGroup) const {
    auto raise = [](Tick& t, Tick v) { t = std::max(t, v); };
    Tick* group = &inGroup[2 * std::size_t{e.group}];
    if (e.write) {
        if (turnRules_) {
            raise(any[0], e.dataEnd + tk_.tWTR_S);
            raise(group[0], e.dataEnd + tk_.tWTR_L);
        }
        if (ccdRules_) {
            raise(any[1], e.last + tk_.tCCD_S);
            raise(group[1], e.last + tk_.tCCD_L);
        }
    } else {
        if (ccdRules_) {
            raise(any[0], e.last + tk_.tCCD_S);
            raise(group[0], e.last + tk_.tCCD_L);
        }
        if (turnRules_) {
            raise(any[1], e.last + tk_.tRTW);
            raise(group[1], e.last + tk_.tRTW);
        }
    }
}

// Column commands and data: the first column command at or after c that the rank's column rules,
// the command bus and the data bus all allow; returns it (data starts lat later).
Tick Ddr::placeColumns(const Segment& s, Tick c) const {
    for (;;) {
        // The data bus first: it moves a request past a busy stretch in one step.
        const Tick ds = s.bus->busyUntil() <= c + s.lat ? c + s.lat : s.bus->earliestStart(c + s.lat, s.dur);
        c = ds - s.lat;
        if (!colRules_ ||
            (c >= s.rules->colFree[s.write] && c >= s.rules->colFreeInGroup[2 * s.group + s.write]))
            return c;
        const Tick before = c;
        c = columnRulesAllow(*s.rules, s, c);
        if (c == before)
            return c;
    }
}

void Ddr::commitColumns(const Segment& s, Tick c) {
    s.bus->reserve(c + s.lat, s.dur);
    recordColumns(*s.rules, s, c, c + s.lat + s.dur);
    if (commandLog_)
        commandLog_->push_back(Command{s.write ? Command::Kind::Write : Command::Kind::Read,
                                       rankIndex(*s.rules), s.group, c, c + (s.bursts - 1) * stepTicks_,
                                       c + s.lat + s.dur});
}

void Ddr::commitActivate(const Segment& s, Tick act, unsigned slot) {
    recordActivate(*s.rules, s.group, act, slot);
    if (commandLog_)
        commandLog_->push_back(Command{Command::Kind::Activate, rankIndex(*s.rules), s.group, act, act, act});
}

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
    accepted_ = std::max(accepted_, accepted);
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
    if (config_.bankGroups > 1) {
        // Bank groups in turn, so that consecutive writes are tCCD_S rather than tCCD_L apart.
        std::vector<std::vector<PostedWrite>> groups(config_.bankGroups);
        for (const auto& w : posted_)
            groups[config_.bankGroupOf(w.loc.bank)].push_back(w);
        posted_.clear();
        for (std::size_t i = 0;; ++i) {
            bool any = false;
            for (auto& g : groups)
                if (i < g.size()) {
                    posted_.push_back(g[i]);
                    any = true;
                }
            if (!any)
                break;
        }
    }
    for (const auto& w : posted_) {
        Tick end = serveAs<true>(w.loc, w.bursts, w.accepted);
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
