// Simulated time: integer picoseconds everywhere inside tessim, converted to sc_time only at
// SystemC boundaries (the kernel's resolution is set to 1 ps, so sc_time::value() is ps).
#pragma once

#include <cmath>
#include <cstdint>

namespace tessim {

using Tick = std::uint64_t;  // picoseconds

constexpr Tick kTicksPerSecond = 1'000'000'000'000ULL;
constexpr Tick kTickMax = ~Tick{0};

inline double ticksToSeconds(Tick t) {
    return static_cast<double>(t) / 1e12;
}
inline Tick secondsToTicks(double s) {
    return static_cast<Tick>(std::llround(s * 1e12));
}

// A clock: cycles ↔ ticks. Periods are rounded to whole picoseconds (1.6 GHz = 625 ps exactly;
// the error for other rates is below 1e-3 for clocks under 1 GHz... and reported nowhere as exact).
struct ClockDomain {
    Tick period = 1000;

    static ClockDomain fromHz(double hz) { return ClockDomain{static_cast<Tick>(std::llround(1e12 / hz))}; }
    double hz() const { return 1e12 / static_cast<double>(period); }
    Tick at(std::uint64_t cycles) const { return cycles * period; }
    // Cycles needed to cover t (rounded up): the cycle in which t falls has to be spent.
    std::uint64_t cyclesCeil(Tick t) const { return (t + period - 1) / period; }
    std::uint64_t cyclesFloor(Tick t) const { return t / period; }
};

}  // namespace tessim
