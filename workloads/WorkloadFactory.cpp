#include "workloads/WorkloadFactory.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config/ConfigError.h"
#include "sim/config/DerivedKeys.h"
#include "sim/config/Reader.h"
#include "workloads/KernelRegistry.h"
#include "workloads/LayerSequence.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {

std::vector<std::string> kernelNames() {
    std::vector<std::string> names;
    for (const auto& k : kernelRegistry())
        if (std::find(names.begin(), names.end(), k.name) == names.end())
            names.push_back(k.name);
    return names;
}

namespace {

std::unique_ptr<Workload> buildWorkload(const config::Node& workload, const config::Node& plan,
                                        const TargetInfo& target) {
    config::Reader w(workload);
    const std::string kernel = w.oneOf("kernel", kernelNames());
    const KernelEntry* row = selectKernel(workload, plan, &target);
    // An element-wise or pooling layer on a row that runs convolutions only: said at its `op`.
    bool vectorLayers = false;
    if (const config::Node* layers = workload.find("layers"); layers && layers->isSequence())
        for (const config::Node& l : layers->items())
            if (const config::Node* op = l.find("op");
                op && op->isScalar() && isVectorLayerOp(op->scalar())) {
                vectorLayers = true;
                if (!row->vectorLayerGap)
                    throw config::ConfigError(
                        op->location(), op->path(),
                        fmt::format("{} runs convolutions only, not a {} layer, on target '{}' (conv2d/rvv, "
                                    "on the K1, runs element-wise and pooling layers; an ONNX model lists "
                                    "them as not simulated elsewhere)",
                                    row->rowName(), op->scalar(), target.name));
                if (const std::string gap = row->vectorLayerGap(l, plan, target); !gap.empty())
                    throw config::ConfigError(
                        op->location(), op->path(),
                        fmt::format("{} on target '{}': {}", row->rowName(), target.name, gap));
            }
    // A network on a row that runs one layer at a time: its layers in sequence; a grouped layer
    // there: a convolution per group.
    const config::Node* groups = workload.find("groups");
    const bool grouped = groups && groups->isScalar() && groups->scalar() != "1";
    if ((workload.find("layers") || grouped) && !row->needs.layerLists)
        return makeLayerSequence(*row, workload, plan, target);
    // A row that takes layer lists of convolutions and builds its element-wise and pooling layers
    // apart (the npu's array and its vector processor): a list holding such layers in sequence.
    if (vectorLayers && row->needs.layerLists && row->makeVectorLayer)
        return makeLayerSequence(*row, workload, plan, target);
    try {
        return row->make(kernel, workload, plan, target);
    } catch (const config::ConfigError& e) {
        // A convolution whose filters do not fit the cores' memories: in blocks of filters, on
        // every core (LayerSequence), if the plan leaves that open.
        if (e.shortfall() != config::Shortfall::Capacity || kernel != "conv2d" || row->needs.layerLists)
            throw;
    }
    return makeLayerSequence(*row, workload, plan, target);
}

}  // namespace

std::unique_ptr<Workload> makeWorkload(const config::Node& workload, const config::Node& plan,
                                       const TargetInfo& target) {
    // A report's resolved workload and plan run again as they are: the keys the kernel derived
    // are accepted where the run derives the same values (sim/config/DerivedKeys.h).
    config::DerivedKeys derived;
    std::unique_ptr<Workload> built;
    try {
        built = buildWorkload(workload, plan, target);
    } catch (...) {
        derived.throwFirstNoted();
        throw;
    }
    derived.settle({built->resolvedWorkload(), built->resolvedPlan()});
    return built;
}

}  // namespace tessim
