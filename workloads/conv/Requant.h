// INT8 requantisation parameters of a convolution layer: the workload keys requant_multiplier and
// requant_shift (scale = multiplier / 2^shift), or the scale derived from the layer's shape for
// the deterministic test data. Read alike by the MAC array's layers and the K1's INT8 ones.
#pragma once

#include <cstdint>
#include <optional>

#include "sim/config/Reader.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {

// Requantisation for the deterministic test data (testInt8(): INT8 uniform over −128..127, E[x²] =
// 5461.5): an accumulator of N = channels·k² products has σ ≈ 5461.5·√N (interior outputs;
// padded borders sum fewer). The scale 32/σ maps σ to 32 LSB, so an output saturates only beyond
// ≈ 4σ (about 6 in 100,000 for a Gaussian sum). Scale = multiplier / 2^shift with the multiplier
// normalised to [2^30, 2^31), as gemmlowp / TFLite quantised multipliers are.
void requantFor(const ConvShape& s, std::int32_t& multiplier, std::uint32_t& shift);

// requant_multiplier / requant_shift: an integer, or `auto` (requantFor) when absent or `auto`.
struct RequantKeys {
    std::optional<std::int32_t> multiplier;
    std::optional<std::uint32_t> shift;
};
RequantKeys readRequant(config::Reader& r);

// A layer's multiplier and shift: its own keys, else the workload's, else requantFor(s).
void resolveRequant(const ConvShape& s, const RequantKeys& own, const RequantKeys& top,
                    std::int32_t& multiplier, std::uint32_t& shift);

}  // namespace tessim
