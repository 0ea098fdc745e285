// The fully connected layer held as a tensor train (workload `fc` with a `tt:` shape): the chain of
// einsums over the TT cores as an RVV compiler emits it for an in-order core, with the plan's array
// packing, vectorised loop, register blocking, L2-aware tiling, loop order and threads.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeTensorTrainKernel(const std::string& kernel, const config::Node& workload,
                                                const config::Node& plan, const TargetInfo& target);

// The seed's register budget for a block of rm·rb·rr accumulators: rm·rb·rr + min(rb·rk, rm·rr) + 1
// (accumulators, the operands held for the block, one streamed operand).
unsigned ttBlockRegisters(unsigned rm, unsigned rb, unsigned rr, unsigned rk);

}  // namespace tessim
