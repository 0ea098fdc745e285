// Tiled 2-D convolution on a MAC-array target (kernel: conv2d): INT8 input and weights, INT32
// accumulation; outputs (output_dtype) INT8, requantised by the array on a tile's last channel
// chunk (requant_multiplier, requant_shift; see MacTileArgs), or the INT32 accumulators (i32).
// Strategies: naive (one output row per step, input rows re-fetched from DDR for every
// output row that needs them), static-single (SRAM tiles, one buffer: DMA in, compute, DMA out
// in series), double-buffer (ping-pong: the DMA of step k+1 and the write-back of tile k−1
// overlap the compute of step k). Padding is materialised in SRAM by DMA from a zero line.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeConvKernel(const std::string& kernel, const config::Node& workload,
                                         const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
