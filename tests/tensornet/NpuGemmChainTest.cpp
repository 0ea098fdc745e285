// The npu form of TT and TR layers end to end on real INT8 data: the planned GEMM shapes (planGemms,
// ring index batched), applied one after the other with the reshapes as gathers, equal the dense
// layer rebuilt from the same cores exactly (no requantisation), and with the array's INT8
// requantisation after every step equal, bit for bit, the einsum chain requantised alike. Every
// candidate order is checked, both directions and every break of the ring.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/tensornet/ContractionPlan.h"
#include "analysis/tensornet/NpuGemmChain.h"
#include "analysis/tensornet/TnLayer.h"
#include "analysis/tensornet/TnWorkloads.h"

namespace tessim::tn {
namespace {

// A shift per step of scale 2^30 / 2^shift ≈ 1 / √K: K products with core values of spread 2 grow
// the values' spread about 2× a step, from the input's [−8, 7] to dozens of LSB, mostly unsaturated.
Requant int8Requant(const ContractionPlan& plan) {
    Requant q;
    q.enabled = true;
    for (const Gemm& g : planGemms(plan))
        q.shifts.push_back(30 + static_cast<unsigned>(std::lround(std::log2(std::sqrt(double(g.k))))));
    return q;
}

void checkEveryOrder(const TnLayer& layer, std::uint64_t rows) {
    const auto candidates = contractionCandidates(layer, 1);
    ASSERT_GE(candidates.size(), 2u);
    for (std::size_t p = 0; p < candidates.size(); ++p) {
        const ContractionPlan& plan = candidates[p];
        SCOPED_TRACE(layer.describe() + " " + plan.name(layer.format));
        const ChainData data = chainTestData(plan, rows, 7 + p);
        const auto dense = runDense(plan, rows, data);
        ASSERT_EQ(dense.size(), rows * layer.outSize());
        EXPECT_EQ(runGemmChain(plan, rows, data, Requant{}), dense);
        const Requant q = int8Requant(plan);
        const auto gemm = runGemmChain(plan, rows, data, q);
        EXPECT_EQ(gemm, runEinsumChain(plan, rows, data, q));
        // INT8 outputs, not all saturated or zero: the requantisation keeps some information.
        unsigned inside = 0;
        for (auto v : gemm) {
            EXPECT_GE(v, -128);
            EXPECT_LE(v, 127);
            inside += (v > -128 && v < 127 && v != 0) ? 1 : 0;
        }
        EXPECT_GT(inside, gemm.size() / 8);
    }
}

TEST(NpuGemmChain, TensorTrainConvEqualsTheDenseLayerInEveryOrder) {
    // [6, 4, 3, 3] as six cores: outputs 2, 3; inputs 2, 2; the kernel 3, 3. 5 rows.
    checkEveryOrder(
        convLayer("c", Format::TT, 6, 4, 3, 3, {2, 3}, {2, 2}, Spatial::Split, {2, 3, 2, 3, 2}, 5), 5);
}

TEST(NpuGemmChain, TensorRingConvEqualsTheTraceInEveryOrderAndBreak) {
    checkEveryOrder(
        convLayer("c", Format::TR, 6, 4, 3, 3, {2, 3}, {2, 2}, Spatial::Split, {2, 3, 2, 2, 3, 2}, 4), 4);
}

TEST(NpuGemmChain, TensorTrainMatrixFcEqualsTheDenseLayer) {
    // TT-matrix pairing: each core holds an input and an output factor.
    checkEveryOrder(fcLayer("f", Format::TT, 12, 10, {3, 4}, {2, 5}, Pairing::Matrix, {3}, 3), 3);
    checkEveryOrder(fcLayer("f", Format::TR, 12, 10, {3, 4}, {2, 5}, Pairing::Matrix, {2, 3}, 3), 3);
}

TEST(NpuGemmChain, AGemmOfTheWrongShapeIsRefused) {
    const TnLayer l =
        convLayer("c", Format::TR, 6, 4, 3, 3, {2, 3}, {2, 2}, Spatial::Split, {2, 2, 2, 2, 2, 2}, 2);
    ContractionPlan plan = chooseContraction(l, Objective::Flops, 1);
    const ChainData data = chainTestData(plan, 2, 1);
    plan.steps[1].einsum.b += 1;  // a planned GEMM one row taller than the state it is applied to
    EXPECT_THROW(runGemmChain(plan, 2, data, Requant{}), std::invalid_argument);
}

}  // namespace
}  // namespace tessim::tn
