// Softmax on the K1 over each pixel's channels, as an RVV loop computes it: the largest (vfredmax),
// exp(x − max) by scaling and squaring (no bits of the type: a clamp, a scale by 2^−n, a Taylor
// polynomial by fma, n squares), stored and summed (vfredusum), then each scaled by the sum's
// reciprocal. Every output equals the reference that runs the same sequence (--functional) in
// f32, f64 and f16 on 8 and 3 threads; that reference stays within its stated error of the true
// softmax; the vector DSP and the npu refuse it at its op, naming the K1.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "sim/ir/ElementArithmetic.h"
#include "workloads/common/TestData.h"
#include "workloads/conv/RvvVectorLayers.h"

namespace tessim {
namespace {

// The largest error of expBySquaringIn against exp over [lowest, 0], on a fine grid: relative, or
// absolute (beside the largest term, 1: what a softmax's outputs are measured against).
double worstExpError(DType dtype, bool relative) {
    const ExpBySquaring& e = expBySquaring(dtype);
    double worst = 0.0;
    for (int i = 0; i <= 100000; ++i) {
        const double x = roundTo(dtype, e.lowest * i / 100000.0);
        const double error = std::fabs(expBySquaringIn(dtype, x) - std::exp(x));
        worst = std::max(worst, relative ? error / std::exp(x) : error);
    }
    return worst;
}

TEST(RvvSoftmax, ExpBySquaringStaysWithinItsStatedError) {
    const double f32 = worstExpError(DType::F32, true);
    std::printf("exp by squaring: f32 %.3g relative, f64 %.3g, f16 %.3g absolute\n", f32,
                worstExpError(DType::F64, true), worstExpError(DType::F16, false));
    EXPECT_LE(f32, 3.2e-5);
    EXPECT_GT(f32, 3.2e-6) << "the bound is the sequence's, not a loose one";
    EXPECT_LE(worstExpError(DType::F64, true), 3.2e-5);  // the f32 sequence, rounded less
    const double f16 = worstExpError(DType::F16, false);
    EXPECT_LE(f16, 1e-2);
    EXPECT_GT(f16, 1e-3);
}

// The reference's outputs of a pixel against the true softmax of the same inputs, and their sum.
TEST(RvvSoftmax, TheReferenceIsASoftmaxOfEachPixelsChannels) {
    RvvVectorLayer l;
    l.op = VectorLayerOp::Softmax;
    l.s.h = 2;
    l.s.w = 3;
    l.s.channels = l.s.filters = l.s.groups = 70;
    const std::uint64_t salt = 5;
    for (std::uint64_t pixel = 0; pixel < 6; ++pixel) {
        double largest = -1e300, sum = 0.0, got = 0.0;
        for (std::uint64_t c = 0; c < 70; ++c)
            largest = std::max(largest, testValue(DType::F32, pixel * 70 + c, salt));
        for (std::uint64_t c = 0; c < 70; ++c)
            sum += std::exp(testValue(DType::F32, pixel * 70 + c, salt) - largest);
        for (std::uint64_t c = 0; c < 70; ++c) {
            const std::uint64_t i = pixel * 70 + c;
            const double want = std::exp(testValue(DType::F32, i, salt) - largest) / sum;
            const double y = vectorLayerReference(l, DType::F32, i, salt, 0);
            EXPECT_NEAR(y, want, 5e-5 * want + 1e-7) << pixel << " " << c;
            got += y;
        }
        EXPECT_NEAR(got, 1.0, 1e-5);
    }
}

std::string softmaxWorkload(const std::string& tag, const std::string& layers) {
    const std::string path = "/tmp/tessim-rvv-softmax-" + tag + "-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n" << layers;
    return path;
}

// 70 channels (a strip of 64 and one of 6), 1000 (an ImageNet classifier's: 16 strips), and 1.
const char* kSoftmaxes = "  - {name: conv, h: 9, w: 7, channels: 5, filters: 70, k: 3, pad: 1}\n"
                         "  - {name: pixels, op: Softmax, h: 9, w: 7, channels: 70}\n"
                         "  - {name: classes, op: Softmax, h: 2, w: 1, channels: 1000}\n"
                         "  - {name: one, op: Softmax, h: 5, w: 1, channels: 1}\n";

TEST(RvvSoftmax, EveryOutputEqualsTheReferenceInEachTypeOnEightAndThreeThreads) {
    const std::string path = softmaxWorkload("all", kSoftmaxes);
    for (const std::string sets :
         {"", "--set plan.dtype=f64", "--set plan.dtype=f16 --set plan.threads=3", "--set plan.threads=3"}) {
        const auto r =
            test::runTessim("run --target k1 --workload " + path + " --functional --format json " + sets);
        ASSERT_EQ(r.exitCode, 0) << sets << ": " << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["functional"]["mismatches"], 0) << sets << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 2 * 9 * 7 * 70 + 2 * 1000 + 5) << sets;
        for (const auto& l : j["layers"]) {
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
            EXPECT_GT(l["cycles"].get<double>(), 0.0) << l["name"];
        }
        EXPECT_EQ(j["layers"][1]["op"], "Softmax");
    }
    std::remove(path.c_str());
}

TEST(RvvSoftmax, TheVectorDspAndTheNpuRefuseItAtItsOp) {
    const std::string path =
        softmaxWorkload("dsp", "  - {name: classes, op: Softmax, h: 1, w: 1, channels: 1000}\n");
    for (const char* target : {"ftm2000", "npu"}) {
        const auto r = test::runTessim(std::string("run --target ") + target + " --workload " + path);
        EXPECT_EQ(r.exitCode, 2) << target;
        EXPECT_TRUE(r.out.empty());
        EXPECT_NE(r.err.find("layers[0].op"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("Softmax"), std::string::npos) << r.err;
    }
    std::remove(path.c_str());
}

}  // namespace
}  // namespace tessim
