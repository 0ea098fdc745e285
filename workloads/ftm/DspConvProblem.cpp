#include "workloads/ftm/DspConvProblem.h"

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"
#include "workloads/conv/ConvShapeReader.h"

namespace tessim {

void readModelDtype(config::Reader& w, std::string& modelDtype) {
    // A report fed back names the network's type beside the f32 its layers ran in.
    if (!w.has("model_dtype"))
        return;
    const std::string model = w.oneOf("model_dtype", {"i8"});
    if (modelDtype != "f32")
        w.fail("model_dtype", fmt::format("an i8 network's layers run in f32 here, not {}", modelDtype));
    modelDtype = model;
}

DspConvProblem readDspConvProblem(config::Reader& w) {
    using config::Range;
    DspConvProblem p;
    w.get<std::string>("source", std::string());
    p.h = w.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1u << 16});
    p.w = w.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1u << 16});
    // k (both ways) or kh and kw; stride or stride_h and stride_w; pad or pad_h and pad_w, as the
    // npu's and the K1's conv2d read them (readPerAxis).
    const Range<std::uint32_t> kernel{1, 32}, stride{1, 8}, padding{0, 32};
    readPerAxis(w, "k", "kh", "kw", p.kh, p.kw, std::nullopt, kernel);
    readPerAxis(w, "stride", "stride_h", "stride_w", p.sh, p.sw, 1u, stride);
    p.channels = w.get<std::uint32_t>("channels", 1u, Range<std::uint32_t>{1, 4096});
    p.filters = w.get<std::uint32_t>("filters", 1u, Range<std::uint32_t>{1, 4096});
    readPerAxis(w, "pad", "pad_h", "pad_w", p.padH, p.padW, 0u, padding);
    // Grouped layers (an ONNX model's) are refused; ungrouped ones need not say so.
    if (w.has("groups")) {
        const auto groups = w.get<std::uint32_t>("groups", Range<std::uint32_t>{1, 65535});
        if (groups != 1)
            w.fail("groups", fmt::format("the vector DSP's convolutions run ungrouped layers (groups 1), not "
                                         "groups {}",
                                         groups));
    }
    // An INT8 network (the npu's) runs in f32 on the DSP's FMACs; its requantisation keys belong to
    // the integer pipeline and are read past.
    // f32 unless the workload says (an ONNX model states none): the type networks run in here.
    p.modelDtype = w.oneOf("dtype", {"f64", "f32", "i8"}, std::string("f32"));
    readModelDtype(w, p.modelDtype);
    parseDType(p.modelDtype == "i8" ? "f32" : p.modelDtype, p.dtype);
    if (p.modelDtype == "i8") {
        w.oneOf("output_dtype", {"i8", "i32"}, std::string("i8"));
        for (const char* key : {"requant_multiplier", "requant_shift"})
            if (w.has(key))
                w.get<std::string>(key);
    }
    if (p.kh > p.hp() || p.kw > p.wp())
        w.fail(p.kh > p.hp() ? (w.has("kh") ? "kh" : "k") : (w.has("kw") ? "kw" : "k"),
               fmt::format("kernel {}×{} is larger than the {}×{} input with padding {}×{}", p.kh, p.kw, p.h,
                           p.w, p.padH, p.padW));
    w.finish();
    p.elem = dtypeBytes(p.dtype);
    p.ho = (p.hp() - p.kh) / p.sh + 1;
    p.wo = (p.wp() - p.kw) / p.sw + 1;
    return p;
}

void placeInDdr(DspConvProblem& p, std::uint64_t base) {
    p.ddrIn = alignUp(base, 4096);
    p.ddrW = alignUp(p.ddrIn + p.inputElements() * p.elem, 4096);
    p.ddrOut = alignUp(p.ddrW + std::uint64_t{p.filters} * p.coefficientsPerFilter() * p.elem, 4096);
}

std::uint64_t ddrFootprint(const DspConvProblem& p) {
    DspConvProblem at = p;
    placeInDdr(at);
    return at.ddrOut + std::uint64_t{p.ho} * p.wo * p.filters * p.elem;
}

nlohmann::ordered_json resolvedConvWorkload(const DspConvProblem& p) {
    nlohmann::ordered_json j;
    j["kernel"] = "conv2d";
    j["h"] = p.h;
    j["w"] = p.w;
    // One key where one suffices (reports before per-axis windows read the same).
    writePerAxis(j, "k", "kh", "kw", p.kh, p.kw);
    writePerAxis(j, "stride", "stride_h", "stride_w", p.sh, p.sw);
    j["channels"] = p.channels;
    j["filters"] = p.filters;
    j["dtype"] = std::string(dtypeName(p.dtype));
    if (!p.modelDtype.empty() && p.modelDtype != dtypeName(p.dtype))
        j["model_dtype"] = p.modelDtype;  // the network's type; the layer ran in `dtype`
    if (p.padded())
        writePerAxis(j, "pad", "pad_h", "pad_w", p.padH, p.padW);
    return j;
}

}  // namespace tessim
