#include "workloads/scalesim/ScaleSimDemand.h"

namespace tessim {

ScaleSimFoldOperand scaleSimFoldOperand(const ScaleSimMapping& m, unsigned rows, unsigned cols,
                                        const std::string& dataflow, ScaleSimOperand operand,
                                        std::uint64_t colFold, std::uint64_t rowFold) {
    using Index = ScaleSimFoldOperand::Index;
    const std::uint64_t r0 = rowFold * rows, c0 = colFold * cols;
    const std::uint64_t ru = std::min<std::uint64_t>(rows, m.sr - r0);  // array rows used
    const std::uint64_t cu = std::min<std::uint64_t>(cols, m.sc - c0);  // array columns used
    const std::uint64_t t = m.t;
    ScaleSimFoldOperand f;
    // Outputs: os drains the fold's pixels (bottom row first) after T − 1 cycles; ws and is stream
    // T rows of outputs once weights (inputs) are loaded and the first sums crossed the array.
    if (operand == ScaleSimOperand::Ofmap) {
        f.skewed = true;
        f.used = cu;
        if (dataflow == "os") {
            f.prefix = t - 1 + (rows - ru);
            f.rows = ru;
            f.rowIs = Index::Pixel, f.rowBase = r0, f.reversed = true;
            f.colIs = Index::Filter, f.colBase = c0;
        } else {
            f.prefix = 2ull * rows - 1;
            f.rows = t;
            f.rowIs = dataflow == "ws" ? Index::Pixel : Index::Filter;
            f.colIs = dataflow == "ws" ? Index::Filter : Index::Pixel, f.colBase = c0;
        }
        return f;
    }
    const bool ifmap = operand == ScaleSimOperand::Ifmap;
    if (dataflow == "os") {  // both operands stream T window elements, skewed
        f.skewed = true;
        f.rows = t;
        f.rowIs = Index::Window;
        f.used = ifmap ? ru : cu;
        f.colIs = ifmap ? Index::Pixel : Index::Filter;
        f.colBase = ifmap ? r0 : c0;
        return f;
    }
    // ws: the filter is stationary (loaded first), the ifmap streams; is: the other way round.
    const bool stationary = (dataflow == "ws") != ifmap;
    if (stationary) {
        f.prefix = rows - ru;
        f.rows = ru;
        f.rowIs = Index::Window, f.rowBase = r0, f.reversed = true;
        f.used = cu;
        f.colIs = dataflow == "ws" ? Index::Filter : Index::Pixel, f.colBase = c0;
    } else {
        f.skewed = true;
        f.prefix = rows;
        f.rows = t;
        f.rowIs = dataflow == "ws" ? Index::Pixel : Index::Filter;
        f.used = ru;
        f.colIs = Index::Window, f.colBase = r0;
    }
    return f;
}

std::uint64_t scaleSimAddressSpace(const ScaleSimLayer& l, ScaleSimOperand operand) {
    if (operand == ScaleSimOperand::Ifmap)
        return l.ifmapH * l.ifmapW * l.channels;
    if (operand == ScaleSimOperand::Filter)
        return l.window() * l.filters;
    return l.pixels() * l.filters;
}

}  // namespace tessim
