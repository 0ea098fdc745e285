// The RISC-V floating-point rules on top of the host's IEEE 754 arithmetic, shared by the scalar
// (RiscvFloat.cpp) and vector (RiscvVector.cpp) semantics: bit views, NaN boxing and canonical
// NaNs, fflags from the host's exception flags, fclass, conversions to integers, min/max,
// compares and the round-to-odd correction of RMM. A file that includes it is built with
// -frounding-math (models/CMakeLists.txt).
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace tessim::riscv::fp {

// feclearexcept(FE_ALL_EXCEPT), done as a host's hardware does it: glibc's x86-64 version saves and
// reloads the whole x87 environment (fnstenv/fldenv), some 8 % of a run of FP programs
// (perf, `tessim reproduce k1-ttd`). Here: fnclex for the x87 flags (the long double paths),
// the SSE flags cleared in MXCSR. Other hosts: the library's.
inline void clearHostFlags() {
#if defined(__x86_64__)
    __asm__ volatile("fnclex" ::: "memory");
    _mm_setcsr(_mm_getcsr() & ~0x3fu);
#else
    std::feclearexcept(FE_ALL_EXCEPT);
#endif
}

constexpr std::uint32_t kNV = 16, kDZ = 8, kOF = 4, kUF = 2, kNX = 1;
// The host's rounding mode for a RISC-V one (RNE, RTZ, RDN, RUP; RMM computes in RNE and is
// corrected at ties, roundToOdd/tiesAway below).
constexpr int kHostMode[5] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, FE_TONEAREST};
constexpr std::uint32_t kCanonicalNaN32 = 0x7fc00000u;
constexpr std::uint64_t kCanonicalNaN64 = 0x7ff8000000000000ull;
constexpr std::uint64_t kBox = 0xffffffff00000000ull;

inline float asFloat(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
inline double asDouble(std::uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}
inline std::uint32_t bitsOf(float f) {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline std::uint64_t bitsOf(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

// A single held in a 64-bit register: valid only NaN-boxed (upper 32 bits all ones), else the
// canonical NaN.
inline std::uint32_t unbox(std::uint64_t reg) {
    return (reg & kBox) == kBox ? static_cast<std::uint32_t>(reg) : kCanonicalNaN32;
}
inline std::uint64_t box(std::uint32_t bits) {
    return kBox | bits;
}

inline bool isSignalling(std::uint32_t b) {
    return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) && !(b & 0x400000u);
}
inline bool isSignalling(std::uint64_t b) {
    return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull) &&
           !(b & 0x8000000000000ull);
}

inline std::uint32_t canonical(float f) {
    return std::isnan(f) ? kCanonicalNaN32 : bitsOf(f);
}
inline std::uint64_t canonical(double d) {
    return std::isnan(d) ? kCanonicalNaN64 : bitsOf(d);
}

inline std::uint32_t hostFlags() {
    const int e = std::fetestexcept(FE_ALL_EXCEPT);
    return (e & FE_INVALID ? kNV : 0) | (e & FE_DIVBYZERO ? kDZ : 0) | (e & FE_OVERFLOW ? kOF : 0) |
           (e & FE_UNDERFLOW ? kUF : 0) | (e & FE_INEXACT ? kNX : 0);
}

// fclass: one bit of ten.
template <typename F> inline std::uint64_t classify(F v, bool signalling) {
    const bool neg = std::signbit(v);
    switch (std::fpclassify(v)) {
    case FP_INFINITE: return neg ? 1u << 0 : 1u << 7;
    case FP_NORMAL: return neg ? 1u << 1 : 1u << 6;
    case FP_SUBNORMAL: return neg ? 1u << 2 : 1u << 5;
    case FP_ZERO: return neg ? 1u << 3 : 1u << 4;
    default: return signalling ? 1u << 8 : 1u << 9;
    }
}

// fcvt to an integer: rounded in the current host mode, saturated out of range (NaN as +∞),
// NV when out of range, NX when in range but not exact.
template <typename I, typename F> inline std::uint64_t toInteger(F v, bool tiesAway, std::uint32_t& flags) {
    constexpr F lo = static_cast<F>(std::numeric_limits<I>::min());
    // 2^N for an N-bit maximum: the first value above the range, exactly representable.
    constexpr F hiExclusive = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F(2);
    I result;
    if (std::isnan(v)) {
        flags |= kNV;
        result = std::numeric_limits<I>::max();
    } else {
        const F r = tiesAway ? std::round(v) : std::nearbyint(v);  // RMM, or the host's mode
        if (r < lo) {
            flags |= kNV;
            result = std::numeric_limits<I>::min();
        } else if (r >= hiExclusive) {
            flags |= kNV;
            result = std::numeric_limits<I>::max();
        } else {
            result = static_cast<I>(r);
            if (r != v)
                flags |= kNX;
        }
    }
    if constexpr (sizeof(I) == 4)
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(result)));
    else
        return static_cast<std::uint64_t>(result);
}

