#include "models/memory/DdrAddressMap.h"

#include "models/memory/PowerOfTwo.h"

namespace tessim {

DdrAddressMap::Runs DdrAddressMap::runsOf(const std::vector<unsigned>& bits) {
    Runs runs;
    for (unsigned i = 0; i < bits.size(); ++i) {
        if (!runs.empty() && runs.back().from + runs.back().width == bits[i])
            ++runs.back().width;
        else
            runs.push_back(BitRun{bits[i], i, 1});
    }
    return runs;
}

std::uint64_t DdrAddressMap::gather(std::uint64_t addr, const Runs& runs) {
    std::uint64_t v = 0;
    for (const BitRun& r : runs)
        v |= ((addr >> r.from) & ((std::uint64_t{1} << r.width) - 1)) << r.to;
    return v;
}

std::uint64_t DdrAddressMap::scatter(std::uint64_t value, const Runs& runs) {
    std::uint64_t a = 0;
    for (const BitRun& r : runs)
        a |= ((value >> r.to) & ((std::uint64_t{1} << r.width) - 1)) << r.from;
    return a;
}

DdrAddressMap::DdrAddressMap(const DdrConfig& c) : granule_(c.interleave) {
    if (c.bitMapped) {
        bitMapped_ = true;
        granuleShift_ = log2Of(granule_);
        channel_ = runsOf(c.bits.channel);
        rank_ = runsOf(c.bits.rank);
        bank_ = runsOf(c.bits.bank);
        row_ = runsOf(c.bits.row);
        column_ = runsOf(c.bits.column);
        const std::size_t bankBits = c.bits.bank.size();
        for (std::size_t i = 0; bankBits != 0 && i < c.bits.bankXor.size(); i += bankBits)
            bankXor_.push_back(runsOf(
                std::vector<unsigned>(c.bits.bankXor.begin() + static_cast<std::ptrdiff_t>(i),
                                      c.bits.bankXor.begin() + static_cast<std::ptrdiff_t>(i + bankBits))));
        const Runs* byField[kBankXor] = {&channel_, &rank_, &bank_, &row_, &column_};
        for (unsigned f = 0; f < kBankXor; ++f)
            for (const BitRun& r : *byField[f])
                fieldRuns_.push_back(FieldRun{r.from, r.to, f, (std::uint64_t{1} << r.width) - 1});
        for (const Runs& group : bankXor_)
            for (const BitRun& r : group)
                fieldRuns_.push_back(FieldRun{r.from, r.to, kBankXor, (std::uint64_t{1} << r.width) - 1});
        return;
    }
    pow2_ = isPow2(granule_);
    granuleShift_ = log2Of(granule_);
    if (c.bankHashRow)
        bankHashBits_ = log2Of(c.banks);
    unsigned shift = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        DdrField f = c.mapping[c.mapping.size() - 1 - i];
        std::uint64_t count = 0;
        switch (f) {
        case DdrField::Channel: count = c.channels; break;
        case DdrField::Rank: count = c.ranks; break;
        case DdrField::Bank: count = c.banks; break;
        case DdrField::Row: count = c.rows(); break;
        case DdrField::Column: count = c.rowBytes / c.interleave; break;
        }
        pow2_ = pow2_ && isPow2(count);
        fields_[i] = Field{f, count, shift, count - 1};
        shift += log2Of(count);
    }
}

DdrLocation DdrAddressMap::decodeBits(std::uint64_t addr) const {
    std::uint64_t v[kBitFields] = {};
    for (const FieldRun& r : fieldRuns_)  // the XOR groups fold into one value; fields are disjoint
        v[r.field] ^= ((addr >> r.from) & r.mask) << r.to;
    DdrLocation loc;
    loc.channel = static_cast<unsigned>(v[kChannel]);
    loc.rank = static_cast<unsigned>(v[kRank]);
    loc.bank = static_cast<unsigned>(v[kBank] ^ v[kBankXor]);
    loc.row = v[kRow];
    loc.rowOffset = (v[kColumn] << granuleShift_) | (addr & (granule_ - 1));
    return loc;
}

std::uint64_t DdrAddressMap::encodeBits(const DdrLocation& loc) const {
    std::uint64_t a = scatter(loc.channel, channel_) | scatter(loc.rank, rank_) | scatter(loc.row, row_) |
                      scatter(loc.rowOffset >> granuleShift_, column_) | (loc.rowOffset & (granule_ - 1));
    // The XOR sources are bits of the other fields, already in place.
    std::uint64_t hash = 0;
    for (const Runs& group : bankXor_)
        hash ^= gather(a, group);
    return a | scatter(loc.bank ^ hash, bank_);
}

DdrLocation DdrAddressMap::decode(std::uint64_t addr) const {
    if (bitMapped_)
        return decodeBits(addr);
    DdrLocation loc;
    std::uint64_t offset, g;
    if (pow2_) {
        offset = addr & (granule_ - 1);
        g = addr >> granuleShift_;
    } else {
        offset = addr % granule_;
        g = addr / granule_;
    }
    std::uint64_t column = 0;
    for (const Field& f : fields_) {
        std::uint64_t v;
        if (pow2_) {
            v = (g >> f.shift) & f.mask;
        } else {
            v = g % f.count;
            g /= f.count;
        }
        switch (f.field) {
        case DdrField::Channel: loc.channel = static_cast<unsigned>(v); break;
        case DdrField::Rank: loc.rank = static_cast<unsigned>(v); break;
        case DdrField::Bank: loc.bank = static_cast<unsigned>(v); break;
        case DdrField::Row: loc.row = v; break;
        case DdrField::Column: column = v; break;
        }
    }
    loc.rowOffset = column * granule_ + offset;
    if (bankHashBits_ != 0)
        loc.bank ^= static_cast<unsigned>(foldRow(loc.row));
    return loc;
}

// The row's bits XORed together `bankHashBits_` at a time.
std::uint64_t DdrAddressMap::foldRow(std::uint64_t row) const {
    const std::uint64_t mask = (std::uint64_t{1} << bankHashBits_) - 1;
    std::uint64_t fold = 0;
    for (; row != 0; row >>= bankHashBits_)
        fold ^= row & mask;
    return fold;
}

std::uint64_t DdrAddressMap::encode(const DdrLocation& loc) const {
    if (bitMapped_)
        return encodeBits(loc);
    std::uint64_t g = 0;
    for (std::size_t i = fields_.size(); i-- > 0;) {
        const Field& f = fields_[i];
        std::uint64_t v = 0;
        switch (f.field) {
        case DdrField::Channel: v = loc.channel; break;
        case DdrField::Rank: v = loc.rank; break;
        case DdrField::Bank: v = bankHashBits_ != 0 ? loc.bank ^ foldRow(loc.row) : loc.bank; break;
        case DdrField::Row: v = loc.row; break;
        case DdrField::Column: v = loc.rowOffset / granule_; break;
        }
        g = g * f.count + v % f.count;
    }
    return g * granule_ + loc.rowOffset % granule_;
}

}  // namespace tessim
