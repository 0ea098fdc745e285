// DMA ops as kernels write them: a strided copy between two memory spaces, and the wait for
// every copy started with a tag. The IR's own builders (sim/ir/Op.h) take a raw DmaArgs; these
// name each side of the copy so a call site reads as "from here to there".
#pragma once

#include <cstdint>

#include "sim/ir/Op.h"

namespace tessim {

// One side of a copy: a space, the offset of the first byte, and the strides (bytes) between
// consecutive rows and planes on this side.
struct DmaSide {
    std::uint8_t space = 0;
    std::uint64_t addr = 0;
    std::int64_t rowStride = 0;
    std::int64_t planeStride = 0;
};

// What a copy moves: `planes` × `rows` runs of `rowBytes` contiguous bytes.
struct DmaBlock {
    std::uint32_t rowBytes = 0;
    std::uint32_t rows = 1;
    std::uint32_t planes = 1;
};

inline Op dmaCopy(std::uint32_t tag, unsigned channel, const DmaBlock& block, const DmaSide& from,
                  const DmaSide& to) {
    DmaArgs d{};
    d.srcSpace = from.space;
    d.dstSpace = to.space;
    d.channel = static_cast<std::uint8_t>(channel);
    d.rowBytes = block.rowBytes;
    d.rows = block.rows;
    d.planes = block.planes;
    d.src = from.addr;
    d.dst = to.addr;
    d.srcRowStride = from.rowStride;
    d.srcPlaneStride = from.planeStride;
    d.dstRowStride = to.rowStride;
    d.dstPlaneStride = to.planeStride;
    return dmaStartOp(tag, d);
}

inline Op dmaWait(std::uint32_t tag) {
    return dmaWaitOp(tag);
}

}  // namespace tessim
