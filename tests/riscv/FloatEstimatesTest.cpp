// vfrec7/vfrsqrt7 against the specification's own examples and special-case table (riscv-v-spec,
// "Vector Floating-Point Reciprocal (Square-Root) Estimate Instruction"); VectorDifferential
// compares them with qemu on random operands.
#include <gtest/gtest.h>

#include "models/riscv/FloatEstimates.h"

namespace tessim::riscv::fp {
namespace {

TEST(FloatEstimates, TheSpecificationsExamples) {
    std::uint32_t flags = 0;
    EXPECT_EQ(reciprocalSquareRootEstimate(4, 0x00718abc, flags), 0x5f080000u);
    EXPECT_EQ(reciprocalSquareRootEstimate(4, 0x7f765432, flags), 0x1f820000u);
    EXPECT_EQ(reciprocalEstimate(4, 0x00718abc, 0, flags), 0x7e900000u);
    EXPECT_EQ(reciprocalEstimate(4, 0x7f765432, 0, flags), 0x00214000u);
    EXPECT_EQ(flags, 0u);
    // 1.0: the tables' first entries (127 and, for an even exponent, 127 at index 64).
    EXPECT_EQ(reciprocalEstimate(4, 0x3f800000, 0, flags), 0x3f7f0000u);
    EXPECT_EQ(reciprocalEstimate(8, 0x3ff0000000000000, 0, flags), 0x3fefe00000000000u);
    EXPECT_EQ(reciprocalEstimate(2, 0x3c00, 0, flags), 0x3bf8u);
}

TEST(FloatEstimates, SpecialCasesRaiseTheSpecifiedFlags) {
    std::uint32_t flags = 0;
    EXPECT_EQ(reciprocalEstimate(4, 0x80000000, 0, flags), 0xff800000u);  // −0 → −∞
    EXPECT_EQ(flags, kDZ);
    flags = 0;
    EXPECT_EQ(reciprocalEstimate(4, 0xff800000, 0, flags), 0x80000000u);  // −∞ → −0
    EXPECT_EQ(reciprocalSquareRootEstimate(4, 0x7f800000, flags), 0u);    // +∞ → +0
    EXPECT_EQ(flags, 0u);
    EXPECT_EQ(reciprocalSquareRootEstimate(4, 0xbf800000, flags), 0x7fc00000u);  // −1 → NaN
    EXPECT_EQ(flags, kNV);
    flags = 0;
    EXPECT_EQ(reciprocalEstimate(4, 0x7fc00000, 0, flags), 0x7fc00000u);  // qNaN: no flag
    EXPECT_EQ(flags, 0u);
    EXPECT_EQ(reciprocalEstimate(4, 0x7f800001, 0, flags), 0x7fc00000u);  // sNaN: NV
    EXPECT_EQ(flags, kNV);
}

// A subnormal below 2^-(B+1) overflows: to ∞ or the greatest finite value by rounding mode.
TEST(FloatEstimates, TinySubnormalsOverflowByRoundingMode) {
    const std::uint32_t tiny = 0x00000001;
    const std::pair<unsigned, std::uint64_t> positive[] = {
        {0, 0x7f800000}, {1, 0x7f7fffff}, {2, 0x7f7fffff}, {3, 0x7f800000}, {4, 0x7f800000}};
    for (const auto& [rm, want] : positive) {
        std::uint32_t flags = 0;
        EXPECT_EQ(reciprocalEstimate(4, tiny, rm, flags), want) << rm;
        EXPECT_EQ(flags, kOF | kNX) << rm;
    }
    const std::pair<unsigned, std::uint64_t> negative[] = {
        {0, 0xff800000}, {1, 0xff7fffff}, {2, 0xff800000}, {3, 0xff7fffff}, {4, 0xff800000}};
    for (const auto& [rm, want] : negative) {
        std::uint32_t flags = 0;
        EXPECT_EQ(reciprocalEstimate(4, 0x80000000u | tiny, rm, flags), want) << rm;
    }
    // 2^-(B+1) itself (subnormal 0x00200000) still has a normal reciprocal near 2^(B+1).
    std::uint32_t flags = 0;
    EXPECT_EQ(reciprocalEstimate(4, 0x00200000, 0, flags), 0x7f7f0000u);
    EXPECT_EQ(flags, 0u);
}

}  // namespace
}  // namespace tessim::riscv::fp
