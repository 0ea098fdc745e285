// Element-wise layers of a network on a vector DSP (a `conv2d` layer list's rows with `op: Relu`,
// `Clip`, `HardSigmoid`, `HardSwish`, `Add`, `Sub` or `Mul`, as an ONNX model's nodes become them):
// the flat tensor split over the cores in contiguous slices, each core streaming its slice through
// its own AM in double-buffered blocks — DMA in, a modulo-scheduled loop of vector loads, the
// layer's ops (its recipe) and vector stores, DMA out. The second operand of Add, Sub and Mul is a
// tensor of the same shape, one value per channel (the tensor is channel-minor; the C values sit
// in the AM repeated over C + lanes elements, so that any vector's values lie contiguous) or a
// constant; constants (Relu's zero, Clip's bounds, the hard activations' α, β, 0, 1) are broadcast
// into registers before the loop. Pools run as DspPoolLayer.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// Why the vector DSP, or the vector processor beside an NPU's array, does not run the layer row
// `layer` (its `op` and keys) on `target`; empty when it does. The plan does not change it.
std::string dspVectorLayerGap(const config::Node& layer, const config::Node& plan, const TargetInfo& target);

// The layer `layer` (the network's top-level keys and the row's own) under `plan` (cores or
// engines, ddr_offset; the convolutions' keys are left to them).
std::unique_ptr<Workload> makeDspVectorLayer(const config::Node& layer, const config::Node& plan,
                                             const TargetInfo& target);

}  // namespace tessim
