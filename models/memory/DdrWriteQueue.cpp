// The DDR controller's posted-write queue (part of Ddr, models/memory/Ddr.h): a write completes
// when an entry accepts it; a full queue drains in one batch sorted by bank and row (bank groups
// in turn), served by the bank scheduler.
#include <algorithm>
#include <numeric>

#include "models/memory/Ddr.h"
#include "models/memory/PowerOfTwo.h"

namespace tessim {

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

}  // namespace tessim
