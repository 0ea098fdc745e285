// TT and TR decompositions of conv and fc weights: core counts against closed forms, the shapes the
// reshapes give, and bad ranks refused.
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/tensornet/TnLayer.h"

namespace tessim::tn {
namespace {

TEST(TnLayer, SeedConvAsTensorTrainHasTheClosedFormCount) {
    // [64, 32, 3, 3], r = [1, 2, 16, 4, 1]: 1·64·2 + 2·32·16 + 16·3·4 + 4·3·1.
    const TnLayer l = convLayer("c", Format::TT, 64, 32, 3, 3, {}, {}, Spatial::Split, {2, 16, 4}, 1024);
    EXPECT_EQ(l.d(), 4u);
    EXPECT_EQ(l.parameters(), 128u + 1024u + 192u + 12u);
    EXPECT_EQ(l.denseParameters(), 18432u);
    EXPECT_DOUBLE_EQ(l.compression(), 18432.0 / 1356.0);
    EXPECT_EQ(l.denseFlops(), 2u * 1024u * 18432u);
    // Merging core 0 (64) with core 1 (32), then core 2 (3), then core 3 (3).
    EXPECT_EQ(l.reconstructionFlops(),
              2u * 64 * 2 * 32 * 16 + 2u * 64 * 32 * 16 * 3 * 4 + 2u * 64 * 32 * 3 * 4 * 3);
    EXPECT_EQ(l.out, (std::vector<std::uint64_t>{64, 1, 1, 1}));
    EXPECT_EQ(l.in, (std::vector<std::uint64_t>{1, 32, 3, 3}));
}

TEST(TnLayer, SeedConvAsTensorRingHasTheClosedFormCount) {
    // r = 8 everywhere: 8²·(64 + 32 + 3 + 3).
    const TnLayer l = convLayer("c", Format::TR, 64, 32, 3, 3, {}, {}, Spatial::Split, {8, 8, 8, 8}, 1);
    EXPECT_EQ(l.ranks, (std::vector<std::uint64_t>{8, 8, 8, 8, 8}));
    EXPECT_EQ(l.parameters(), 64u * (64 + 32 + 3 + 3));
    // With the ring index open: 2·8·64·8·32·8 + 2·8·2048·8·3·8 + 2·8·6144·8·3·8, and the trace's adds.
    EXPECT_EQ(l.reconstructionFlops(),
              2u * 8 * 64 * 8 * 32 * 8 + 2u * 8 * 2048 * 8 * 3 * 8 + 2u * 8 * 6144 * 8 * 3 * 8 + 18432u * 7);
}

TEST(TnLayer, ReshapesGiveOneCorePerFactor) {
    // The seed's 6-way split [8, 8, 4, 8, 3, 3]; merged kernel: [8, 8, 4, 8, 9].
    const TnLayer split =
        convLayer("c", Format::TT, 64, 32, 3, 3, {8, 8}, {4, 8}, Spatial::Split, {4, 4, 4, 4, 4}, 1);
    EXPECT_EQ(split.d(), 6u);
    EXPECT_EQ(split.parameters(), 8u * 4 + 4 * 8 * 4 + 4 * 4 * 4 + 4 * 8 * 4 + 4 * 3 * 4 + 4 * 3);
    const TnLayer merged =
        convLayer("c", Format::TR, 64, 32, 3, 3, {8, 8}, {4, 8}, Spatial::Merged, {2, 2, 2, 2, 2}, 1);
    EXPECT_EQ(merged.d(), 5u);
    EXPECT_EQ(merged.in.back(), 9u);
    EXPECT_EQ(merged.parameters(), 4u * (8 + 8 + 4 + 8 + 9));
    // A 1×1 conv drops its spatial modes.
    const TnLayer pointwise = convLayer("p", Format::TT, 32, 32, 1, 1, {}, {}, Spatial::Split, {4}, 1);
    EXPECT_EQ(pointwise.d(), 2u);
    EXPECT_EQ(pointwise.parameters(), 32u * 4 + 4 * 32);
}

TEST(TnLayer, UniformRanksMatchTheirClosedFormsOnRandomShapes) {
    // TT, inner ranks r: r·(s_0 + s_{d−1}) + r²·Σ_middle s_c; TR, ranks r: r²·Σ s_c; s_c = n_c·m_c.
    std::mt19937_64 rng(15);
    for (int trial = 0; trial < 300; ++trial) {
        const unsigned d = 2 + rng() % 5;
        const std::uint64_t r = 1 + rng() % 12;
        std::vector<std::uint64_t> outModes, inModes;
        for (unsigned c = 0; c < d; ++c)
            (c % 2 ? inModes : outModes).push_back(2 + rng() % 7);
        std::uint64_t o = 1, i = 1, sum = 0;
        for (auto m : outModes)
            o *= m;
        for (auto n : inModes)
            i *= n;
        const TnLayer tt = fcLayer("f", Format::TT, o, i, outModes, inModes, Pairing::Modes,
                                   std::vector<std::uint64_t>(d - 1, r), 1);
        const TnLayer tr = fcLayer("f", Format::TR, o, i, outModes, inModes, Pairing::Modes,
                                   std::vector<std::uint64_t>(d, r), 1);
        std::vector<std::uint64_t> s;
        for (unsigned c = 0; c < d; ++c) {
            s.push_back(tt.in[c] * tt.out[c]);
            sum += s.back();
        }
        const std::uint64_t middle = sum - s.front() - s.back();
        EXPECT_EQ(tt.parameters(), r * (s.front() + s.back()) + r * r * middle) << tt.describe();
        EXPECT_EQ(tr.parameters(), r * r * sum) << tr.describe();
        EXPECT_EQ(tt.denseParameters(), o * i);
    }
}

TEST(TnLayer, MatrixPairingHoldsOneInAndOneOutFactorPerCore) {
    const TnLayer l = fcLayer("f", Format::TT, 300, 784, {5, 5, 3, 2, 2}, {2, 2, 2, 7, 14}, Pairing::Matrix,
                              {8, 8, 8, 8}, 1);
    // The seed-000 LeNet-300 example: 2·5·8 + 8·2·5·8 + 8·2·3·8 + 8·7·2·8 + 8·14·2·1.
    EXPECT_EQ(l.parameters(), 80u + 640u + 384u + 896u + 224u);
}

TEST(TnLayer, ImbalanceLeavesOutDimensionsOfOne) {
    EXPECT_DOUBLE_EQ(convLayer("a", Format::TT, 32, 32, 1, 1, {}, {}, Spatial::Split, {4}, 1).imbalance(),
                     1.0);
    EXPECT_DOUBLE_EQ(
        convLayer("b", Format::TT, 64, 3, 7, 7, {}, {}, Spatial::Split, {2, 2, 2}, 1).imbalance(),
        64.0 / 3.0);
}

TEST(TnLayer, BadRanksAndFactorsAreRefused) {
    EXPECT_THROW(convLayer("c", Format::TT, 64, 32, 3, 3, {}, {}, Spatial::Split, {2, 16, 4, 4}, 1),
                 std::invalid_argument);  // 4 ranks for a 4-core train
    EXPECT_THROW(convLayer("c", Format::TT, 64, 32, 3, 3, {}, {}, Spatial::Split, {2, 2, 16, 4, 2}, 1),
                 std::invalid_argument);  // outer ranks not 1
    EXPECT_THROW(convLayer("c", Format::TR, 64, 32, 3, 3, {}, {}, Spatial::Split, {2, 16, 4, 4, 8}, 1),
                 std::invalid_argument);  // ring ends differ
    EXPECT_THROW(convLayer("c", Format::TT, 64, 32, 3, 3, {8, 4}, {}, Spatial::Split, {2, 2, 2, 2}, 1),
                 std::invalid_argument);  // 8·4 ≠ 64
    EXPECT_THROW(convLayer("c", Format::TR, 64, 32, 3, 3, {}, {}, Spatial::Split, {0, 1, 1, 1}, 1),
                 std::invalid_argument);  // rank 0
    EXPECT_THROW(fcLayer("f", Format::TT, 12, 10, {3, 4}, {10}, Pairing::Matrix, {2}, 1),
                 std::invalid_argument);
    // FLOPs beyond 64-bit counts: 2^20 rows of a 2^20 x 2^20 layer.
    EXPECT_THROW(fcLayer("f", Format::TR, 1 << 20, 1 << 20, {1 << 10, 1 << 10}, {1 << 10, 1 << 10},
                         Pairing::Matrix, {64, 64}, 1 << 20),
                 std::invalid_argument);
}

TEST(TnLayer, BalancedFactorsSplitNearTheSquareRoot) {
    EXPECT_EQ(balancedFactors(64), (std::vector<std::uint64_t>{8, 8}));
    EXPECT_EQ(balancedFactors(128), (std::vector<std::uint64_t>{8, 16}));
    EXPECT_EQ(balancedFactors(3), (std::vector<std::uint64_t>{3}));
    EXPECT_EQ(convOutputPixels(224, 224, 7, 7, 2, 3), 112u * 112u);
}

}  // namespace
}  // namespace tessim::tn
