// The DDR controller's refresh timing (part of Ddr, models/memory/Ddr.h): every tREFI a rank —
// or, with per-bank refresh, each bank of it in turn tREFIpb apart — is blocked for tRFC and its
// rows close. Inline: the bank scheduler's serve path (DdrBankScheduler.cpp) inlines it whole.
#pragma once

#include "models/memory/Ddr.h"

namespace tessim {

inline unsigned Ddr::refreshUnit(const DdrLocation& loc) const {
    return config_.perBankRefresh ? loc.rank * config_.banks + loc.bank : loc.rank;
}

// Ranks refresh in turn, spread evenly over the interval; with per-bank refresh the banks of a
// rank follow each other tREFIpb apart.
inline Tick Ddr::refreshOffset(unsigned unit) const {
    const std::uint64_t period = config_.refreshPeriodCycles();
    if (!config_.perBankRefresh)
        return (period * unit / config_.ranks) * period_;
    const unsigned rank = unit / config_.banks, bank = unit % config_.banks;
    return (period * rank / config_.ranks + bank * config_.t.tREFIpb) * period_;
}

inline std::uint64_t Ddr::refreshIndex(unsigned unit, Tick t) const {
    Tick o = refreshOffset(unit);
    return t < o ? 0 : (t - o) / refi_;
}

inline const Ddr::RefreshEpoch& Ddr::epoch(unsigned unit, Tick t) {
    RefreshEpoch& e = epochs_[unit];
    if (t >= e.from && t < e.to)
        return e;
    Tick o = refreshOffset(unit);
    e.index = refreshIndex(unit, t);
    e.from = e.index == 0 ? 0 : o + e.index * refi_;
    e.to = o + (e.index + 1) * refi_;
    return e;
}

inline Tick Ddr::nextRefreshStart(unsigned unit, Tick t) {
    const RefreshEpoch& e = epoch(unit, t);
    // Inside the window that opened this epoch, or else the window that closes it.
    if (e.index > 0 && t < e.from + rfc_)
        return e.from;
    return e.to;
}

}  // namespace tessim
