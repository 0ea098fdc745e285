// A 2-D convolution as the vector-DSP plans (shuffle, im2col) run it: the workload's shape, the
// cores that split its filters, and where its tensors sit in DDR.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/Reader.h"
#include "sim/ir/Op.h"
#include "workloads/common/KernelReaders.h"

namespace tessim {

struct DspConvProblem {
    DType dtype = DType::F64;
    std::string modelDtype;  // the workload's dtype: i8 (a quantised network) runs in f32
    unsigned elem = 8;
    // A kh × kw kernel moving sh rows down and sw columns across a map with padH zero rows above
    // and below and padW zero columns left and right (ONNX's kernel_shape, strides and pads).
    std::uint32_t h = 0, w = 0, kh = 0, kw = 0, sh = 1, sw = 1, channels = 1, filters = 1, ho = 0, wo = 0;
    std::uint32_t padH = 0, padW = 0;
    std::vector<std::string> engines;  // one per core; core c owns filters c, c + cores, …
    std::uint8_t ddr = 0;
    std::uint64_t ddrIn = 0, ddrW = 0, ddrOut = 0;
    double clockHz = 1e9, ddrBytesPerSecond = 0.0, amBytesPerSecond = 0.0;  // for estimates
    std::uint64_t ddrBurstBytes = 0;                                        // a DDR access's bytes

    unsigned cores() const { return static_cast<unsigned>(engines.size()); }
    unsigned filtersOf(unsigned core) const { return (filters - core + cores() - 1) / cores(); }
    unsigned maxFiltersPerCore() const { return filtersOf(0); }
    // The map as the AM holds it: padding included.
    std::uint32_t hp() const { return h + 2 * padH; }
    std::uint32_t wp() const { return w + 2 * padW; }
    std::uint64_t taps() const { return std::uint64_t{kh} * kw; }
    std::uint64_t coefficientsPerFilter() const { return channels * taps(); }
    bool padded() const { return padH > 0 || padW > 0; }
    std::uint64_t macs() const { return std::uint64_t{ho} * wo * filters * coefficientsPerFilter(); }
    std::uint64_t inputElements() const { return std::uint64_t{channels} * h * w; }
};

// `model_dtype` (a report's, fed back: i8 beside a dtype of f32) into `modelDtype`, the dtype read.
void readModelDtype(config::Reader& w, std::string& modelDtype);
// Reads the conv2d workload keys (h, w, k or kh and kw, stride or stride_h and stride_w, channels,
// filters, pad or pad_h and pad_w, dtype) and finishes `w`.
DspConvProblem readDspConvProblem(config::Reader& w);

// In DDR (space p.ddr): the input at `base` (4 KiB aligned), then the filters and the outputs, each
// 4 KiB aligned. A layer of a network sits after the layers before it (plan.ddr_offset).
void placeInDdr(DspConvProblem& p, std::uint64_t base = 0);
// The bytes from the input's start to the end of the outputs (what placeInDdr lays out).
std::uint64_t ddrFootprint(const DspConvProblem& p);

nlohmann::ordered_json resolvedConvWorkload(const DspConvProblem& p);

}  // namespace tessim
