// Dot products of INT8 data held as int16 (widened once per operand, not once per product): the
// loop that a functional MAC array and a convolution reference spend their time in. Exact: each
// product is at most 2^14 in magnitude, so a sum of fewer than 2^17 of them fits 32 bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessim {

// out[r · outStride + j] += Σ_i rows[r · n + i] · x[j · n + i], for r < count and j < vectors
// (vectors 1 or 2: two vectors share each row's loads).
void accumulateDots(const std::int16_t* x, std::size_t vectors, const std::int16_t* rows, std::size_t n,
                    std::size_t count, std::size_t outStride, std::int32_t* out);

}  // namespace tessim
