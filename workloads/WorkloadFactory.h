// A workload's schedule generator: the kernel registry's row (KernelRegistry.h) for the workload
// YAML's `kernel` (and its keys) and the plan's `strategy`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// `workload` and `plan` are YAML trees (plan may be a Null node: defaults apply).
std::unique_ptr<Workload> makeWorkload(const config::Node& workload, const config::Node& plan,
                                       const TargetInfo& target);
// The registry's kernel names, in registry order, each once.
std::vector<std::string> kernelNames();

}  // namespace tessim
