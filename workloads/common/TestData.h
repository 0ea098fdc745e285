// Deterministic test data for functional runs: a value per (element index, salt), identical on
// every run and machine, so a reference check can recompute any input without storing it.
#pragma once

#include <cstdint>

#include "sim/core/FunctionalMemory.h"
#include "sim/ir/Op.h"

namespace tessim {

// 64 well-mixed bits (SplitMix64 finaliser of a golden-ratio step).
std::uint64_t testDataBits(std::uint64_t index, std::uint64_t salt);
// Floating point: uniform in [-1, 1), rounded to `type`; integer types: −8..7 (small, so sums of
// products stay exact).
double testValue(DType type, std::uint64_t index, std::uint64_t salt);
// The whole INT8 range −128..127.
std::int8_t testInt8(std::uint64_t index, std::uint64_t salt);
// `count` elements testValue(type, 0 … count − 1, salt), encoded as `type`, written at `addr` of
// memory space `space` (a functional run's inputs).
void writeTestValues(FunctionalMemory& memory, std::uint8_t space, std::uint64_t addr, std::uint64_t count,
                     DType type, std::uint64_t salt);

}  // namespace tessim
