// The im2col baseline of 2-D convolution on a vector DSP (kernel conv2d, plan strategy im2col):
// the expanded matrix gathered by DMA into the array memory, then a GEMM on the vector unit.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeIm2colConvKernel(const std::string& kernel, const config::Node& workload,
                                               const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
