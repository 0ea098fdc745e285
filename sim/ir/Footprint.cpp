#include "sim/ir/Footprint.h"

#include <algorithm>

#include "sim/ir/OpTable.h"

namespace tessim {
namespace {

void push(std::vector<FootprintRange>& out, const FootprintRange& r) {
    if (r.bytes > 0 && r.rows > 0 && r.planes > 0)
        out.push_back(r);
}

FootprintRange contiguous(std::uint8_t space, std::uint64_t begin, std::uint64_t bytes, bool write) {
    FootprintRange r;
    r.space = space;
    r.begin = begin;
    r.bytes = bytes;
    r.write = write;
    return r;
}

void vectorAccess(const Op& op, bool write, std::vector<FootprintRange>& out) {
    const std::uint64_t elem = dtypeBytes(op.dtype);
    const std::uint64_t elements = memoryElements(op);
    // As the engine issues it: a stride equal to the element size is unit stride.
    if (op.stride == 0 || op.stride == static_cast<std::int64_t>(elem) || elements <= 1) {
        push(out, contiguous(op.space, op.addr, elem * elements, write));
        return;
    }
    FootprintRange r = contiguous(op.space, op.addr, elem, write);
    r.rows = static_cast<std::uint32_t>(elements);
    r.rowStride = op.stride;
    push(out, r);
}

void dmaAccess(const DmaArgs& d, std::vector<FootprintRange>& out) {
    FootprintRange src = contiguous(d.srcSpace, d.src, d.rowBytes, false);
    src.rows = std::max<std::uint32_t>(d.rows, 1);
    src.rowStride = d.srcRowStride;
    src.planes = std::max<std::uint32_t>(d.planes, 1);
    src.planeStride = d.srcPlaneStride;
    push(out, src);
    for (unsigned i = 0; i <= d.multicastCount; ++i) {
        FootprintRange dst = src;
        dst.write = true;
        dst.space = d.multicastStride ? d.dstSpace : static_cast<std::uint8_t>(d.dstSpace + i);
        dst.begin = d.dst + (d.multicastStride ? i * d.multicastStride : 0);
        dst.rowStride = d.dstRowStride;
        dst.planeStride = d.dstPlaneStride;
        push(out, dst);
    }
}

void macTileAccess(const MacTileArgs& m, std::vector<FootprintRange>& out) {
    const std::uint64_t outputs = std::uint64_t{m.filters} * m.outH * m.outW;
    // A tile without MACs (a fence) touches nothing, as the array executes it.
    if (outputs * m.channels * m.kh * m.kw == 0)
        return;
    push(out, contiguous(m.space, m.in, std::uint64_t{m.channels} * m.inH * m.inW, false));
    push(out, contiguous(m.space, m.weights, std::uint64_t{m.filters} * m.channels * m.kh * m.kw, false));
    // Partial sums in the array's accumulators touch `out` only when drained.
    if (m.accumulate && !m.inArray)
        push(out, contiguous(m.space, m.out, outputs * 4, false));
    if (m.inArray != 1)
        push(out, contiguous(m.space, m.out, outputs * 4, true));
    if (m.requantize)
        push(out, contiguous(m.space, m.out8, outputs, true));
}

}  // namespace

std::uint64_t FootprintRange::lowest() const {
    std::uint64_t lo = begin;
    forEachRun([&](std::uint64_t b, std::uint64_t) { lo = std::min(lo, b); });
    return lo;
}

std::uint64_t FootprintRange::highest() const {
    std::uint64_t hi = begin + bytes;
    forEachRun([&](std::uint64_t, std::uint64_t e) { hi = std::max(hi, e); });
    return hi;
}

std::vector<FootprintRange> footprint(const Op& op) {
    std::vector<FootprintRange> out;
    switch (opInfo(op.kind).footprint) {
    case FootprintRule::ElementsRead: vectorAccess(op, false, out); break;
    case FootprintRule::ElementsWritten: vectorAccess(op, true, out); break;
    case FootprintRule::Transfer: dmaAccess(op.dma, out); break;
    case FootprintRule::MacTile: macTileAccess(op.mac, out); break;
    case FootprintRule::None: break;
    }
    return out;
}

}  // namespace tessim
