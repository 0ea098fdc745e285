// Element arithmetic in the op's datatype, so functional runs are bit-exact against a plain C++
// reference that computes in the same type (_Float16 for f16, float for f32, wrapping int32 for
// i32, ...). Every operation rounds once: operands of a type are exact in double, and so are the
// sum and the product of two f16 values, so computing in double and rounding the result gives
// the correctly rounded f16 result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sim/ir/Op.h"

namespace tessim {

namespace detail {

// Round a non-negative value to an integer, ties to even (independent of the FP rounding mode).
inline double roundHalfEven(double v) {
    const double down = std::floor(v);
    const double rest = v - down;  // exact: v and down are close
    if (rest > 0.5 || (rest == 0.5 && std::fmod(down, 2.0) != 0.0))
        return down + 1.0;
    return down;
}

}  // namespace detail

// IEEE 754 binary16 bits of v, rounded to nearest even (software: no dependence on _Float16).
inline std::uint16_t halfBits(double v) {
    if (std::isnan(v))
        return 0x7E00;
    const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    const double a = std::fabs(v);
    if (std::isinf(a))
        return static_cast<std::uint16_t>(sign | 0x7C00);
    if (a < 0x1p-14) {  // subnormal: multiples of 2^-24; 1024 of them round up to the least normal
        return static_cast<std::uint16_t>(sign |
                                          static_cast<std::uint16_t>(detail::roundHalfEven(a * 0x1p24)));
    }
    int e = 0;
    std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1): the leading bit has weight 2^(e − 1)
    int exponent = e - 1;
    double significand = detail::roundHalfEven(std::ldexp(a, 10 - exponent));  // in [1024, 2048]
    if (significand == 2048.0) {
        significand = 1024.0;
        ++exponent;
    }
    if (exponent > 15)
        return static_cast<std::uint16_t>(sign | 0x7C00);  // overflow: infinity
    return static_cast<std::uint16_t>(sign | ((exponent + 15) << 10) |
                                      (static_cast<unsigned>(significand) - 1024u));
}

inline double halfValue(std::uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1F;
    const unsigned mantissa = bits & 0x3FF;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<double>(mantissa), -24);
    else if (exponent == 31)
        magnitude = mantissa ? std::nan("") : HUGE_VAL;
    else
        magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
    return (bits & 0x8000) ? -magnitude : magnitude;
}

// The datatype a widening op (vfwmacc) writes: twice the sources' width.
inline DType widenedType(DType t) {
    switch (t) {
    case DType::I8: return DType::I16;
    case DType::I16: return DType::I32;
    case DType::F16: return DType::F32;
    case DType::F32: return DType::F64;
    case DType::I32:
    case DType::F64: break;
    }
    throw std::runtime_error("a widening op needs i8, i16, f16 or f32 sources, not " +
                             std::string(dtypeName(t)));
}

inline double roundTo(DType t, double v) {
    switch (t) {
    case DType::I8: return static_cast<double>(static_cast<std::int8_t>(static_cast<std::int64_t>(v)));
    case DType::I16: return static_cast<double>(static_cast<std::int16_t>(static_cast<std::int64_t>(v)));
    case DType::I32: return static_cast<double>(static_cast<std::int32_t>(static_cast<std::int64_t>(v)));
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F64: return v;
    case DType::F16: return halfValue(halfBits(v));
    }
    return v;
}

// Not fused, as the f32 case: the product rounds to the type, then the sum does.
inline double fmaIn(DType t, double a, double b, double c) {
    if (t == DType::F32) {
        float p = static_cast<float>(a) * static_cast<float>(b);
        return static_cast<double>(p + static_cast<float>(c));
    }
    if (t == DType::F64)
        return a * b + c;
    if (t == DType::F16)
        return roundTo(t, roundTo(t, a * b) + c);
    // Integer types wrap like the hardware (int64 intermediate, then truncate to width).
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b) +
                                          static_cast<std::int64_t>(c)));
}

inline double mulIn(DType t, double a, double b) {
    if (t == DType::F32)
        return static_cast<double>(static_cast<float>(a) * static_cast<float>(b));
    if (t == DType::F64)
        return a * b;
    if (t == DType::F16)
        return roundTo(t, a * b);
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b)));
}

