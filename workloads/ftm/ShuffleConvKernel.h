// 2-D convolution on a VLIW vector DSP by lane shuffles (kernel conv2d, plan strategy shuffle):
// the kernel sits in the scalar memory (SM) and reaches the FMACs as a scalar operand broadcast to
// every lane; input rows sit in the array memory (AM). For each input row and group of output
// chunks (one vector of lanes each) the row is loaded once, shifted by the shuffle unit (lanes
// moved by q with the next vector shifted in) for every kernel column, and multiplied by every
// kernel element into the accumulators of the output rows it contributes to. The loop is
// software-pipelined by a modulo scheduler into bundles. Inputs that do not fit the AM with
// their outputs stream in double-buffered blocks of rows (consecutive blocks overlap by K − S
// rows); several cores each own different filters and share the input, multicast into every
// core's AM by one DDR read.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeShuffleConvKernel(const std::string& kernel, const config::Node& workload,
                                                const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
