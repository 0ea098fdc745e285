#include "sim/ir/Int8Dot.h"

namespace tessim {

// Compiled for the widest packed multiply-add the machine has, picked when the program loads:
// integer sums are exact, so every version gives the same result.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
void accumulateDots(const std::int16_t* x, std::size_t vectors, const std::int16_t* rows, std::size_t n,
                    std::size_t count, std::size_t outStride, std::int32_t* out) {
    const std::int16_t* x1 = x + n;
    for (std::size_t r = 0; r < count; ++r) {
        const std::int16_t* row = rows + r * n;
        if (vectors == 2) {
            std::int32_t sum0 = 0, sum1 = 0;
            for (std::size_t i = 0; i < n; ++i) {
                sum0 += std::int32_t{row[i]} * x[i];
                sum1 += std::int32_t{row[i]} * x1[i];
            }
            out[r * outStride] += sum0;
            out[r * outStride + 1] += sum1;
            continue;
        }
        std::int32_t sum = 0;
        for (std::size_t i = 0; i < n; ++i)
            sum += std::int32_t{row[i]} * x[i];
        out[r * outStride] += sum;
    }
}

}  // namespace tessim
