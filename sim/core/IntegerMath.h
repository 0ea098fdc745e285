// Integer helpers shared by planners and schedulers.
#pragma once

namespace tessim {

// ⌈a / b⌉ for unsigned a and b > 0.
template <class T> constexpr T ceilDiv(T a, T b) {
    return (a + b - 1) / b;
}

}  // namespace tessim
