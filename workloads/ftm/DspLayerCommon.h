// What the vector DSP's element-wise and pooling layers (DspVectorLayer, DspPoolLayer) share: the
// type a layer runs in, the functional check of its outputs against the K1's reference, and the
// workload keys they derive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "sim/ir/ElementArithmetic.h"
#include "sim/workload/Workload.h"
#include "workloads/conv/RvvVectorLayers.h"
#include "workloads/ftm/DspConvProblem.h"

namespace tessim {

// `dtype` (f32 by default; an INT8 network's layers run in f32 here, as its convolutions do) and
// `model_dtype`; an INT8 network's requantisation keys are read past. Returns the type it runs in.
inline DType readDspLayerDtype(config::Reader& w, std::string& modelDtype) {
    modelDtype = w.oneOf("dtype", {"f64", "f32", "i8"}, std::string("f32"));
    readModelDtype(w, modelDtype);
    DType dtype = DType::F32;
    parseDType(modelDtype == "i8" ? "f32" : modelDtype, dtype);
    for (const char* key : {"output_dtype", "requant_multiplier", "requant_shift"})
        if (w.has(key))
            w.get<std::string>(key);
    return dtype;
}

// The layer's outputs at `addr` in `space` against vectorLayerReference (inputs of salts a and b).
inline FunctionalCheck checkVectorLayerOutputs(FunctionalMemory& memory, const RvvVectorLayer& layer,
                                               DType dtype, std::uint8_t space, std::uint64_t addr,
                                               std::uint64_t saltA, std::uint64_t saltB) {
    FunctionalCheck c;
    c.checked = true;
    const unsigned elem = dtypeBytes(dtype);
    std::vector<std::uint8_t> buf(layer.outputs() * elem);
    memory.read(space, addr, buf.data(), buf.size());
    for (std::uint64_t i = 0; i < layer.outputs(); ++i) {
        const double got = decodeElement(dtype, buf.data() + i * elem);
        const double want = vectorLayerReference(layer, dtype, i, saltA, saltB);
        if (c.countOutput(got, want, got != want)) {
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
