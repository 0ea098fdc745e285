// Element-wise and pooling layers on the K1 (conv2d/rvv's RVV streams): in a layer list beside
// convolutions, every output of every operator equals the reference computed in the loop's order
// (--functional), on eight threads and three, in f32 and f16, with channel counts that leave a
// short strip and windows that overhang the padding; each layer is at or above its bounds; a
// pool whose padding reaches its window is refused at its key.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ArrayOnlyNpu.h"
#include "common/ProcessRunner.h"
#include "sim/ir/ElementArithmetic.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {
namespace {

using test::runTessim;

std::string writeWorkload(const std::string& tag, const std::string& layers) {
    const std::string path = "/tmp/tessim-rvv-vec-" + tag + "-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n" << layers;
    return path;
}

// 70 channels: a 64-element strip (f32, LMUL 8 of 256-bit registers) and a short one of 6.
const char* kEveryOp =
    "  - {name: conv, h: 9, w: 7, channels: 5, filters: 70, k: 3, pad: 1}\n"
    "  - {name: relu, op: Relu, h: 9, w: 7, channels: 70}\n"
    "  - {name: clip, op: Clip, h: 9, w: 7, channels: 70, min: -0.5, max: 0.75}\n"
    "  - {name: add, op: Add, h: 9, w: 7, channels: 70}\n"
    "  - {name: mul, op: Mul, h: 3, w: 1, channels: 1000}\n"
    "  - {name: maxpool, op: MaxPool, h: 9, w: 7, channels: 70, k: 3, stride: 2, pad: 1}\n"
    "  - {name: avgpool, op: AveragePool, h: 9, w: 7, channels: 70, kh: 2, kw: 3, pad_w: 1}\n"
    "  - {name: gap, op: GlobalAveragePool, h: 5, w: 3, channels: 130}\n"
    "  - {name: gmp, op: GlobalMaxPool, h: 4, w: 4, channels: 9}\n"
    "  - {name: scale, op: Mul, h: 5, w: 3, channels: 70, broadcast: channel}\n"
    "  - {name: bias, op: Add, h: 5, w: 3, channels: 70, broadcast: constant, value: 0.25}\n"
    "  - {name: hsig, op: HardSigmoid, h: 9, w: 7, channels: 70, alpha: 0.25, beta: 0.375}\n"
    "  - {name: hswish, op: HardSwish, h: 9, w: 7, channels: 70}\n"
    "  - {name: sub, op: Sub, h: 9, w: 7, channels: 70}\n"
    "  - {name: centre, op: Sub, h: 5, w: 3, channels: 70, broadcast: channel}\n"
    "  - {name: tanh, op: Tanh, h: 9, w: 7, channels: 70}\n"
    "  - {name: sigmoid, op: Sigmoid, h: 9, w: 7, channels: 70}\n"
    "  - {name: div, op: Div, h: 9, w: 7, channels: 70}\n"
    "  - {name: norm, op: Div, h: 5, w: 3, channels: 70, broadcast: channel}\n"
    "  - {name: after, h: 4, w: 4, channels: 8, filters: 8, k: 3, pad: 1}\n";  // GEMM registers intact

nlohmann::json run(const std::string& path, const std::string& sets) {
    const auto r = runTessim("run --target k1 --workload " + path + " --functional --format json " + sets);
    EXPECT_EQ(r.exitCode, 0) << sets << ": " << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

void expectEveryOutputEqualsTheReference(const std::string& sets, const std::string& dtype) {
    const std::string path = writeWorkload("all", kEveryOp);
    const auto j = run(path, sets);
    std::remove(path.c_str());
    ASSERT_FALSE(j.is_null());
    EXPECT_TRUE(j["functional"]["checked"].get<bool>());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    // Outputs: conv 9·7·70; relu, clip, add 9·7·70 each; mul 3000; maxpool 5·4·70; avgpool (9−2+1)·
    // (7+2−3+1)·70; the global pools one pixel of their channels.
    // scale and bias: 5·3·70 each.
    // hsig, hswish, sub 9·7·70 each; centre 5·3·70; tanh, sigmoid, div 9·7·70 each; norm 5·3·70;
    // the last convolution 4·4·8.
    EXPECT_EQ(j["functional"]["elements"],
              10 * 9 * 7 * 70 + 3000 + 5 * 4 * 70 + 8 * 7 * 70 + 130 + 9 + 4 * 5 * 3 * 70 + 4 * 4 * 8);
    ASSERT_EQ(j["layers"].size(), 20u);
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["dtype"], dtype) << l["name"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        EXPECT_GT(l["cycles"].get<std::uint64_t>(), 0u) << l["name"];
    }
    EXPECT_EQ(j["layers"][1]["op"], "Relu");
    EXPECT_EQ(j["layers"][1]["lowering"], "RVV element-wise stream");
    EXPECT_EQ(j["layers"][5]["lowering"], "RVV pooling");
    EXPECT_EQ(j["layers"][5]["out_h"], 5);
    EXPECT_EQ(j["layers"][6]["out_w"], 7);
    EXPECT_EQ(j["layers"][7]["flops"], 5 * 3 * 130);
}

TEST(RvvVectorLayers, EveryOperatorMatchesTheReferenceOnEightThreads) {
    expectEveryOutputEqualsTheReference("", "f32");
}

TEST(RvvVectorLayers, EveryOperatorMatchesTheReferenceOnThreeThreadsInF16) {
    expectEveryOutputEqualsTheReference("--set plan.threads=3 --set plan.dtype=f16", "f16");
}

// Tanh and Sigmoid run a rational approximation (the loop's ops, each rounded in the type); over
// |x| ≤ 12, clamp included, it stays within 3.1e-7 of tanh in f32 and 1.6e-3 in f16 (the fits'
// figures, analysis/fits/tanh_rational.py), and the sigmoid within half of that plus its rounding.
TEST(RvvVectorLayers, TheRationalTanhAndSigmoidStayWithinTheirFitsError) {
    for (const auto& [dtype, bound] : {std::pair{DType::F32, 3.1e-7}, std::pair{DType::F16, 1.6e-3}}) {
        double worstTanh = 0.0, worstSigmoid = 0.0;
        for (int i = -120000; i <= 120000; ++i) {
            const double x = roundTo(dtype, i * 1e-4);
            worstTanh = std::max(worstTanh, std::fabs(rationalActivation(false, dtype, x) - std::tanh(x)));
            worstSigmoid = std::max(
                worstSigmoid, std::fabs(rationalActivation(true, dtype, x) - 1.0 / (1.0 + std::exp(-x))));
        }
        EXPECT_LE(worstTanh, bound) << dtypeName(dtype);
        EXPECT_GT(worstTanh, bound / 10) << dtypeName(dtype) << ": the bound is the fit's, not a loose one";
        EXPECT_LE(worstSigmoid, bound) << dtypeName(dtype);
    }
}

// A stream moves its bytes through the caches: reading two operands and writing one takes longer
// than reading one (Add against Relu of the same tensor), and the threads share the work.
TEST(RvvVectorLayers, AnAddTakesLongerThanAReluAndEightThreadsBeatOne) {
    const std::string path = writeWorkload("time", "  - {name: relu, op: Relu, h: 64, w: 64, channels: 64}\n"
                                                   "  - {name: add, op: Add, h: 64, w: 64, channels: 64}\n");
    const auto eight = run(path, "");
    const auto one = run(path, "--set plan.threads=1");
    std::remove(path.c_str());
    ASSERT_FALSE(eight.is_null());
    ASSERT_FALSE(one.is_null());
    EXPECT_GT(eight["layers"][1]["cycles"].get<double>(), eight["layers"][0]["cycles"].get<double>());
    EXPECT_LT(eight["seconds"].get<double>(), one["seconds"].get<double>());
}

TEST(RvvVectorLayers, APoolWhosePaddingReachesItsWindowIsRefusedAtItsKey) {
    const std::string path =
        writeWorkload("bad", "  - {name: conv, h: 8, w: 8, channels: 4, filters: 4, k: 1}\n"
                             "  - {name: pool, op: MaxPool, h: 8, w: 8, channels: 4, k: 2, pad: 2}\n");
    const auto r = runTessim("run --target k1 --workload " + path);
    std::remove(path.c_str());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(":4:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("layers[1].pad: a pool's padding 2×2 must be smaller than its 2×2 window"),
              std::string::npos)
        << r.err;
}

// An NPU whose array has no vector processor beside it runs no element-wise or pooling layer: a
// layer list holding one is refused at its op, naming the row and why.
TEST(RvvVectorLayers, AnArrayWithoutAVectorProcessorRefusesAVectorLayerAtItsOp) {
    const std::string path =
        writeWorkload("other", "  - {name: conv, h: 8, w: 8, channels: 4, filters: 4, k: 3, pad: 1}\n"
                               "  - {name: relu, op: Relu, h: 8, w: 8, channels: 4}\n");
    const std::string arrayOnly = test::writeArrayOnlyNpu("npu-array");
    ASSERT_FALSE(arrayOnly.empty());
    const auto r = runTessim("run --target " + arrayOnly + " --workload " + path);
    std::remove(arrayOnly.c_str());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(":4:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("layers[1].op: conv2d/tiled on target 'npu': no engine of target 'npu' has a vector "
                         "unit (add, broadcast, vload) for a Relu layer"),
              std::string::npos)
        << r.err;
    std::remove(path.c_str());
}

}  // namespace
}  // namespace tessim
