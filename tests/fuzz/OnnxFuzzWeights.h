// The external-data file beside every model the ONNX harness reads (`weights.bin`): 16 int64
// values, little-endian, that tests/fuzz/make_onnx_corpus.py's external-data seeds point into.
#pragma once

#include <cstdint>
#include <string>

namespace tessim::fuzz {

inline std::string onnxFuzzWeights() {
    static const std::int64_t values[16] = {1, 36, 4, 9, 2, 18, 3, 12, 6, 6, 1, 1, 0, -1, 8, 64};
    std::string bytes;
    for (std::int64_t v : values)
        for (int b = 0; b < 8; ++b)
            bytes += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff);
    return bytes;
}

}  // namespace tessim::fuzz