// IEEE 754-2019 minimumNumber / maximumNumber as RISC-V defines fmin/fmax.
template <typename F, typename B>
inline B minMax(F a, F b, B aBits, B bBits, bool max, std::uint32_t& flags, B canonicalNaN) {
    if (isSignalling(aBits) || isSignalling(bBits))
        flags |= kNV;
    if (std::isnan(a) && std::isnan(b))
        return canonicalNaN;
    if (std::isnan(a))
        return bBits;
    if (std::isnan(b))
        return aBits;
    if (a == b)  // ±0: min takes the negative, max the positive
        return max ? (std::signbit(a) ? bBits : aBits) : (std::signbit(a) ? aBits : bBits);
    return (max ? a > b : a < b) ? aBits : bBits;
}

template <typename F, typename B>
inline std::uint64_t compare(int kind, F a, F b, B aBits, B bBits, std::uint32_t& flags) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    if (kind == 2) {  // feq: quiet
        if (isSignalling(aBits) || isSignalling(bBits))
            flags |= kNV;
        return !unordered && a == b;
    }
    if (unordered) {  // flt, fle: signalling
        flags |= kNV;
        return 0;
    }
    return kind == 1 ? a < b : a <= b;
}

// RMM (round to nearest, ties to max magnitude) has no host mode. Its result differs from
// round-to-nearest-even only when the exact result lies exactly halfway between two neighbours,
// and then both raise the same flags; so an RMM operation is computed in RNE and corrected at
// ties. `odd` is the exact result rounded to odd in long double (x87: 64 bits, at least the
// target's precision + 2), which is halfway exactly when the exact result is (Boldo and Melquiond,
// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd", 2008).
static_assert(std::numeric_limits<long double>::digits >= 55, "round-to-odd needs 55 bits or more");

template <typename Compute> inline long double roundToOdd(Compute compute) {
    std::fesetround(FE_TOWARDZERO);
    clearHostFlags();
    // Volatile: the compiler may treat a math function as free of side effects and move its call
    // past the flag test; the store pins it before.
    volatile long double computed = compute();
    const bool inexact = std::fetestexcept(FE_INEXACT);
    long double r = computed;
    std::fesetround(FE_TONEAREST);
    if (inexact && std::isfinite(r) && r != 0) {
        int exponent;
        const long double fraction = std::frexp(std::fabs(r), &exponent);
        const auto mantissa = static_cast<std::uint64_t>(std::ldexp(fraction, 64));
        if (!(mantissa & 1))  // truncated to an even last bit: the odd neighbour away from zero
            r = std::nextafter(r, r < 0 ? -std::numeric_limits<long double>::infinity()
                                        : std::numeric_limits<long double>::infinity());
    }
    return r;
}

template <typename T> inline T tiesAway(T nearest, long double odd) {
    if (!std::isfinite(nearest) || static_cast<long double>(nearest) == odd)
        return nearest;
    const T other = std::nextafter(nearest, static_cast<long double>(nearest) < odd
                                                ? std::numeric_limits<T>::infinity()
                                                : -std::numeric_limits<T>::infinity());
    if (!std::isfinite(other))
        return nearest;
    const long double half = (static_cast<long double>(nearest) + static_cast<long double>(other)) / 2;
    if (odd != half)
        return nearest;
    return std::fabs(other) > std::fabs(nearest) ? other : nearest;
}

}  // namespace tessim::riscv::fp
