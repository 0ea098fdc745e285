// Work split across cores: `total` items cut into `parts` contiguous slices of whole granules
// (vectors, rows), as even as whole granules allow: slice i holds granules
// [⌊G·i/parts⌋, ⌊G·(i+1)/parts⌋) of the G = ⌈total/granule⌉, and only the last granule may be short.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessim {

struct Slice {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
};

// The most items any slice holds (contiguousSlices gives the remainder to the last slices).
inline std::uint64_t largestSlice(const std::vector<Slice>& slices) {
    std::uint64_t most = 0;
    for (const Slice& s : slices)
        most = std::max(most, s.count);
    return most;
}

inline std::vector<Slice> contiguousSlices(std::uint64_t total, std::uint64_t parts, std::uint64_t granule) {
    const std::uint64_t granules = (total + granule - 1) / granule;
    std::vector<Slice> slices;
    for (std::uint64_t i = 0; i < parts; ++i) {
        const std::uint64_t first = std::min(total, granules * i / parts * granule);
        const std::uint64_t end = std::min(total, granules * (i + 1) / parts * granule);
        slices.push_back(Slice{first, end - first});
    }
    return slices;
}

}  // namespace tessim
