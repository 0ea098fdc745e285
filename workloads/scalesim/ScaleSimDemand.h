// The array's operand demand of one SCALE-Sim layer, cycle by cycle, on an ideal interface.
//
// Folds run back to back (column folds outer, row folds inner), each `cyclesPerFold` long. Within
// a fold every operand is a matrix whose rows reach the array's edge one per cycle: row r, edge
// column j is requested at fold cycle prefix + r (+ j where the edge is skewed: the systolic
// pipeline fills one column later per column). Which rows and columns hold which words follows
// SCALE-Sim v2's demand matrices for the dataflow:
//   os: ifmap rows = window elements (skewed, columns = pixels), filter rows = window elements
//       (skewed, columns = filters), outputs after T − 1 cycles, pixels in reverse row order;
//   ws: weights first (unskewed, reverse row order), then ifmap rows = pixels after `rows`
//       cycles (skewed), outputs after 2·rows − 1 cycles (skewed);
//   is: inputs first (unskewed, reverse row order), then filter rows = filters after `rows`
//       cycles (skewed), outputs after 2·rows − 1 cycles (skewed).
// An ifmap word of a window that reaches past the ifmap's edge (SCALE-Sim's ceil output size)
// is no access (address −1 in SCALE-Sim's matrices).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "workloads/scalesim/ScaleSimTopology.h"

namespace tessim {

enum class ScaleSimOperand { Ifmap, Filter, Ofmap };

// One operand's matrix within one fold.
struct ScaleSimFoldOperand {
    enum class Index { Pixel, Window, Filter };
    std::uint64_t prefix = 0;  // cycles before its first row
    std::uint64_t rows = 0;    // rows holding words
    std::uint64_t used = 0;    // edge columns holding words
    bool skewed = false;       // column j one cycle later per column
    Index rowIs = Index::Pixel, colIs = Index::Pixel;
    std::uint64_t rowBase = 0, colBase = 0;
    bool reversed = false;  // row r holds index rowBase + rows − 1 − r
};

ScaleSimFoldOperand scaleSimFoldOperand(const ScaleSimMapping& mapping, unsigned rows, unsigned cols,
                                        const std::string& dataflow, ScaleSimOperand operand,
                                        std::uint64_t colFold, std::uint64_t rowFold);

// Address of the word at (pixel, window element, filter); −1 for an ifmap word past the edge.
// Ifmap (y, x, channel) → (y·W + x)·C + channel; filter → filter·window + element; ofmap →
// pixel·filters + filter.
inline std::int64_t scaleSimAddress(const ScaleSimLayer& l, ScaleSimOperand operand, std::uint64_t pixel,
                                    std::uint64_t element, std::uint64_t filter) {
    if (operand == ScaleSimOperand::Filter)
        return static_cast<std::int64_t>(filter * l.window() + element);
    if (operand == ScaleSimOperand::Ofmap)
        return static_cast<std::int64_t>(pixel * l.filters + filter);
    const std::uint64_t ow = l.ofmapW(), c = l.channels;
    const std::uint64_t y = (pixel / ow) * l.strideH + element / (c * l.filterW);
    const std::uint64_t x = (pixel % ow) * l.strideW + (element / c) % l.filterW;
    if (y >= l.ifmapH || x >= l.ifmapW)
        return -1;
    return static_cast<std::int64_t>((y * l.ifmapW + x) * c + element % c);
}

// Distinct addresses `scaleSimAddress` can return for `operand` (all are below this).
std::uint64_t scaleSimAddressSpace(const ScaleSimLayer& layer, ScaleSimOperand operand);

// Calls `visit(cycle, address)` for every access of `operand` in the layer, in cycle order and,
// within a cycle, in edge-column order. Cycle 0 is the first cycle of the layer's first fold.
template <typename Visit>
void forEachScaleSimAccess(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows, unsigned cols,
                           const std::string& dataflow, ScaleSimOperand operand, Visit&& visit) {
    using Index = ScaleSimFoldOperand::Index;
    std::uint64_t foldStart = 0;
    for (std::uint64_t fc = 0; fc < m.colFolds; ++fc)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr, foldStart += m.cyclesPerFold) {
            const ScaleSimFoldOperand f = scaleSimFoldOperand(m, rows, cols, dataflow, operand, fc, fr);
            auto word = [&](std::uint64_t r, std::uint64_t j) {
                std::uint64_t idx[3] = {0, 0, 0};  // pixel, window element, filter
                idx[static_cast<int>(f.rowIs)] = f.rowBase + (f.reversed ? f.rows - 1 - r : r);
                idx[static_cast<int>(f.colIs)] = f.colBase + j;
                return scaleSimAddress(l, operand, idx[static_cast<int>(Index::Pixel)],
                                       idx[static_cast<int>(Index::Window)],
                                       idx[static_cast<int>(Index::Filter)]);
            };
            if (f.rows == 0 || f.used == 0)
                continue;
            if (!f.skewed) {
                for (std::uint64_t r = 0; r < f.rows; ++r)
                    for (std::uint64_t j = 0; j < f.used; ++j)
                        if (std::int64_t a = word(r, j); a >= 0)
                            visit(foldStart + f.prefix + r, static_cast<std::uint64_t>(a));
                continue;
            }
            // Skewed: cycle prefix + d holds row d − j at column j.
            for (std::uint64_t d = 0; d + 1 < f.rows + f.used; ++d) {
                const std::uint64_t j0 = d >= f.rows ? d - f.rows + 1 : 0;
                const std::uint64_t j1 = std::min(f.used - 1, d);
                for (std::uint64_t j = j0; j <= j1; ++j)
                    if (std::int64_t a = word(d - j, j); a >= 0)
                        visit(foldStart + f.prefix + d, static_cast<std::uint64_t>(a));
            }
        }
}

}  // namespace tessim
