// Convolution on RISC-V vector cores (the K1): im2col, then the RVV GEMM of the fc kernel, as a
// framework without a direct convolution lowers it. Each thread takes a contiguous slice of the
// output pixels: it copies their input patches into its rows of a shared column buffer (vector
// loads and stores: real traffic through the caches), then multiplies them by the weights. A
// grouped layer (depthwise included) does this per group. Layers run one after the other, the
// threads meeting at a barrier after each; a layer list reports per layer.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeRvvConvKernel(const std::string& kernel, const config::Node& workload,
                                            const config::Node& plan, const TargetInfo& target);

// Why the RVV layers do not run the element-wise or pooling layer row `layer` under `plan`: in
// INT8 (plan.dtype i8) an op whose result depends on the tensors' quantisation scales, which the
// layer rows do not carry; empty when they run it.
std::string rvvVectorLayerGap(const config::Node& layer, const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
