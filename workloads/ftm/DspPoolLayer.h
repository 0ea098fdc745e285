// Pooling layers of a network on a vector DSP (`op: MaxPool`, `AveragePool`, `GlobalAveragePool`,
// `GlobalMaxPool` rows of a `conv2d` layer list): the tensor channel-minor (NHWC, as the K1's
// pools read it), the channels split over the cores, each core streaming blocks of output rows
// (their input rows, halo included, DMA'd into its AM as runs of its channels, double-buffered).
// Per output pixel and strip of channels the window's taps are loaded and combined in order —
// max, or a sum times the reciprocal of the taps that lie over the input — in a modulo-scheduled
// loop; windows of more taps than one pass holds run in passes that store and reload the partial
// result. Padding taps combine with a broadcast neutral (−∞, or 0) instead of a load.
#pragma once

#include <memory>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// A pool layer row (the network's top-level keys and its own) under `plan` (cores or engines,
// ddr_offset).
std::unique_ptr<Workload> makeDspPoolLayer(const config::Node& layer, const config::Node& plan,
                                           const TargetInfo& target);

}  // namespace tessim
