#include "workloads/KernelRegistry.h"

#include <algorithm>
#include <stdexcept>

#include "sim/config/Reader.h"

#include "workloads/conv/ConvKernel.h"
#include "workloads/fc/FullyConnectedKernel.h"
#include "workloads/ftm/Im2colConvKernel.h"
#include "workloads/ftm/ShuffleConvKernel.h"
#include "workloads/memory/MemoryStreamKernel.h"
#include "workloads/memory/PointerChaseKernel.h"
#include "workloads/onnx/OnnxKernel.h"
#include "workloads/scalesim/ScaleSimKernel.h"
#include "workloads/tt/TensorTrainKernel.h"
#include "workloads/vector/StreamingVectorKernel.h"

namespace tessim {

namespace {

std::vector<KernelEntry>& rows() {
    static std::vector<KernelEntry> kernels{
        {"axpy",
         "",
         "y ← α·x + y, streamed through vector registers; plan.cores splits it",
         makeStreamingVectorKernel,
         "vector",
         {},
         {}},
        {"dot",
         "",
         "Σ x·y in unrolled accumulators; plan.cores splits it, partial sums meet after a barrier",
         makeStreamingVectorKernel,
         "vector",
         {},
         {}},
        {"conv2d",
         "tiled",
         "tiled INT8 convolution on a MAC array, DMA between DDR and SRAM: naive, static-single or "
         "double-buffer",
         makeConvKernel,
         "conv2d",
         {},
         {"double-buffer", "naive", "static-single"}},
        {"conv2d",
         "im2col",
         "im2col on a vector DSP: the DMA expands the map into AM, then a GEMM with broadcast kernel "
         "elements",
         makeIm2colConvKernel,
         "conv2d",
         {},
         {"im2col"}},
        {"conv2d",
         "shuffle",
         "lane shuffles on a vector DSP, software-pipelined by a modulo scheduler; plan.cores splits "
         "the filters",
         makeShuffleConvKernel,
         "conv2d",
         {},
         {"shuffle"}},
        {"memcpy",
         "",
         "RVV copy loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores, fork/join",
         makeMemoryStreamKernel,
         "memory",
         {},
         {}},
        {"memset",
         "",
         "RVV fill loop at LMUL 8 (bytes, repeat, value); plan.threads splits it over cores",
         makeMemoryStreamKernel,
         "memory",
         {},
         {}},
        {"memread",
         "",
         "RVV read loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores",
         makeMemoryStreamKernel,
         "memory",
         {},
         {}},
        {"pointer_chase",
         "",
         "dependent scalar loads over a random cycle of lines (bytes, stride, repeat), as lat_mem_rd",
         makePointerChaseKernel,
         "memory",
         {},
         {}},
        {"fc",
         "dense",
         "dense y = x·Wᵀ vectorised over `in`, rb × ro register blocks; plan.threads splits `out`",
         makeFullyConnectedKernel,
         "fc",
         {},
         {}},
        {"fc",
         "tt",
         "the layer as a tensor train (or ring): the einsum chain over its cores with packing, "
         "blocking, tiling, threads",
         makeTensorTrainKernel,
         "tt",
         {"tt", "tr"},
         {}},
        {"scalesim",
         "",
         "SCALE-Sim topology layers, fold by fold as SCALE-Sim schedules them",
         makeScaleSimKernel,
         "",
         {},
         {}},
        {"onnx",
         "",
         "an ONNX model's Conv, Gemm and MatMul nodes as conv2d layers; other operators listed as not "
         "simulated",
         makeOnnxKernel,
         "conv2d",
         {},
         {}},
    };
    return kernels;
}

}  // namespace

const std::vector<KernelEntry>& kernelRegistry() {
    return rows();
}

void registerKernel(KernelEntry row) {
    if (!row.make)
        throw std::invalid_argument("kernel row '" + row.rowName() + "' has no factory");
    for (const auto& k : rows())
        if (k.rowName() == row.rowName())
            throw std::invalid_argument("kernel row '" + row.rowName() + "' exists");
    // After the last row of its kernel, so that a kernel's rows stay together.
    auto at = rows().end();
    for (auto it = rows().begin(); it != rows().end(); ++it)
        if (it->name == row.name)
            at = it + 1;
    rows().insert(at, std::move(row));
}

const KernelEntry* findKernel(const std::string& name) {
    for (const auto& k : kernelRegistry())
        if (k.name == name)
            return &k;
    return nullptr;
}

std::vector<const KernelEntry*> kernelRowsFor(const config::Node& workload) {
    const config::Node* kernel = workload.isMap() ? workload.find("kernel") : nullptr;
    std::vector<const KernelEntry*> plain;
    if (!kernel || !kernel->isScalar())
        return plain;
    for (const auto& k : kernelRegistry()) {
        if (k.name != kernel->scalar())
            continue;
        for (const auto& key : k.workloadKeys)
            if (workload.find(key))
                return {&k};
        if (k.workloadKeys.empty())
            plain.push_back(&k);
    }
    return plain;
}

const KernelEntry* selectKernel(const config::Node& workload, const config::Node& plan) {
    const std::vector<const KernelEntry*> rows = kernelRowsFor(workload);
    if (rows.size() <= 1)
        return rows.empty() ? nullptr : rows.front();
    std::vector<std::string> strategies;
    for (const KernelEntry* k : rows)
        strategies.insert(strategies.end(), k->strategies.begin(), k->strategies.end());
    if (strategies.empty())
        return rows.front();
    config::Reader p(plan);
    const std::string strategy = p.oneOf("strategy", strategies, strategies.front());
    for (const KernelEntry* k : rows)
        if (std::find(k->strategies.begin(), k->strategies.end(), strategy) != k->strategies.end())
            return k;
    return rows.front();
}

}  // namespace tessim
