// Power-of-two arithmetic for address fields (DDR geometry, bit-list maps).
#pragma once

#include <cstdint>

namespace tessim {

inline bool isPow2(std::uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

// The smallest s with 2^s ≥ v (log2 of a power of two).
inline unsigned log2Of(std::uint64_t v) {
    unsigned s = 0;
    while ((std::uint64_t{1} << s) < v)
        ++s;
    return s;
}

}  // namespace tessim
