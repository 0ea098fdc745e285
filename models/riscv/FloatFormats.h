// Binary16, binary32 and binary64 computed through long double, for the vector FP the host has no
// direct instruction for (Zvfh's half precision, widening, narrowing and conversions): a value's
// exact long double, and rounding a long double to a format in any RISC-V rounding mode with its
// flags (tininess detected after rounding, as RISC-V does). An operation computes its exact result
// rounded to odd in long double (64 bits, FloatRules.h roundToOdd) and then rounds that to the
// format: correct in every mode, since 64 bits are at least the format's precision + 2.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "models/riscv/FloatRules.h"

namespace tessim::riscv::fp {

struct FloatFormat {
    int precision;  // significand bits, the hidden one included
    int emin;       // exponent of the smallest normal
    int bias;
    int exponentBits;
    unsigned bytes;
};
constexpr FloatFormat kHalf{11, -14, 15, 5, 2};
constexpr FloatFormat kSingle{24, -126, 127, 8, 4};
constexpr FloatFormat kDouble{53, -1022, 1023, 11, 8};

inline const FloatFormat& formatOf(unsigned bytes) {
    return bytes == 2 ? kHalf : bytes == 4 ? kSingle : kDouble;
}

inline std::uint64_t signBit(const FloatFormat& f) {
    return std::uint64_t{1} << (8 * f.bytes - 1);
}
inline std::uint64_t exponentMask(const FloatFormat& f) {
    return ((std::uint64_t{1} << f.exponentBits) - 1) << (f.precision - 1);
}
inline std::uint64_t mantissaMask(const FloatFormat& f) {
    return (std::uint64_t{1} << (f.precision - 1)) - 1;
}
inline bool isNaNOf(std::uint64_t b, const FloatFormat& f) {
    return (b & exponentMask(f)) == exponentMask(f) && (b & mantissaMask(f));
}
inline bool isSignallingOf(std::uint64_t b, const FloatFormat& f) {
    return isNaNOf(b, f) && !(b & (std::uint64_t{1} << (f.precision - 2)));
}
inline std::uint64_t canonicalNaNOf(const FloatFormat& f) {
    return exponentMask(f) | (std::uint64_t{1} << (f.precision - 2));
}

// Whether a magnitude n + fraction (n integral, 0 ≤ fraction < 1) of the given sign rounds to
// n + 1 under rm (0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM) rather than to n.
inline bool roundsAway(long double n, long double fraction, bool negative, unsigned rm) {
    switch (rm) {
    case 0: return fraction > 0.5L || (fraction == 0.5L && std::fmod(n, 2.0L) == 1.0L);
    case 1: return false;
    case 2: return negative && fraction != 0;
    case 3: return !negative && fraction != 0;
    default: return fraction >= 0.5L;
    }
}

// The exact value of a format's bits (a NaN: a quiet long double NaN).
inline long double valueOf(std::uint64_t b, const FloatFormat& f) {
    const bool negative = b & signBit(f);
    const auto exponent = static_cast<int>((b & exponentMask(f)) >> (f.precision - 1));
    const std::uint64_t mantissa = b & mantissaMask(f);
    long double v;
    if (exponent == (1 << f.exponentBits) - 1)
        v = mantissa ? std::numeric_limits<long double>::quiet_NaN()
                     : std::numeric_limits<long double>::infinity();
    else if (exponent == 0)
        v = std::ldexp(static_cast<long double>(mantissa), f.emin - (f.precision - 1));
    else
        v = std::ldexp(static_cast<long double>(mantissa | (std::uint64_t{1} << (f.precision - 1))),
                       exponent - f.bias - (f.precision - 1));
    return negative ? -v : v;
}

// v rounded to the format under rm (0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM); NX, UF and OF into flags.
// A NaN gives the canonical NaN (the caller raises NV where an operand was signalling).
inline std::uint64_t roundTo(long double v, const FloatFormat& f, unsigned rm, std::uint32_t& flags) {
    if (std::isnan(v))
        return canonicalNaNOf(f);
    const bool negative = std::signbit(v);
    const std::uint64_t sign = negative ? signBit(f) : 0;
    const long double a = std::fabs(v);
    if (a == 0)
        return sign;
    if (std::isinf(a))
        return sign | exponentMask(f);
    int e = 0;
    (void)std::frexp(a, &e);
    const int exponent = e - 1;  // a in [2^exponent, 2^(exponent + 1))
    auto roundAt = [&](int quantum, bool& inexact) {
        const long double q = std::ldexp(a, -quantum);
        const long double n = std::floor(q);
        const long double fraction = q - n;
        inexact = fraction != 0;
        return std::ldexp(n + (roundsAway(n, fraction, negative, rm) ? 1 : 0), quantum);
    };
    const int p = f.precision;
    const long double smallestNormal = std::ldexp(1.0L, f.emin);
    bool inexactUnbounded = false, inexact = false;
    const bool tiny = roundAt(exponent - (p - 1), inexactUnbounded) < smallestNormal;
    const long double r = roundAt(std::max(exponent, f.emin) - (p - 1), inexact);
    const long double maxFinite = std::ldexp(std::ldexp(1.0L, p) - 1, f.bias - (p - 1));
    if (r > maxFinite) {
        flags |= kOF | kNX;
        const bool toMax = rm == 1 || (rm == 2 && !negative) || (rm == 3 && negative);
        const std::uint64_t largest = (exponentMask(f) - (std::uint64_t{1} << (p - 1))) | mantissaMask(f);
        return sign | (toMax ? largest : exponentMask(f));
    }
    if (inexact) {
        flags |= kNX;
        if (tiny)
            flags |= kUF;
    }
    if (r < smallestNormal)
        return sign | static_cast<std::uint64_t>(std::ldexp(r, -(f.emin - (p - 1))));
    int re = 0;
    (void)std::frexp(r, &re);
    const auto biased = static_cast<std::uint64_t>(re - 1 + f.bias);
    const auto mantissa =
        static_cast<std::uint64_t>(std::ldexp(r, -(re - 1) + (p - 1))) - (std::uint64_t{1} << (p - 1));
    return sign | (biased << (p - 1)) | mantissa;
}

// fclass of a format's bits: one bit of ten.
inline std::uint64_t classifyOf(std::uint64_t b, const FloatFormat& f) {
    const bool negative = b & signBit(f);
    const std::uint64_t exponent = b & exponentMask(f), mantissa = b & mantissaMask(f);
    if (exponent == exponentMask(f))
        return mantissa ? (isSignallingOf(b, f) ? 1u << 8 : 1u << 9) : negative ? 1u << 0 : 1u << 7;
    if (exponent == 0)
        return mantissa ? (negative ? 1u << 2 : 1u << 5) : (negative ? 1u << 3 : 1u << 4);
    return negative ? 1u << 1 : 1u << 6;
}

// compute()'s exact result rounded to the format under rm: NV and DZ from the host (an
// operand that is a signalling NaN raises NV as well), NX, UF and OF from the rounding.
template <typename Compute>
std::uint64_t softRounded(Compute compute, bool signallingOperand, const FloatFormat& f, unsigned rm,
                          std::uint32_t& flags) {
    if (signallingOperand)
        flags |= kNV;
    // The probe in the instruction's mode gives NV and DZ, and the sign of an exact zero (x − x is
    // −0 when rounding down, +0 otherwise).
    std::fesetround(kHostMode[rm]);
    clearHostFlags();
    volatile long double probe = compute();
    flags |= hostFlags() & (kNV | kDZ);
    const long double odd = roundToOdd(compute);  // leaves the host rounding to nearest
    if (odd == 0 && !std::isnan(probe))
        return std::signbit(probe) ? signBit(f) : 0;
    return roundTo(odd, f, rm, flags);
}

// An integral value of v under rm (for conversions to integers).
inline long double roundToIntegral(long double v, unsigned rm, bool& inexact) {
    const bool negative = std::signbit(v);
    const long double a = std::fabs(v);
    const long double n = std::floor(a);
    const long double fraction = a - n;
    inexact = fraction != 0;
    const long double r = n + (roundsAway(n, fraction, negative, rm) ? 1 : 0);
    return negative ? -r : r;
}

}  // namespace tessim::riscv::fp
