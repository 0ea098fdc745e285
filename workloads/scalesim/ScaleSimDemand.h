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
#include <vector>

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
std::int64_t scaleSimAddress(const ScaleSimLayer& l, ScaleSimOperand operand, std::uint64_t pixel,
                             std::uint64_t element, std::uint64_t filter);

// Distinct addresses `scaleSimAddress` can return for `operand` (all are below this).
std::uint64_t scaleSimAddressSpace(const ScaleSimLayer& layer, ScaleSimOperand operand);

// An address as the sum of a fold row's part and an edge column's part: every index (pixel,
// window element, filter) adds an ifmap row y, column x and address offset. Valid when y < H and
// x < W (always for filters and outputs).
struct ScaleSimAddressPart {
    std::uint64_t y = 0, x = 0, address = 0;
};
ScaleSimAddressPart scaleSimAddressPart(const ScaleSimLayer& l, ScaleSimOperand operand,
                                        ScaleSimFoldOperand::Index index, std::uint64_t value);

// Calls `visit(cycle, address)` for every access of `operand` in fold (colFold, rowFold) that
// starts at `foldStart`, in cycle order and, within a cycle, in edge-column order. Outputs are
// visited with address 0 (only their count and cycles matter to a write buffer).
template <typename Visit>
void forEachScaleSimFoldAccess(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows, unsigned cols,
                               const std::string& dataflow, ScaleSimOperand operand, std::uint64_t colFold,
                               std::uint64_t rowFold, std::uint64_t foldStart, Visit&& visit) {
    const bool addressed = operand != ScaleSimOperand::Ofmap;
    const ScaleSimFoldOperand f = scaleSimFoldOperand(m, rows, cols, dataflow, operand, colFold, rowFold);
    if (f.rows == 0 || f.used == 0)
        return;
    std::vector<ScaleSimAddressPart> rowPart, colPart;
    if (addressed) {
        rowPart.resize(f.rows);
        for (std::uint64_t r = 0; r < f.rows; ++r)
            rowPart[r] =
                scaleSimAddressPart(l, operand, f.rowIs, f.rowBase + (f.reversed ? f.rows - 1 - r : r));
        colPart.resize(f.used);
        for (std::uint64_t j = 0; j < f.used; ++j)
            colPart[j] = scaleSimAddressPart(l, operand, f.colIs, f.colBase + j);
    }
    auto word = [&](std::uint64_t cycle, std::uint64_t r, std::uint64_t j) {
        if (!addressed) {
            visit(cycle, std::uint64_t{0});
            return;
        }
        const ScaleSimAddressPart& a = rowPart[r];
        const ScaleSimAddressPart& b = colPart[j];
        if (a.y + b.y < l.ifmapH && a.x + b.x < l.ifmapW)
            visit(cycle, a.address + b.address);
    };
    if (!f.skewed) {
        for (std::uint64_t r = 0; r < f.rows; ++r)
            for (std::uint64_t j = 0; j < f.used; ++j)
                word(foldStart + f.prefix + r, r, j);
        return;
    }
    // Skewed: cycle prefix + d holds row d − j at column j.
    for (std::uint64_t d = 0; d + 1 < f.rows + f.used; ++d) {
        const std::uint64_t j0 = d >= f.rows ? d - f.rows + 1 : 0;
        const std::uint64_t j1 = std::min(f.used - 1, d);
        for (std::uint64_t j = j0; j <= j1; ++j)
            word(foldStart + f.prefix + d, d - j, j);
    }
}

// forEachScaleSimFoldAccess over the layer's folds, back to back (cycle 0: the first fold's first cycle).
template <typename Visit>
void forEachScaleSimAccess(const ScaleSimLayer& l, const ScaleSimMapping& m, unsigned rows, unsigned cols,
                           const std::string& dataflow, ScaleSimOperand operand, Visit&& visit) {
    std::uint64_t foldStart = 0;
    for (std::uint64_t fc = 0; fc < m.colFolds; ++fc)
        for (std::uint64_t fr = 0; fr < m.rowFolds; ++fr, foldStart += m.cyclesPerFold)
            forEachScaleSimFoldAccess(l, m, rows, cols, dataflow, operand, fc, fr, foldStart, visit);
}

}  // namespace tessim