inline double addIn(DType t, double a, double b) {
    if (t == DType::F32)
        return static_cast<double>(static_cast<float>(a) + static_cast<float>(b));
    if (t == DType::F64)
        return a + b;
    if (t == DType::F16)
        return roundTo(t, a + b);
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) + static_cast<std::int64_t>(b)));
}

// FP: the quotient rounded once (exact in double for f16 and f32 operands up to that rounding,
// which a double quotient rounded to f32 never doubles: 53 ≥ 2·24 + 2). Integers: truncated towards
// zero (the double quotient of two values below 2^31 never crosses an integer) and wrapped to the
// width; a divide by zero gives all ones (−1), as RISC-V's div does.
inline double divIn(DType t, double a, double b) {
    if (t == DType::F16 || t == DType::F32 || t == DType::F64)
        return roundTo(t, a / b);
    return b == 0 ? -1.0 : roundTo(t, std::trunc(a / b));
}

// A reciprocal estimate (FP types): 1/a with its significand rounded to 8 bits (7 after the
// leading one, the precision of RVV's vfrec7.v and of DSP seeds such as the C66x's RCPSP; the
// RVV table's exact bits are not modelled), then to t. ±0 gives ±infinity, ±infinity ±0.
inline double recipEstimateIn(DType t, double a) {
    if (a == 0.0 || std::isinf(a) || std::isnan(a))
        return roundTo(t, 1.0 / a);
    int e = 0;
    const double m = std::frexp(1.0 / a, &e);  // |m| in [0.5, 1)
    return roundTo(t, std::ldexp(std::nearbyint(m * 256.0) / 256.0, e));
}

// A conversion to t (vfcvt, vfwcvt, vfncvt, vsext, vncvt): FP results rounded once; integer
// results rounded to nearest, ties to even (vfcvt.x.f.v under frm RNE), and saturated to the type's
// range (as vfcvt and vnclip saturate; an extension never needs it).
inline double convertIn(DType t, double v) {
    if (t == DType::F16 || t == DType::F32 || t == DType::F64)
        return roundTo(t, v);
    const unsigned bits = 8 * dtypeBytes(t);
    const double hi = std::ldexp(1.0, static_cast<int>(bits) - 1) - 1.0, lo = -hi - 1.0;
    if (std::isnan(v))
        return hi;  // RISC-V converts a NaN to the largest integer
    return std::clamp(std::nearbyint(v), lo, hi);
}

inline double decodeElement(DType t, const std::uint8_t* p) {
    switch (t) {
    case DType::I8: {
        std::int8_t v;
        std::memcpy(&v, p, 1);
        return v;
    }
    case DType::I16: {
        std::int16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    case DType::I32: {
        std::int32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::F32: {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    case DType::F64: {
        double v;
        std::memcpy(&v, p, 8);
        return v;
    }
    case DType::F16: {
        std::uint16_t bits;
        std::memcpy(&bits, p, 2);
        return halfValue(bits);
    }
    }
    return 0.0;
}

inline void encodeElement(DType t, double value, std::uint8_t* p) {
    switch (t) {
    case DType::I8: {
        auto v = static_cast<std::int8_t>(static_cast<std::int64_t>(value));
        std::memcpy(p, &v, 1);
        return;
    }
    case DType::I16: {
        auto v = static_cast<std::int16_t>(static_cast<std::int64_t>(value));
        std::memcpy(p, &v, 2);
        return;
    }
    case DType::I32: {
        auto v = static_cast<std::int32_t>(static_cast<std::int64_t>(value));
        std::memcpy(p, &v, 4);
        return;
    }
    case DType::F32: {
        auto v = static_cast<float>(value);
        std::memcpy(p, &v, 4);
        return;
    }
    case DType::F64: std::memcpy(p, &value, 8); return;
    case DType::F16: {
        const std::uint16_t bits = halfBits(value);
        std::memcpy(p, &bits, 2);
        return;
    }
    }
}

}  // namespace tessim
