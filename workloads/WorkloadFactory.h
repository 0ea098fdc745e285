// The closed set of kernels, picked by the workload YAML's `kernel` key.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/Node.h"
#include "sim/target/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// `workload` and `plan` are YAML trees (plan may be a Null node: defaults apply).
std::unique_ptr<Workload> makeWorkload(const config::Node& workload, const config::Node& plan,
                                       const TargetInfo& target);
const std::vector<std::string>& kernelNames();

}  // namespace tessim
