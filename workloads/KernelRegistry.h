// The closed set of kernels: one row per kernel in KernelRegistry.cpp, naming its factory and
// the folder of its plans (configs/plans/<planDirectory>/). A new kernel is a folder under
// workloads/ plus one row; a table, not self-registration, so the linker cannot drop a kernel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/config/Node.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"

namespace tessim {

// Builds the kernel's schedule generator from the workload and plan trees (plan may be a Null
// node: defaults apply). `kernel` is the registry name, so one factory may serve several rows.
using KernelFactory = std::unique_ptr<Workload> (*)(const std::string& kernel, const config::Node& workload,
                                                    const config::Node& plan, const TargetInfo& target);

struct KernelEntry {
    std::string name;         // the workload YAML's `kernel`
    std::string description;  // one line, for `tessim list kernels`
    KernelFactory make;
    std::string planDirectory;  // configs/plans/<planDirectory>/ holds its plans; empty: takes none
};

const std::vector<KernelEntry>& kernelRegistry();
// nullptr when no kernel has that name.
const KernelEntry* findKernel(const std::string& name);

}  // namespace tessim
