// The DDR controller's command rules between the banks of a rank (part of Ddr,
// models/memory/Ddr.h): tRRD_S/L and tFAW between activates (per-bank refreshes counted as
// activates), tCCD_S/L, tWTR_S/L and tRTW between column commands, each kept in either time order
// against the rank's recent commands and the bounds the forgotten ones leave. Inline: the bank
// scheduler's serve path (DdrBankScheduler.cpp) inlines it whole.
#pragma once

#include "models/memory/Ddr.h"
#include "models/memory/DdrRefresh.h"

namespace tessim {
namespace ddr {

// How many records of a time-ordered history `before` holds for, when it holds for a prefix:
// counted over all of them (no branch to mispredict, and no chain of dependent loads).
template <class Record, class Before> unsigned countBefore(const Record* records, unsigned n, Before before) {
    unsigned count = 0;
    for (unsigned i = 0; i < n; ++i)
        count += before(records[i]) ? 1 : 0;
    return count;
}

}  // namespace ddr

// The earliest activate at or after a that the rank's activates allow: tRRD (tRRD_L in the same
// bank group) from each in either time order, no five activates within tFAW, and after those
// that left the history (tRRD to them, tFAW with the last four of them, which the sequence still
// holds). The activates are in time order, so the candidates fall in the gaps between them: the
// gaps are tried in turn from the one that holds a, each at its earliest tick (the limits from
// the activates before a gap only grow, those from the activates after it only bound it from
// above, so a gap's earliest tick fits or none of its ticks does). slot: where among the
// remembered activates it goes.
inline Tick Ddr::placeActivate(RankRules& rr, unsigned group, Tick a, unsigned& slot) const {
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

inline Tick Ddr::scheduleActivate(const Segment& s, Tick a, unsigned& slot) {
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
inline void Ddr::addRefreshCommands(RankRules& rr, unsigned rank, Tick until) {
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

inline void Ddr::recordActivate(RankRules& rr, unsigned group, Tick a, unsigned slot) {
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
inline Tick Ddr::columnRulesAllow(const RankRules& rr, const Segment& s, Tick c) const {
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
        for (unsigned i = ddr::countBefore(cols, n, [&](const ColRecord& e) { return e.first + reach <= c; });
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

inline void Ddr::recordColumns(RankRules& rr, const Segment& s, Tick c, Tick dataEnd) {
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
inline void Ddr::raiseColumnBounds(const ColRecord& e, std::array<Tick, 2>& any,
                                   std::vector<Tick>& inGroup) const {
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
inline Tick Ddr::placeColumns(const Segment& s, Tick c) const {
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

inline void Ddr::commitColumns(const Segment& s, Tick c) {
    s.bus->reserve(c + s.lat, s.dur);
    recordColumns(*s.rules, s, c, c + s.lat + s.dur);
    if (commandLog_)
        commandLog_->push_back(Command{s.write ? Command::Kind::Write : Command::Kind::Read,
                                       rankIndex(*s.rules), s.group, c, c + (s.bursts - 1) * stepTicks_,
                                       c + s.lat + s.dur});
}

inline void Ddr::commitActivate(const Segment& s, Tick act, unsigned slot) {
    recordActivate(*s.rules, s.group, act, slot);
    if (commandLog_)
        commandLog_->push_back(Command{Command::Kind::Activate, rankIndex(*s.rules), s.group, act, act, act});
}

}  // namespace tessim
