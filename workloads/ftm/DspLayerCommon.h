// What the vector DSP's element-wise and pooling layers (DspVectorLayer, DspPoolLayer) share: the
// type a layer runs in, the functional check of its outputs against the K1's reference, and the
// workload keys they derive.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/machine/TargetInfo.h"
#include "sim/workload/Workload.h"
#include "workloads/conv/RvvVectorLayers.h"
#include "workloads/ftm/DspConvProblem.h"
#include "workloads/ftm/EngineUnits.h"

namespace tessim {

// The network's element type: `dtype` (f32 by default), or `model_dtype` where a report fed back
// names it beside the type the layer ran in (then `stated` holds that `dtype`); an INT8 network's
// requantisation keys are read past.
std::string readDspLayerModelDtype(config::Reader& w, std::string& stated);

// What a vector or pooling layer takes of the target: the engines the plan gives it (where it
// names none and the main engine has no vector unit, every engine that has one: an NPU's vector
// processor beside its array), their vector units, local memory (each core's AM, else the on-chip
// memory the engine reaches) and DDR, and the element type the layer runs in: the network's own
// where the vector unit executes it and, for an integer type, the layer needs no fractions
// (integerExact); else the narrowest floating type the unit executes.
struct DspLayerMachine {
    std::vector<const EngineInfo*> engines;
    VliwVectorUnits units;
    const MemorySpaceInfo* local = nullptr;
    const MemorySpaceInfo* ddr = nullptr;
    std::uint64_t localSize = 0;  // of one core's local memory
    DType dtype = DType::F32;
};
// `w`: the layer's workload keys (for a `dtype` fed back that the layer would not run in); `what`
// names the layers in errors ("element-wise", "pooling").
DspLayerMachine dspLayerMachine(config::Reader& pl, config::Reader& w, const TargetInfo& target,
                                const RvvVectorLayer& layer, const std::string& modelDtype,
                                const std::string& stated, const char* what);

// The target's engines that have a vector unit (add, broadcast, vload), in target order.
std::vector<const EngineInfo*> vectorEngines(const TargetInfo& target);

// Whether the layer's integer arithmetic (wrapping, as the vector ops' integer semantics) is its
// operation: min/max and integer bounds or constants, not an average or a fraction.
bool integerExact(const RvvVectorLayer& layer);

// The layer's outputs at `addr` in `space` against vectorLayerReference (inputs of salts a and b).
// `divide`: how the core divides. A NaN matches a NaN.
inline FunctionalCheck checkVectorLayerOutputs(FunctionalMemory& memory, const RvvVectorLayer& layer,
                                               DType dtype, std::uint8_t space, std::uint64_t addr,
                                               std::uint64_t saltA, std::uint64_t saltB,
                                               DivideIn divide = divIn) {
    FunctionalCheck c;
    c.checked = true;
    const unsigned elem = dtypeBytes(dtype);
    std::vector<std::uint8_t> buf(layer.outputs() * elem);
    memory.read(space, addr, buf.data(), buf.size());
    for (std::uint64_t i = 0; i < layer.outputs(); ++i) {
        const double got = decodeElement(dtype, buf.data() + i * elem);
        const double want = vectorLayerReference(layer, dtype, i, saltA, saltB, divide);
        if (c.countOutput(got, want, got != want && !(std::isnan(got) && std::isnan(want)))) {
            c.firstMismatch =
                fmt::format("{} output element {}: simulated {} reference {}", layer.opName, i, got, want);
            c.locateFirstMismatch(space, addr + i * elem);
        }
    }
    return c;
}

// The type the layer ran in, the network's beside it where they differ, and its flops.
inline void deriveVectorLayerWorkload(nlohmann::ordered_json& j, const RvvVectorLayer& layer, DType dtype,
                                      const std::string& modelDtype) {
    j["dtype"] = std::string(dtypeName(dtype));
    if (!modelDtype.empty() && modelDtype != dtypeName(dtype))
        j["model_dtype"] = modelDtype;
    j["flops"] = layer.flops();
}

}  // namespace tessim
