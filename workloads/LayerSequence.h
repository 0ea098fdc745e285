// A network (a workload's `layers` list) on a kernel row that runs one layer at a time (the vector
// DSP's convolutions): each layer built by the row's factory from the workload's top-level keys
// and its own, its tensors placed in DDR after the layers before it (plan.ddr_offset), on every
// core unless the plan says otherwise; a layer whose filters' weights do not fit the cores'
// memories runs as blocks of filters (each a convolution of the same input, its input read
// again). The engines meet at a barrier after each block; the layer's mark follows, so the report
// has per-layer results. Layers read their own inputs, as the npu's layer lists do. A single
// layer whose filters do not fit runs so too, as a network of one layer.
#pragma once

#include <memory>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"
#include "workloads/KernelRegistry.h"

namespace tessim {

std::unique_ptr<Workload> makeLayerSequence(const KernelEntry& row, const config::Node& workload,
                                            const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
