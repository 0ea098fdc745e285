#include "workloads/WorkloadFactory.h"

#include <algorithm>

#include "sim/config/Reader.h"
#include "workloads/KernelRegistry.h"

namespace tessim {

std::vector<std::string> kernelNames() {
    std::vector<std::string> names;
    for (const auto& k : kernelRegistry())
        if (std::find(names.begin(), names.end(), k.name) == names.end())
            names.push_back(k.name);
    return names;
}

std::unique_ptr<Workload> makeWorkload(const config::Node& workload, const config::Node& plan,
                                       const TargetInfo& target) {
    config::Reader w(workload);
    const std::string kernel = w.oneOf("kernel", kernelNames());
    return selectKernel(workload, plan, &target)->make(kernel, workload, plan, target);
}

}  // namespace tessim
