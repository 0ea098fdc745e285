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
    std::uint32_t h = 0, w = 0, k = 0, s = 1, channels = 1, filters = 1, ho = 0, wo = 0;
    std::uint32_t pad = 0;             // zero rows and columns around the map
    std::vector<std::string> engines;  // one per core; core c owns filters c, c + cores, …
    std::uint8_t ddr = 0;
    std::uint64_t ddrIn = 0, ddrW = 0, ddrOut = 0;
    double clockHz = 1e9, ddrBytesPerSecond = 0.0, amBytesPerSecond = 0.0;  // for estimates
    std::uint64_t ddrBurstBytes = 0;                                        // a DDR access's bytes

    unsigned cores() const { return static_cast<unsigned>(engines.size()); }
    unsigned filtersOf(unsigned core) const { return (filters - core + cores() - 1) / cores(); }
    unsigned maxFiltersPerCore() const { return filtersOf(0); }
    // The map as the AM holds it: padding included.
    std::uint32_t hp() const { return h + 2 * pad; }
    std::uint32_t wp() const { return w + 2 * pad; }
    std::uint64_t coefficientsPerFilter() const { return std::uint64_t{channels} * k * k; }
    std::uint64_t macs() const { return std::uint64_t{ho} * wo * filters * coefficientsPerFilter(); }
    std::uint64_t inputElements() const { return std::uint64_t{channels} * h * w; }
};

// `model_dtype` (a report's, fed back: i8 beside a dtype of f32) into `modelDtype`, the dtype read.
void readModelDtype(config::Reader& w, std::string& modelDtype);
// Reads the conv2d workload keys (h, w, k, stride, channels, filters, pad, dtype) and finishes `w`.
DspConvProblem readDspConvProblem(config::Reader& w);

// In DDR (space p.ddr): the input at `base` (4 KiB aligned), then the filters and the outputs, each
// 4 KiB aligned. A layer of a network sits after the layers before it (plan.ddr_offset).
void placeInDdr(DspConvProblem& p, std::uint64_t base = 0);
// The bytes from the input's start to the end of the outputs (what placeInDdr lays out).
std::uint64_t ddrFootprint(const DspConvProblem& p);

nlohmann::ordered_json resolvedConvWorkload(const DspConvProblem& p);

}  // namespace tessim
