// How far b lies from a, relative to a: what the quantum tests bound.
#pragma once

#include <algorithm>
#include <cmath>

namespace tessim::test {

inline double relativeChange(double a, double b) {
    return std::abs(a - b) / std::max(std::abs(a), 1e-30);
}

}  // namespace tessim::test
