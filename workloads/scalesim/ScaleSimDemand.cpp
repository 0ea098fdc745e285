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

std::int64_t scaleSimAddress(const ScaleSimLayer& l, ScaleSimOperand operand, std::uint64_t pixel,
                             std::uint64_t element, std::uint64_t filter) {
    using Index = ScaleSimFoldOperand::Index;
    ScaleSimAddressPart a = scaleSimAddressPart(l, operand, Index::Pixel, pixel);
    ScaleSimAddressPart b = scaleSimAddressPart(l, operand, Index::Window, element);
    ScaleSimAddressPart c = scaleSimAddressPart(l, operand, Index::Filter, filter);
    if (operand == ScaleSimOperand::Ifmap && (a.y + b.y >= l.ifmapH || a.x + b.x >= l.ifmapW))
        return -1;
    return static_cast<std::int64_t>(a.address + b.address + c.address);
}

ScaleSimAddressPart scaleSimAddressPart(const ScaleSimLayer& l, ScaleSimOperand operand,
                                        ScaleSimFoldOperand::Index index, std::uint64_t value) {
    using Index = ScaleSimFoldOperand::Index;
    ScaleSimAddressPart p;
    if (operand == ScaleSimOperand::Filter) {
        p.address = index == Index::Filter ? value * l.window() : index == Index::Window ? value : 0;
    } else if (operand == ScaleSimOperand::Ofmap) {
        p.address = index == Index::Pixel ? value * l.filters : index == Index::Filter ? value : 0;
    } else if (index == Index::Pixel) {  // the window's top-left corner
        p.y = (value / l.ofmapW()) * l.strideH;
        p.x = (value % l.ofmapW()) * l.strideW;
        p.address = (p.y * l.ifmapW + p.x) * l.channels;
    } else if (index == Index::Window) {  // row r, column s, channel c of the window
        p.y = value / (l.channels * l.filterW);
        p.x = (value / l.channels) % l.filterW;
        p.address = (p.y * l.ifmapW + p.x) * l.channels + value % l.channels;
    }
    return p;
}

std::uint64_t scaleSimAddressSpace(const ScaleSimLayer& l, ScaleSimOperand operand) {
    if (operand == ScaleSimOperand::Ifmap)
        return l.ifmapH * l.ifmapW * l.channels;
    if (operand == ScaleSimOperand::Filter)
        return l.window() * l.filters;
    return l.pixels() * l.filters;
}

}  // namespace tessim
