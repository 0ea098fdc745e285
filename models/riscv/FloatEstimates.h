// vfrec7.v and vfrsqrt7.v: the 7-bit reciprocal and reciprocal square-root estimates of RVV 1.0
// (riscv-v-spec v-spec.adoc, "Vector Floating-Point Reciprocal (Square-Root) Estimate
// Instruction"), bit for bit at SEW 16, 32 and 64: subnormal inputs normalised, the significand's
// high bits (and for vfrsqrt7 the exponent's low bit) looked up in the specification's tables,
// the exponent chosen so the result approximates 1/x or 1/sqrt(x), the special cases of its
// tables (zeros, infinities, NaNs, negative inputs, overflow by rounding mode).
#pragma once

#include <cstdint>

#include "models/riscv/FloatRules.h"

namespace tessim::riscv::fp {

// A binary floating-point format: exponent and fraction widths.
struct EstimateFormat {
    unsigned exponentBits, fractionBits;
    std::uint64_t bias() const { return (std::uint64_t{1} << (exponentBits - 1)) - 1; }
    std::uint64_t fractionMask() const { return (std::uint64_t{1} << fractionBits) - 1; }
    std::uint64_t exponentMask() const { return (std::uint64_t{1} << exponentBits) - 1; }
    std::uint64_t signBit() const { return std::uint64_t{1} << (exponentBits + fractionBits); }
    std::uint64_t canonicalNaN() const {
        return (exponentMask() << fractionBits) | (std::uint64_t{1} << (fractionBits - 1));
    }
    std::uint64_t infinity() const { return exponentMask() << fractionBits; }
};

inline EstimateFormat estimateFormat(unsigned sewBytes) {
    return sewBytes == 2   ? EstimateFormat{5, 10}
           : sewBytes == 4 ? EstimateFormat{8, 23}
                           : EstimateFormat{11, 52};
}

// The specification's lookup tables (vfrec7.adoc: by the 7 high significand bits; vfrsqrt7.adoc:
// by the exponent's low bit, then the 6 high significand bits).
constexpr std::uint8_t kRec7[128] = {
    127, 125, 123, 121, 119, 117, 116, 114, 112, 110, 109, 107, 105, 104, 102, 100, 99, 97, 96, 94, 93, 91,
    90,  88,  87,  85,  84,  83,  81,  80,  79,  77,  76,  75,  74,  72,  71,  70,  69, 68, 66, 65, 64, 63,
    62,  61,  60,  59,  58,  57,  56,  55,  54,  53,  52,  51,  50,  49,  48,  47,  46, 45, 44, 43, 42, 41,
    40,  40,  39,  38,  37,  36,  35,  35,  34,  33,  32,  31,  31,  30,  29,  28,  28, 27, 26, 25, 25, 24,
    23,  23,  22,  21,  21,  20,  19,  19,  18,  17,  17,  16,  15,  15,  14,  14,  13, 12, 12, 11, 11, 10,
    9,   9,   8,   8,   7,   7,   6,   5,   5,   4,   4,   3,   3,   2,   2,   1,   1,  0};
constexpr std::uint8_t kRsqrt7[128] = {
    52,  51,  50,  48,  47,  46,  44,  43,  42,  41,  40,  39,  38,  36,  35,  34, 33, 32, 31, 30, 30,  29,
    28,  27,  26,  25,  24,  23,  23,  22,  21,  20,  19,  19,  18,  17,  16,  16, 15, 14, 14, 13, 12,  12,
    11,  10,  10,  9,   9,   8,   7,   7,   6,   6,   5,   4,   4,   3,   3,   2,  2,  1,  1,  0,  127, 125,
    123, 121, 119, 118, 116, 114, 113, 111, 109, 108, 106, 105, 103, 102, 100, 99, 97, 96, 95, 93, 92,  91,
    90,  88,  87,  86,  85,  84,  83,  82,  80,  79,  78,  77,  76,  75,  74,  73, 72, 71, 70, 70, 69,  68,
    67,  66,  65,  64,  63,  63,  62,  61,  60,  59,  59,  58,  57,  56,  56,  55, 54, 53};

// The normalised exponent and significand (leading one dropped) of a nonzero finite magnitude:
// a subnormal's exponent is 0 minus its significand's leading zeros.
inline void normalise(const EstimateFormat& f, std::uint64_t magnitude, std::int64_t& exponent,
                      std::uint64_t& significand) {
    exponent = static_cast<std::int64_t>(magnitude >> f.fractionBits);
    significand = magnitude & f.fractionMask();
    if (exponent == 0) {
        while (!(significand & (std::uint64_t{1} << (f.fractionBits - 1)))) {
            significand <<= 1;
            --exponent;
        }
        significand = (significand << 1) & f.fractionMask();
    }
}

// Classifies a special input: true (with the result and flags) for NaNs, zeros and infinities.
inline bool estimateSpecial(const EstimateFormat& f, std::uint64_t x, bool reciprocalSquareRoot,
                            std::uint64_t& result, std::uint32_t& flags) {
    const std::uint64_t sign = x & f.signBit(), magnitude = x & ~f.signBit();
    if (magnitude > f.infinity()) {  // NaN: signalling when the fraction's high bit is clear
        if (!(magnitude & (std::uint64_t{1} << (f.fractionBits - 1))))
            flags |= kNV;
        result = f.canonicalNaN();
        return true;
    }
    if (magnitude == 0) {
        flags |= kDZ;
        result = sign | f.infinity();
        return true;
    }
    if (reciprocalSquareRoot && sign) {  // a negative number (−∞ included)
        flags |= kNV;
        result = f.canonicalNaN();
        return true;
    }
    if (magnitude == f.infinity()) {
        result = sign;
        return true;
    }
    return false;
}

inline std::uint64_t reciprocalSquareRootEstimate(unsigned sewBytes, std::uint64_t x, std::uint32_t& flags) {
    const EstimateFormat f = estimateFormat(sewBytes);
    std::uint64_t result = 0;
    if (estimateSpecial(f, x, true, result, flags))
        return result;
    std::int64_t exponent = 0;
    std::uint64_t significand = 0;
    normalise(f, x, exponent, significand);
    const unsigned index =
        static_cast<unsigned>(((exponent & 1) << 6) | (significand >> (f.fractionBits - 6)));
    const auto outExponent =
        static_cast<std::uint64_t>((3 * static_cast<std::int64_t>(f.bias()) - 1 - exponent) / 2);
    return (outExponent << f.fractionBits) | (std::uint64_t{kRsqrt7[index]} << (f.fractionBits - 7));
}

// `rm`: the dynamic rounding mode (0 RNE, 1 RTZ, 2 RDN, 3 RUP, 4 RMM), which decides an overflow.
inline std::uint64_t reciprocalEstimate(unsigned sewBytes, std::uint64_t x, unsigned rm,
                                        std::uint32_t& flags) {
    const EstimateFormat f = estimateFormat(sewBytes);
    std::uint64_t result = 0;
    if (estimateSpecial(f, x, false, result, flags))
        return result;
    const std::uint64_t sign = x & f.signBit();
    std::int64_t exponent = 0;
    std::uint64_t significand = 0;
    normalise(f, x & ~f.signBit(), exponent, significand);
    const std::int64_t outExponent = 2 * static_cast<std::int64_t>(f.bias()) - 1 - exponent;
    if (outExponent > 2 * static_cast<std::int64_t>(f.bias())) {  // a tiny subnormal: overflow
        flags |= kOF | kNX;
        const bool toInfinity = sign ? (rm == 0 || rm == 2 || rm == 4) : (rm == 0 || rm == 3 || rm == 4);
        return sign | (toInfinity ? f.infinity() : f.infinity() - 1);
    }
    const std::uint64_t outSignificand = std::uint64_t{kRec7[significand >> (f.fractionBits - 7)]}
                                         << (f.fractionBits - 7);
    if (outExponent <= 0)  // 0 or −1: a subnormal result
        return sign | (((std::uint64_t{1} << f.fractionBits) | outSignificand) >> (1 - outExponent));
    return sign | (static_cast<std::uint64_t>(outExponent) << f.fractionBits) | outSignificand;
}

}  // namespace tessim::riscv::fp
