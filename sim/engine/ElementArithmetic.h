// Element arithmetic in the op's datatype, so functional runs are bit-exact against a plain C++
// reference that computes in the same type (float for f32, wrapping int32 for i32, ...).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "sim/ir/Op.h"

namespace tessim {

inline double roundTo(DType t, double v) {
    switch (t) {
    case DType::I8: return static_cast<double>(static_cast<std::int8_t>(static_cast<std::int64_t>(v)));
    case DType::I16: return static_cast<double>(static_cast<std::int16_t>(static_cast<std::int64_t>(v)));
    case DType::I32: return static_cast<double>(static_cast<std::int32_t>(static_cast<std::int64_t>(v)));
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F64: return v;
    case DType::F16: break;
    }
    throw std::runtime_error("functional execution does not support f16 yet");
}

inline double fmaIn(DType t, double a, double b, double c) {
    if (t == DType::F32) {
        float p = static_cast<float>(a) * static_cast<float>(b);
        return static_cast<double>(p + static_cast<float>(c));
    }
    if (t == DType::F64)
        return a * b + c;
    // Integer types wrap like the hardware (int64 intermediate, then truncate to width).
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b) +
                                          static_cast<std::int64_t>(c)));
}

inline double mulIn(DType t, double a, double b) {
    if (t == DType::F32)
        return static_cast<double>(static_cast<float>(a) * static_cast<float>(b));
    if (t == DType::F64)
        return a * b;
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b)));
}

inline double addIn(DType t, double a, double b) {
    if (t == DType::F32)
        return static_cast<double>(static_cast<float>(a) + static_cast<float>(b));
    if (t == DType::F64)
        return a + b;
    return roundTo(t, static_cast<double>(static_cast<std::int64_t>(a) + static_cast<std::int64_t>(b)));
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
    case DType::F16: break;
    }
    throw std::runtime_error("functional execution does not support f16 yet");
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
    case DType::F16: break;
    }
    throw std::runtime_error("functional execution does not support f16 yet");
}

}  // namespace tessim
