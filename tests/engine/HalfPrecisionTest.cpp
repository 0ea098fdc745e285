// binary16 in the engine's element arithmetic: the software conversion rounds to nearest even
// exactly as the compiler's _Float16 does, at ties, subnormals, overflow and across the range,
// and f16 add, multiply and (unfused) FMA equal plain C++ computing in the same order.
#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "sim/ir/ElementArithmetic.h"

namespace tessim {
namespace {

TEST(HalfPrecision, KnownValuesRoundToNearestEven) {
    EXPECT_EQ(halfBits(1.0), 0x3C00);
    EXPECT_EQ(halfBits(-2.0), 0xC000);
    EXPECT_EQ(halfBits(65504.0), 0x7BFF);            // the largest finite value
    EXPECT_EQ(halfBits(65519.99), 0x7BFF);           // below the tie with 65536
    EXPECT_EQ(halfBits(65520.0), 0x7C00);            // the tie rounds to even: infinity
    EXPECT_EQ(halfBits(1.0 + 0x1p-11), 0x3C00);      // tie between 1 and 1 + 2^-10: even (1)
    EXPECT_EQ(halfBits(1.0 + 3 * 0x1p-11), 0x3C02);  // tie between …01 and …10: even (…10)
    EXPECT_EQ(halfBits(0x1p-24), 0x0001);            // the least subnormal
    EXPECT_EQ(halfBits(0x1p-25), 0x0000);            // the tie with zero rounds to even: zero
    EXPECT_EQ(halfBits(0x1.8p-25), 0x0001);
    EXPECT_EQ(halfBits(0x1p-14 - 0x1p-26), 0x0400);  // rounds up to the least normal
    EXPECT_EQ(halfBits(-0.0), 0x8000);
    EXPECT_EQ(halfValue(0x3555), 0x1.554p-2);
    EXPECT_TRUE(std::isnan(halfValue(halfBits(std::nan("")))));
}

#ifdef __FLT16_MAX__
std::uint16_t bitsOf(_Float16 h) {
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}

// A reproducible spread of doubles over the f16 range and beyond (subnormals to overflow).
double sample(std::uint64_t k) {
    std::uint64_t z = (k + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 29)) * 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 32;
    const double mantissa = 1.0 + static_cast<double>(z & 0xFFFFFFFFFFFULL) / 0x1p44;
    const int exponent = static_cast<int>((z >> 44) % 48) - 30;  // 2^-30 … 2^17
    return ((z >> 60) & 1 ? -1.0 : 1.0) * std::ldexp(mantissa, exponent);
}

TEST(HalfPrecision, ConversionEqualsTheCompilersFloat16) {
    for (std::uint64_t k = 0; k < 200000; ++k) {
        const double v = sample(k);
        ASSERT_EQ(halfBits(v), bitsOf(static_cast<_Float16>(v))) << v;
    }
    for (std::uint32_t b = 0; b < 0x10000; ++b) {  // every f16 value converts back exactly
        const auto bits = static_cast<std::uint16_t>(b);
        _Float16 h;
        std::memcpy(&h, &bits, 2);
        if (!std::isnan(static_cast<double>(h))) {
            ASSERT_EQ(halfValue(bits), static_cast<double>(h)) << b;
        }
    }
}

TEST(HalfPrecision, ArithmeticEqualsPlainCxxInTheSameOrder) {
    // Each operation in float, then rounded to _Float16: float has 2·11 + 2 bits, so the double
    // rounding is exact for +, × (and the product of two f16 values is exact in float).
    auto h = [](double v) { return static_cast<_Float16>(v); };
    for (std::uint64_t k = 0; k < 100000; ++k) {
        const _Float16 a = h(sample(3 * k) * 0x1p-10), b = h(sample(3 * k + 1) * 0x1p-10),
                       c = h(sample(3 * k + 2) * 0x1p-10);
        const double da = static_cast<double>(a), db = static_cast<double>(b), dc = static_cast<double>(c);
        const auto sum = static_cast<_Float16>(static_cast<float>(a) + static_cast<float>(b));
        const auto product = static_cast<_Float16>(static_cast<float>(a) * static_cast<float>(b));
        const auto fma = static_cast<_Float16>(static_cast<float>(product) + static_cast<float>(c));
        ASSERT_EQ(addIn(DType::F16, da, db), static_cast<double>(sum)) << da << " + " << db;
        ASSERT_EQ(mulIn(DType::F16, da, db), static_cast<double>(product)) << da << " · " << db;
        ASSERT_EQ(fmaIn(DType::F16, da, db, dc), static_cast<double>(fma))
            << da << " · " << db << " + " << dc;
    }
}
#endif

}  // namespace
}  // namespace tessim
