// A convolution's TT/TR layer on the k1 (`fc` with `tt`/`tr` and `im2col`): the threads build the
// column matrix from the NHWC image before the einsum chain, as real traffic; the outputs are the
// convolution of the image by the dense weight the cores rebuild (padding, stride, rings, repeats,
// threads); the im2col is a layer of its own in the report; the DDR bound counts the image, not
// the column matrix; inconsistent shapes are configuration errors at their key.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

Json runConvTt(const std::string& args) {
    auto r = runTessim("run --target k1 --workload fc " + args + " --format json");
    EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

// 10×9 image of 4 channels, 3×3 taps (in 4·3·3 = 36), 12 filters.
std::string convTt(const char* form, const char* ranks, unsigned stride, unsigned pad, unsigned pixels) {
    return "--set workload.in=36 --set workload.out=12 --set workload.batch=" + std::to_string(pixels) +
           " --set 'workload." + form + "={in: [4, 3, 3], out: [3, 2, 2], ranks: " + ranks +
           "}' --set 'workload.im2col={h: 10, w: 9, channels: 4, k: 3, stride: " + std::to_string(stride) +
           ", pad: " + std::to_string(pad) + "}'";
}

TEST(TtIm2col, TheChainComputesTheConvolutionOfTheImage) {
    struct Case {
        const char* form;
        const char* ranks;
        unsigned stride, pad, pixels, threads, repeat;
    };
    // Output pixels: (10 + 2p − 3)/s + 1 by (9 + 2p − 3)/s + 1.
    for (const Case& c : {Case{"tt", "[4, 3]", 1, 1, 90, 1, 1}, Case{"tt", "[4, 3]", 2, 1, 25, 3, 2},
                          Case{"tr", "[2, 4, 3]", 1, 0, 56, 4, 1}, Case{"tr", "[2, 4, 3]", 2, 2, 36, 2, 1}}) {
        const std::string args = convTt(c.form, c.ranks, c.stride, c.pad, c.pixels) +
                                 " --set workload.repeat=" + std::to_string(c.repeat) +
                                 " --set plan.threads=" + std::to_string(c.threads) + " --functional";
        const Json r = runConvTt(args);
        ASSERT_TRUE(r.contains("functional")) << args;
        EXPECT_EQ(r["functional"]["elements"].get<std::uint64_t>(), 12u * c.pixels) << args;
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u)
            << args << ": " << r["functional"].value("first_mismatch", "");
        const Json& conv = r["workload"]["config"]["im2col"];
        EXPECT_EQ(conv["column_bytes"].get<std::uint64_t>(), c.pixels * 36u * 4u) << args;
        EXPECT_EQ(conv["out_h"].get<std::uint64_t>() * conv["out_w"].get<std::uint64_t>(), c.pixels) << args;
    }
}

TEST(TtIm2col, TheIm2colIsAReportedLayerAndCostsTime) {
    const Json withIm2col = runConvTt(convTt("tt", "[4, 3]", 1, 1, 90) + " --set plan.threads=2");
    const Json chainOnly =
        runConvTt("--set workload.in=36 --set workload.out=12 --set workload.batch=90 "
                  "--set 'workload.tt={in: [4, 3, 3], out: [3, 2, 2], ranks: [4, 3]}' --set plan.threads=2");
    ASSERT_FALSE(withIm2col.is_null());
    ASSERT_FALSE(chainOnly.is_null());
    const Json& layers = withIm2col["layers"];
    ASSERT_EQ(layers.size(), chainOnly["layers"].size() + 1);
    EXPECT_EQ(layers[0]["name"], "im2col");
    EXPECT_GT(layers[0]["cycles"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(layers[1]["name"], "einsum0");
    // The copies add their time to the chain's.
    EXPECT_GT(withIm2col["cycles"].get<std::uint64_t>(), chainOnly["cycles"].get<std::uint64_t>());
    // The DDR's compulsory bytes: the 10×9×4 image and the cores, not the column matrix.
    const std::uint64_t image = 10 * 9 * 4 * 4;
    const std::uint64_t cores = withIm2col["workload"]["config"]["parameters"].get<std::uint64_t>() * 4;
    EXPECT_EQ(withIm2col["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>(), image + cores);
    EXPECT_GE(withIm2col["seconds"].get<double>(), withIm2col["bounds"]["compute_s"].get<double>());
    for (const auto& [level, s] : withIm2col["bounds"]["bandwidth_s"].items())
        EXPECT_GE(withIm2col["seconds"].get<double>(), s.get<double>()) << level;
}

// A 1×1 window of stride 1 without padding: the image is the column matrix, nothing is copied.
TEST(TtIm2col, AnIdentityWindowCopiesNothing) {
    const std::string layer = "--set workload.in=8 --set workload.out=6 --set workload.batch=20 "
                              "--set 'workload.tt={in: [2, 4], out: [3, 2], ranks: [3]}' --functional";
    const Json identity = runConvTt(layer + " --set 'workload.im2col={h: 4, w: 5, channels: 8, k: 1}'");
    const Json plain = runConvTt(layer);
    ASSERT_FALSE(identity.is_null());
    EXPECT_EQ(identity["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(identity["cycles"], plain["cycles"]);
    EXPECT_EQ(identity["layers"][0]["name"], "einsum0");
}

TEST(TtIm2col, InconsistentShapesAreErrorsAtTheirKey) {
    struct Case {
        const char* sets;
        const char* key;
        const char* says;
    };
    for (const Case& c : {Case{"--set workload.in=36 --set workload.out=12 --set workload.batch=90 "
                               "--set 'workload.tt={in: [4, 3, 3], out: [3, 2, 2], ranks: [4, 3]}' "
                               "--set 'workload.im2col={h: 10, w: 9, channels: 5, k: 3, pad: 1}'",
                               "im2col.channels", "multiply to 36"},
                          Case{"--set workload.in=36 --set workload.out=12 --set workload.batch=7 "
                               "--set 'workload.tt={in: [4, 3, 3], out: [3, 2, 2], ranks: [4, 3]}' "
                               "--set 'workload.im2col={h: 10, w: 9, channels: 4, k: 3, pad: 1}'",
                               "batch", "90 output pixels"},
                          Case{"--set workload.in=36 --set workload.out=12 --set workload.batch=90 "
                               "--set 'workload.tt={in: [4, 3, 3], out: [3, 2, 2], ranks: [4, 3]}' "
                               "--set 'workload.im2col={h: 10, w: 9, channels: 4, k: 3, pad: 1, groups: 2}'",
                               "im2col.groups", "unknown key"},
                          // A dense layer takes no im2col: that is conv2d.
                          Case{"--set workload.in=36 --set workload.out=12 --set workload.batch=90 "
                               "--set 'workload.im2col={h: 10, w: 9, channels: 4, k: 3, pad: 1}'",
                               "im2col", "goes with a TT or TR layer"}}) {
        const auto r = runTessim(std::string("run --target k1 --workload fc ") + c.sets);
        EXPECT_EQ(r.exitCode, 2) << c.sets;
        EXPECT_TRUE(r.out.empty()) << c.sets;
        EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace tessim
