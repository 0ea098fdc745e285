#include "workloads/ftm/DspConvProblem.h"

#include <fmt/format.h>

#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/KernelReaders.h"
#include "workloads/common/MemoryLayout.h"

namespace tessim {

DspConvProblem readDspConvProblem(config::Reader& w) {
    using config::Range;
    DspConvProblem p;
    w.get<std::string>("source", std::string());
    p.h = w.get<std::uint32_t>("h", Range<std::uint32_t>{1, 1u << 16});
    p.w = w.get<std::uint32_t>("w", Range<std::uint32_t>{1, 1u << 16});
    p.k = w.get<std::uint32_t>("k", Range<std::uint32_t>{1, 32});
    p.s = w.get<std::uint32_t>("stride", 1u, Range<std::uint32_t>{1, 8});
    p.channels = w.get<std::uint32_t>("channels", 1u, Range<std::uint32_t>{1, 4096});
    p.filters = w.get<std::uint32_t>("filters", 1u, Range<std::uint32_t>{1, 4096});
    p.pad = w.get<std::uint32_t>("pad", 0u, Range<std::uint32_t>{0, 32});
    const std::string dtype = w.oneOf("dtype", {"f64", "f32"}, std::string("f64"));
    parseDType(dtype, p.dtype);
    if (p.k > p.hp() || p.k > p.wp())
        w.fail("k", fmt::format("kernel {}×{} is larger than the {}×{} input with padding {}", p.k, p.k, p.h,
                                p.w, p.pad));
    w.finish();
    p.elem = dtypeBytes(p.dtype);
    p.ho = (p.hp() - p.k) / p.s + 1;
    p.wo = (p.wp() - p.k) / p.s + 1;
    return p;
}

void placeInDdr(DspConvProblem& p) {
    p.ddrIn = 0;
    p.ddrW = alignUp(p.inputElements() * p.elem, 4096);
    p.ddrOut = alignUp(p.ddrW + std::uint64_t{p.filters} * p.coefficientsPerFilter() * p.elem, 4096);
}

nlohmann::ordered_json resolvedConvWorkload(const DspConvProblem& p) {
    nlohmann::ordered_json j;
    j["kernel"] = "conv2d";
    j["h"] = p.h;
    j["w"] = p.w;
    j["k"] = p.k;
    j["stride"] = p.s;
    j["channels"] = p.channels;
    j["filters"] = p.filters;
    j["dtype"] = std::string(dtypeName(p.dtype));
    if (p.pad > 0)
        j["pad"] = p.pad;
    return j;
}

}  // namespace tessim
