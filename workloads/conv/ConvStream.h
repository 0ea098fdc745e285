// The op stream of conv2d layers on one engine: per layer the DMA of input and weight tiles
// (ping-pong buffers for double-buffer), the MAC tiles, the write-back and the waits; layers one
// after the other, each ending with its DMA drained (and, for a layer list, a mark).
#pragma once

#include <memory>
#include <vector>

#include "sim/ir/OpStream.h"
#include "workloads/conv/ConvLayer.h"

namespace tessim {

// `marks`: after each layer a Nop tagged its index + 1 (per-layer results of a layer list).
std::unique_ptr<OpStream> makeConvLayersStream(std::vector<ConvParams> layers, bool marks);

}  // namespace tessim
