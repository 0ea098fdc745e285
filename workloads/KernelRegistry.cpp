#include "workloads/KernelRegistry.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/config/Reader.h"
#include "sim/ir/OpTable.h"

#include "workloads/conv/ConvKernel.h"
#include "workloads/conv/RvvConvKernel.h"
#include "workloads/fc/FullyConnectedKernel.h"
#include "workloads/ftm/DspVectorLayer.h"
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

std::string runsEveryVectorLayer(const config::Node& layer, const config::Node& plan,
                                 const TargetInfo& target) {
    (void)layer;
    (void)plan;
    (void)target;
    return "";
}

std::vector<KernelEntry>& rows() {
    static std::vector<KernelEntry> kernels{
        {"axpy",
         "",
         "y ← α·x + y, streamed through vector registers; plan.cores splits it",
         makeStreamingVectorKernel,
         "vector",
         {},
         {},
         {{"vload", "vstore", "fma", "broadcast"}}},
        {"dot",
         "",
         "Σ x·y in unrolled accumulators; plan.cores splits it, partial sums meet after a barrier",
         makeStreamingVectorKernel,
         "vector",
         {},
         {},
         {{"vload", "vstore", "fma", "broadcast", "add", "reduce"}}},
        {"conv2d",
         "tiled",
         "tiled INT8 convolution on a MAC array, DMA between DDR and SRAM: naive, static-single or "
         "double-buffer; element-wise and pooling layers on a vector processor beside it",
         makeConvKernel,
         "conv2d",
         {},
         {"double-buffer", "naive", "static-single"},
         {{}, true, true, {"sram", "ddr"}, true},
         dspVectorLayerGap,  // on a vector processor beside the array (target npu's vpu)
         makeDspVectorLayer},
        {"conv2d",
         "shuffle",
         "lane shuffles on a vector DSP, software-pipelined by a modulo scheduler; plan.cores splits "
         "the filters",
         makeShuffleConvKernel,
         "conv2d",
         {},
         {"shuffle"},
         {{"fma", "mul", "vload", "vstore", "slide", "sload", "sadd", "smul", "scmp", "branch"}, true},
         dspVectorLayerGap,
         makeDspVectorLayer},
        {"conv2d",
         "im2col",
         "im2col on a vector DSP: the DMA expands the map into AM, then a GEMM with broadcast kernel "
         "elements",
         makeIm2colConvKernel,
         "conv2d",
         {},
         {"im2col"},
         {{"fma", "mul", "vload", "vstore", "sload", "sadd", "smul", "scmp", "branch"}, true},
         dspVectorLayerGap,
         makeDspVectorLayer},
        {"conv2d",
         "rvv",
         "im2col (vector copies through the caches) + the RVV GEMM on RISC-V vector cores, element-wise "
         "and pooling layers as RVV streams; plan.threads splits the output pixels, a barrier after each "
         "layer",
         makeRvvConvKernel,
         "conv2d",
         {},
         {"rvv-im2col"},
         {{"vsetvl", "vload", "vstore", "fma", "mul", "reduce", "broadcast", "sadd", "scmp", "sstore",
           "branch"},
          false,
          false,
          {},
          true},
         rvvVectorLayerGap},
        {"memcpy",
         "",
         "RVV copy loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores, fork/join",
         makeMemoryStreamKernel,
         "memory",
         {},
         {},
         {{"vsetvl", "vload", "vstore", "sadd", "branch"}}},
        {"memset",
         "",
         "RVV fill loop at LMUL 8 (bytes, repeat, value); plan.threads splits it over cores",
         makeMemoryStreamKernel,
         "memory",
         {},
         {},
         {{"vsetvl", "broadcast", "vstore", "sadd", "branch"}}},
        {"memread",
         "",
         "RVV read loop at LMUL 8 (bytes, repeat); plan.threads splits it over cores",
         makeMemoryStreamKernel,
         "memory",
         {},
         {},
         {{"vsetvl", "vload", "add", "sadd", "branch"}}},
        {"pointer_chase",
         "",
         "dependent scalar loads over a random cycle of lines (bytes, stride, repeat), as lat_mem_rd",
         makePointerChaseKernel,
         "memory",
         {},
         {},
         {{"sload"}}},
        {"fc",
         "dense",
         "dense y = x·Wᵀ vectorised over `in`, rb × ro register blocks; plan.threads splits `out`",
         makeFullyConnectedKernel,
         "fc",
         {},
         {},
         {{"vsetvl", "vload", "fma", "mul", "reduce", "sadd", "scmp", "sstore", "branch"}}},
        {"fc",
         "tt",
         "the layer as a tensor train (or ring): the einsum chain over its cores with packing, "
         "blocking, tiling, threads",
         makeTensorTrainKernel,
         "tt",
         {"tt", "tr"},
         {},
         {{"vsetvl", "vload", "vstore", "fma", "mul", "reduce", "broadcast", "sadd", "scmp", "sload",
           "sstore", "branch"}}},
        {"scalesim",
         "",
         "SCALE-Sim topology layers, fold by fold as SCALE-Sim schedules them",
         makeScaleSimKernel,
         "",
         {},
         {},
         {{}, false, true, {}, true}},
        {"onnx",
         "",
         "an ONNX model's Conv, Gemm and MatMul nodes as conv2d layers, its element-wise and pooling "
         "nodes as vector layers where the row runs them; other operators listed as not simulated",
         makeOnnxKernel,
         "conv2d",
         {},
         {},
         {{}, false, false, {}, true},
         runsEveryVectorLayer},  // its vector layers go to the conv2d row that runs them, or to not_simulated
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

std::string unmetNeeds(const KernelNeeds& needs, const TargetInfo& target) {
    for (const auto& level : needs.levels) {
        const bool has = std::any_of(target.spaces.begin(), target.spaces.end(),
                                     [&](const MemorySpaceInfo& s) { return s.level == level; });
        if (!has)
            return fmt::format("target '{}' has no memory of level '{}'", target.name, level);
    }
    // What each main engine lacks; the engine that lacks least is the one the reason names.
    std::string closest;
    std::size_t fewest = ~std::size_t{0};
    for (const EngineInfo& e : target.engines) {
        if (!e.mainCompute)
            continue;
        std::vector<std::string> lacks;
        if (needs.macArray && !e.macArray)
            lacks.push_back("MAC array");
        if (needs.dma && e.dmaChannels == 0)
            lacks.push_back("DMA engine");
        std::vector<std::string> ops;
        for (const auto& op : needs.ops) {
            const OpDescriptor* d = findOpKind(op);
            const std::string timing = d ? std::string(timingClassName(d->timingClass)) : op;
            if (std::none_of(e.units.begin(), e.units.end(),
                             [&](const UnitInfo& u) { return u.findOp(timing); }))
                ops.push_back("'" + op + "'");
        }
        if (!ops.empty())
            lacks.push_back(fmt::format("unit for op{} {}", ops.size() > 1 ? "s" : "", fmt::join(ops, ", ")));
        if (lacks.empty())
            return "";
        const std::size_t count = lacks.size() + ops.size();
        if (count < fewest) {
            fewest = count;
            closest = fmt::format("engine '{}' of target '{}' has no {}", e.name, target.name,
                                  fmt::join(lacks, ", no "));
        }
    }
    return closest.empty() ? fmt::format("target '{}' has no main compute engine", target.name) : closest;
}

const KernelEntry* selectKernel(const config::Node& workload, const config::Node& plan,
                                const TargetInfo* target) {
    const std::vector<const KernelEntry*> rows = kernelRowsFor(workload);
    if (rows.empty())
        return nullptr;
    std::vector<std::string> strategies;
    for (const KernelEntry* k : rows)
        strategies.insert(strategies.end(), k->strategies.begin(), k->strategies.end());
    const config::Node* named = plan.isMap() ? plan.find("strategy") : nullptr;
    if (rows.size() > 1 && !strategies.empty() && named) {
        config::Reader p(plan);
        const std::string strategy = p.oneOf("strategy", strategies);
        for (const KernelEntry* k : rows) {
            if (std::find(k->strategies.begin(), k->strategies.end(), strategy) == k->strategies.end())
                continue;
            if (target)
                if (const std::string why = unmetNeeds(k->needs, *target); !why.empty())
                    p.fail("strategy",
                           fmt::format("{} cannot run on target '{}': {}", k->rowName(), target->name, why));
            return k;
        }
    }
    if (!target)
        return rows.front();
    // The first row the target can run; none: the refusal names what each row needs.
    std::vector<std::string> reasons;
    for (const KernelEntry* k : rows) {
        const std::string why = unmetNeeds(k->needs, *target);
        if (why.empty())
            return k;
        reasons.push_back(rows.size() > 1 ? k->rowName() + ": " + why : why);
    }
    config::Reader w(workload);
    w.fail("kernel", fmt::format("{} cannot run on target '{}': {}", rows.front()->name, target->name,
                                 fmt::join(reasons, "; ")));
}

}  // namespace tessim
