// Integer helpers shared by planners and schedulers.
#pragma once

namespace tessim {

// ⌈a / b⌉ for unsigned a and b > 0.
template <class T> constexpr T ceilDiv(T a, T b) {
    return (a + b - 1) / b;
}

// ⌈log2 n⌉ (0 for n ≤ 1): the shift of a power of two (a line size, a store-buffer entry).
template <class T> constexpr unsigned ceilLog2(T n) {
    unsigned shift = 0;
    while ((T{1} << shift) < n)
        ++shift;
    return shift;
}

}  // namespace tessim
