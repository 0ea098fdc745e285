// SCALE-Sim v2 topology CSV → a tessim workload tree (kernel `scalesim`, one entry per row in
// `layers`), and the SCALE-Sim geometry of a layer (output size, operand mapping, folds).
//
// Conv form: `Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
// Num Filter, Strides,` (an optional 9th column is the column stride; padding is already in the
// IFMAP size). GEMM form (header `Layer, M, N, K`): M×K times K×N, mapped as SCALE-Sim does:
// ifmap M×K, filter 1×K, 1 channel, N filters, stride 1. The header row is skipped; trailing
// commas and spaces are ignored. Errors are ConfigErrors at file:line:column (exit 2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/Node.h"

namespace tessim {

bool isScaleSimTopologyPath(const std::string& path);

struct ScaleSimLayer {
    std::string name;
    std::uint64_t ifmapH = 0, ifmapW = 0, filterH = 0, filterW = 0, channels = 0, filters = 0;
    std::uint64_t strideH = 1, strideW = 1;
    // SCALE-Sim: ofmap = ceil((ifmap − filter + stride) / stride).
    std::uint64_t ofmapH() const { return (ifmapH - filterH + strideH + strideH - 1) / strideH; }
    std::uint64_t ofmapW() const { return (ifmapW - filterW + strideW + strideW - 1) / strideW; }
    std::uint64_t pixels() const { return ofmapH() * ofmapW(); }           // E
    std::uint64_t window() const { return filterH * filterW * channels; }  // K
    std::uint64_t macs() const { return pixels() * window() * filters; }
};

// The workload tree: {kernel: scalesim, name, source, form: conv|gemm, layer: all, layers: [...]}.
config::Node loadScaleSimTopology(const std::string& path);

// SCALE-Sim's mapping of a whole layer (operand matrices Sr × Sc spatially, T temporally).
struct ScaleSimMapping {
    std::uint64_t sr = 0, sc = 0, t = 0;
    std::uint64_t rowFolds = 0, colFolds = 0;
    std::uint64_t cyclesPerFold = 0;
    std::uint64_t folds() const { return rowFolds * colFolds; }
    // SCALE-Sim reports folds · per-fold − 1 with no stall.
    std::uint64_t computeCycles() const { return folds() * cyclesPerFold - 1; }
};
ScaleSimMapping scaleSimMapping(const ScaleSimLayer& l, unsigned rows, unsigned cols,
                                const std::string& dataflow);

}  // namespace tessim
