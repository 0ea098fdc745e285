// Physical address → (channel, rank, bank, row, column) for a DDR configuration. The address is
// cut into granules of `interleave` bytes; granule numbers are split into the mapping's fields,
// least significant field first, as a mixed-radix number (shifts and masks when every count is
// a power of two). The byte offset inside a row is column × interleave + offset in the granule.
// With a bit-list mapping each field gathers its listed address bits instead (column counted in
// bursts), and the bank may be XORed with other address bits (permutation interleaving: rows that
// would conflict in one bank spread over several).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/memory/DdrConfig.h"

namespace tessim {

struct DdrLocation {
    unsigned channel = 0;
    unsigned rank = 0;
    unsigned bank = 0;
    std::uint64_t row = 0;
    std::uint64_t rowOffset = 0;  // byte offset inside the row
};

class DdrAddressMap {
public:
    explicit DdrAddressMap(const DdrConfig& config);

    DdrLocation decode(std::uint64_t addr) const;
    // The address of a byte at a location (probes and tests build their patterns with it).
    std::uint64_t encode(const DdrLocation& loc) const;
    std::uint64_t granule() const { return granule_; }

private:
    // A run of `width` address bits from `from` that lands at bit `to` of a field value.
    struct BitRun {
        unsigned from, to, width;
    };
    using Runs = std::vector<BitRun>;
    static Runs runsOf(const std::vector<unsigned>& bits);
    static std::uint64_t gather(std::uint64_t addr, const Runs& runs);
    static std::uint64_t scatter(std::uint64_t value, const Runs& runs);
    DdrLocation decodeBits(std::uint64_t addr) const;
    std::uint64_t encodeBits(const DdrLocation& loc) const;

    struct Field {
        DdrField field;
        std::uint64_t count;
        unsigned shift;  // when every count is a power of two
        std::uint64_t mask;
    };
    std::uint64_t granule_;
    unsigned granuleShift_ = 0;
    bool pow2_ = true;
    std::array<Field, 5> fields_{};  // least significant first
    bool bitMapped_ = false;
    Runs channel_, rank_, bank_, row_, column_;
    std::vector<Runs> bankXor_;  // groups of as many bits as the bank has, each XORed into it
    // The same runs in one list, each naming its field (decode reads them in one loop).
    enum BitField : unsigned { kChannel, kRank, kBank, kRow, kColumn, kBankXor, kBitFields };
    struct FieldRun {
        unsigned from, to, field;
        std::uint64_t mask;
    };
    std::vector<FieldRun> fieldRuns_;
    unsigned bankHashBits_ = 0;  // field-order map with `bank_hash: xor-row`: the bank's width
    std::uint64_t foldRow(std::uint64_t row) const;
};

}  // namespace tessim
