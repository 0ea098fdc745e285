#include "workloads/KernelRegistry.h"

#include "workloads/conv/ConvKernel.h"
#include "workloads/fc/FullyConnectedKernel.h"
#include "workloads/ftm/ShuffleConvKernel.h"
#include "workloads/memory/MemoryStreamKernel.h"
#include "workloads/memory/PointerChaseKernel.h"
#include "workloads/onnx/OnnxKernel.h"
#include "workloads/scalesim/ScaleSimKernel.h"
#include "workloads/tt/TensorTrainKernel.h"
#include "workloads/vector/StreamingVectorKernel.h"

namespace tessim {

const std::vector<KernelEntry>& kernelRegistry() {
    static const std::vector<KernelEntry> kernels{
        {"axpy", "y ← α·x + y, streamed through vector registers; plan.cores splits it",
         makeStreamingVectorKernel, "vector"},
        {"dot", "Σ x·y in unrolled accumulators; plan.cores splits it, partial sums meet after a barrier",
         makeStreamingVectorKernel, "vector"},
        {"conv2d",
         "tiled INT8 convolution on a MAC array: naive, static-single or double-buffer; shuffle on a "
         "vector DSP",
         makeConv2dKernel, "conv2d"},
        {"memcpy", "RVV copy loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores, fork/join",
         makeMemoryStreamKernel, "memory"},
        {"memset", "RVV fill loop at LMUL 8 (bytes, repeat, value); plan.threads splits it over cores",
         makeMemoryStreamKernel, "memory"},
        {"memread", "RVV read loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores",
         makeMemoryStreamKernel, "memory"},
        {"pointer_chase",
         "dependent scalar loads over a random cycle of lines (bytes, stride, repeat), as lat_mem_rd",
         makePointerChaseKernel, "memory"},
        {"fc", "dense y = x·Wᵀ vectorised over `in`, rb × ro register blocks; plan.threads splits `out`",
         makeFcKernel, "fc"},
        {"scalesim", "SCALE-Sim topology layers, fold by fold as SCALE-Sim schedules them",
         makeScaleSimKernel, ""},
        {"onnx",
         "an ONNX model's Conv, Gemm and MatMul nodes as conv2d layers; other operators listed as not "
         "simulated",
         makeOnnxKernel, "conv2d"},
    };
    return kernels;
}

const KernelEntry* findKernel(const std::string& name) {
    for (const auto& k : kernelRegistry())
        if (k.name == name)
            return &k;
    return nullptr;
}

}  // namespace tessim
