#include "workloads/conv/ConvLayer.h"

#include <vector>

#include "workloads/conv/ConvShapeReader.h"

namespace tessim {

std::uint64_t outputBytes(const ConvParams& p) {
    return p.s.outputs() * p.s.outBytes;
}
std::uint64_t weightBytes(const ConvParams& p) {
    return std::uint64_t{p.s.filters} * p.s.groupChannels() * p.s.taps();
}
std::uint64_t inputBytes(const ConvParams& p) {
    return std::uint64_t{p.s.channels} * p.s.h * p.s.w;
}
std::uint64_t touchedInputBytes(const ConvParams& p) {
    auto touched = [&](std::uint32_t in, std::uint32_t out, std::uint32_t kernel, std::uint32_t stride,
                       std::uint32_t pad) {
        std::vector<bool> used(in, false);
        for (std::uint32_t o = 0; o < out; ++o)
            for (std::uint32_t k = 0; k < kernel; ++k) {
                std::int64_t i = std::int64_t{o} * stride + k - pad;
                if (i >= 0 && i < in)
                    used[static_cast<std::size_t>(i)] = true;
            }
        return static_cast<std::uint64_t>(std::count(used.begin(), used.end(), true));
    };
    return std::uint64_t{p.s.channels} * touched(p.s.h, p.s.outH(), p.s.kh, p.s.strideH, p.s.padH) *
           touched(p.s.w, p.s.outW(), p.s.kw, p.s.strideW, p.s.padW);
}
nlohmann::ordered_json shapeJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    j["h"] = p.s.h;
    j["w"] = p.s.w;
    j["channels"] = p.s.channels;
    j["filters"] = p.s.filters;
    // A square kernel, one stride and equal padding keep their one key each (reports before
    // per-axis windows).
    writePerAxis(j, "k", "kh", "kw", p.s.kh, p.s.kw);
    writeStride(j, p.s);
    writePerAxis(j, "pad", "pad_h", "pad_w", p.s.padH, p.s.padW);
    if (p.s.groups > 1)
        j["groups"] = p.s.groups;
    j["output_dtype"] = p.s.requantize() ? "i8" : "i32";
    if (p.s.requantize()) {
        j["requant_multiplier"] = p.multiplier;
        j["requant_shift"] = p.shift;
    }
    return j;
}
nlohmann::ordered_json tilesJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    j["tile_h"] = p.t.th;
    j["tile_w"] = p.t.tw;
    j["tile_c"] = p.t.tc;
    j["tile_f"] = p.t.tf;
    j["loop_order"] = loopOrderName(p.t.order);
    j["steps"] = p.steps();
    j["sram_bytes_used"] = p.layout.total;
    return j;
}
nlohmann::ordered_json fetchJson(const ConvParams& p) {
    nlohmann::ordered_json j;
    std::uint64_t fetch = inputFetchBytes(p.s, p.t);
    j["input_fetch_bytes"] = fetch;
    j["halo_bytes"] = fetch - inputBytes(p);
    j["weight_fetch_bytes"] = weightFetchBytes(p.s, p.t);
    j["zero_line_bytes"] = p.layout.zeroBytes;
    j["output_bytes"] = outputBytes(p);
    // The planner's estimate for this plan (tessim's simulation is the measurement).
    j["estimate"] = {{"compute_cycles", p.estimate.computeCycles},
                     {"ddr_bytes", p.estimate.ddrBytes},
                     {"sram_bytes", p.estimate.sramBytes},
                     {"seconds", p.estimate.seconds},
                     {"array", p.arraySource}};
    return j;
}

}  // namespace tessim
