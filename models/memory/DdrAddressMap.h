// Physical address → (channel, rank, bank, row, column) for a DDR configuration. The address is
// cut into granules of `interleave` bytes; granule numbers are split into the mapping's fields,
// least significant field first, as a mixed-radix number (shifts and masks when every count is
// a power of two). The byte offset inside a row is column × interleave + offset in the granule.
#pragma once

#include <array>
#include <cstdint>

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
};

}  // namespace tessim
