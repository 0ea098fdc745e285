// The bytes an op reads and writes, per memory space as the op addresses it: the one place that
// knows the memory shape of every op kind (traces, hazard checks, bounds use it).
//
// Each range is a compact strided descriptor rather than one entry per element or row: `bytes`
// contiguous bytes from `begin`, repeated `rows` times `rowStride` apart, repeated `planes` times
// `planeStride` apart (strides may be negative, runs may overlap, as DMA halos do). A strided
// vector access is rows = vl runs of one element; a unit-stride one is a single run. A cache's
// space aliases the memory behind it: callers that need one canonical space per byte map cache
// spaces to the last level of their chain.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ir/Op.h"

namespace tessim {

struct FootprintRange {
    std::uint8_t space = 0;
    bool write = false;
    std::uint64_t begin = 0;  // first byte of the first run
    std::uint64_t bytes = 0;  // contiguous bytes per run
    std::uint32_t rows = 1;
    std::int64_t rowStride = 0;
    std::uint32_t planes = 1;
    std::int64_t planeStride = 0;

    // Byte offset of run (plane, row).
    std::uint64_t runBegin(std::uint32_t plane, std::uint32_t row) const {
        return begin + static_cast<std::uint64_t>(planeStride * plane + rowStride * row);
    }
    bool contiguous() const { return rows == 1 && planes == 1; }
    // Bytes touched counting overlaps once per run (what moves, not how many distinct bytes).
    std::uint64_t totalBytes() const { return bytes * rows * planes; }
    // [lowest byte, one past the highest byte) over every run.
    std::uint64_t lowest() const;
    std::uint64_t highest() const;
    // Calls f(begin, end) for each run in plane-major, row-minor order.
    template <class F> void forEachRun(F&& f) const {
        for (std::uint32_t p = 0; p < planes; ++p)
            for (std::uint32_t r = 0; r < rows; ++r) {
                std::uint64_t b = runBegin(p, r);
                f(b, b + bytes);
            }
    }
};

// Reads first, then writes, in the op's operand order (DMA: source, then each destination in
// multicast order; MAC tile: input, weights, partial sums read when accumulating, partial sums
// written, INT8 outputs). Ops without memory operands return an empty list; empty runs are left out.
std::vector<FootprintRange> footprint(const Op& op);

}  // namespace tessim
