// Streaming vector kernels on one engine: axpy (y ← α·x + y) and dot (Σ x·y), vectorised to the
// engine's register size and unrolled so several loads are in flight, as a compiler would
// software-pipeline them for an in-order core.
#pragma once

#include <memory>
#include <string>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

std::unique_ptr<Workload> makeStreamingVectorKernel(const std::string& kernel, const config::Node& workload,
                                                    const config::Node& plan, const TargetInfo& target);

}  // namespace tessim
