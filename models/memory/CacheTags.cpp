#include "models/memory/CacheTags.h"

#include <algorithm>

namespace tessim {

CacheTags::CacheTags(std::uint64_t sets, unsigned ways, ReplacementPolicy policy, std::uint64_t seed)
    : sets_(sets), ways_(ways), policy_(policy), seed_(seed), rng_(seed | 1),
      setsPow2_((sets & (sets - 1)) == 0), lines_(sets * ways), keys_(sets * ways, 0),
      stamps_(policy == ReplacementPolicy::Lru || policy == ReplacementPolicy::Bip ||
                      policy == ReplacementPolicy::Dip
                  ? sets * ways
                  : 0,
              0),
      plru_(policy == ReplacementPolicy::Plru ? sets : 0, 0) {}

void CacheTags::reset() {
    for (auto& l : lines_)
        l = Line{};
    std::fill(keys_.begin(), keys_.end(), 0);
    std::fill(stamps_.begin(), stamps_.end(), 0);
    for (auto& p : plru_)
        p = 0;
    clock_ = 1;  // stamp 1 is below every touch: BIP's LRU insertions
    bipFills_ = 0;
    psel_ = kDipPselMax / 2;
    rng_ = seed_ | 1;
}

std::vector<std::uint64_t> CacheTags::takeDirtyLines() {
    std::vector<std::uint64_t> dirty;
    for (auto& l : lines_)
        if (l.valid && l.dirty) {
            dirty.push_back(l.lineNumber);
            l.dirty = false;
        }
    return dirty;
}

// The index in lines_ of the line, or lines_.size() when it is absent.
std::size_t CacheTags::slotOf(std::uint64_t lineNumber) const {
    const std::size_t base = setOf(lineNumber) * ways_;
    const std::uint64_t* keys = &keys_[base];
    const std::uint64_t* found = std::find(keys, keys + ways_, lineNumber + 1);
    return found == keys + ways_ ? lines_.size() : base + static_cast<std::size_t>(found - keys);
}

CacheTags::Line* CacheTags::findIfPresent(std::uint64_t lineNumber) {
    const std::size_t slot = slotOf(lineNumber);
    return slot == lines_.size() ? nullptr : &lines_[slot];
}

bool CacheTags::contains(std::uint64_t lineNumber) const {
    return slotOf(lineNumber) != lines_.size();
}

// Tree PLRU: node i has children 2i+1, 2i+2; a bit of 1 means "the victim is on the right".
void CacheTags::touch(std::uint64_t set, unsigned way) {
    if (!stamps_.empty()) {
        stamps_[set * ways_ + way] = ++clock_;
    } else if (policy_ == ReplacementPolicy::Plru) {
        std::uint64_t bits = plru_[set];
        unsigned node = 0;
        for (unsigned span = ways_; span > 1; span /= 2) {
            bool right = (way % span) >= span / 2;
            // Point away from the way just used.
            if (right)
                bits &= ~(std::uint64_t{1} << node);
            else
                bits |= std::uint64_t{1} << node;
            node = 2 * node + (right ? 2 : 1);
        }
        plru_[set] = bits;
    }
}

unsigned CacheTags::pickVictim(std::uint64_t set) {
    if (!stamps_.empty()) {
        const std::uint64_t* stamps = &stamps_[set * ways_];
        // The first invalid way, else the least recently used: one pass, as invalid ways (never
        // touched since reset) have stamp 0 and valid ones stamps from 1 up (touches from 2 up, all
        // different; BIP's and DIP's LRU insertions share 1, the first of them the victim).
        unsigned best = 0;
        for (unsigned w = 1; w < ways_; ++w)
            if (stamps[w] < stamps[best])
                best = w;
        return best;
    }
    const std::uint64_t* keys = &keys_[set * ways_];
    for (unsigned w = 0; w < ways_; ++w)
        if (keys[w] == 0)
            return w;
    switch (policy_) {
    case ReplacementPolicy::Lru:
    case ReplacementPolicy::Bip:
    case ReplacementPolicy::Dip: break;
    case ReplacementPolicy::Plru: {
        std::uint64_t bits = plru_[set];
        unsigned node = 0, way = 0;
        for (unsigned span = ways_; span > 1; span /= 2) {
            bool right = (bits >> node) & 1;
            if (right)
                way += span / 2;
            node = 2 * node + (right ? 2 : 1);
        }
        return way;
    }
    case ReplacementPolicy::Random: {
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        return static_cast<unsigned>(rng_ % ways_);
    }
    }
    return 0;
}

CacheTags::Line& CacheTags::access(std::uint64_t lineNumber, bool& hit, Victim& victim) {
    if (Line* present = touchIfPresent(lineNumber)) {
        hit = true;
        return *present;
    }
    hit = false;
    return install(lineNumber, victim);
}

// Whether a fill of `set` enters at the LRU position (BIP's, but one fill in kBipInterval); under
// DIP the leader sets count their misses (this fill is one) and the others follow the better.
bool CacheTags::insertsAtLru(std::uint64_t set) {
    bool bip = policy_ == ReplacementPolicy::Bip;
    if (policy_ == ReplacementPolicy::Dip) {
        const std::uint64_t leader = set % kDipLeaderSpacing;
        if (leader == 0)
            psel_ = std::min(psel_ + 1, kDipPselMax);
        else if (leader == 1)
            psel_ = std::max(psel_ - 1, 0);
        bip = leader == 1 || (leader != 0 && psel_ > kDipPselMax / 2);
    }
    return bip && ++bipFills_ % kBipInterval != 0;
}

CacheTags::Line& CacheTags::install(std::uint64_t lineNumber, Victim& victim, bool atLru) {
    const std::uint64_t set = setOf(lineNumber);
    const unsigned w = pickVictim(set);
    Line& line = lines_[set * ways_ + w];
    victim = Victim{line.valid, line.dirty, line.lineNumber};
    line = Line{};
    line.lineNumber = lineNumber;
    line.valid = true;
    keys_[set * ways_ + w] = lineNumber + 1;
    if ((atLru && !stamps_.empty()) || insertsAtLru(set))
        stamps_[set * ways_ + w] = 1;  // at the LRU position: the next victim unless used again
    else
        touch(set, w);
    return line;
}

}  // namespace tessim
