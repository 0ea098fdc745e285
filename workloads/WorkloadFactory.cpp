#include "workloads/WorkloadFactory.h"

#include "sim/config/Reader.h"
#include "workloads/conv/ConvKernel.h"
#include "workloads/scalesim/ScaleSimKernel.h"
#include "workloads/vector/StreamingVectorKernel.h"

namespace tessim {

const std::vector<std::string>& kernelNames() {
    static const std::vector<std::string> names{"axpy", "dot", "conv2d", "scalesim"};
    return names;
}

std::unique_ptr<Workload> makeWorkload(const config::Node& workload, const config::Node& plan,
                                       const TargetInfo& target) {
    config::Reader w(workload);
    std::string kernel = w.oneOf("kernel", kernelNames());
    if (kernel == "axpy" || kernel == "dot")
        return makeStreamingVectorKernel(kernel, workload, plan, target);
    if (kernel == "conv2d")
        return makeConvKernel(workload, plan, target);
    if (kernel == "scalesim")
        return makeScaleSimKernel(workload, plan, target);
    w.fail("kernel", "unknown kernel '" + kernel + "'");
}

}  // namespace tessim
