// conv2d on the K1 (conv2d/rvv): im2col through the caches, then the RVV GEMM, over the eight
// cores. Each layer's outputs equal the reference computed in the GEMM's order; a layer list
// reports per layer, never faster than its compute bound; the column tiles keep the GEMM's reads
// in the L1; more cores take less time.
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;

nlohmann::json runK1(const std::string& args) {
    const auto r = runTessim("run --target k1 " + args + " --format json");
    EXPECT_EQ(r.exitCode, 0) << args << ": " << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

struct Shape {
    const char* name;
    const char* sets;
    std::uint64_t outputs;
};

class RvvConvShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(RvvConvShapes, OutputsEqualTheReference) {
    const Shape& s = GetParam();
    const auto j = runK1(std::string("--workload resnet18-layer1 --functional ") + s.sets);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["plan"]["config"]["strategy"], "rvv-im2col");
    EXPECT_TRUE(j["functional"]["checked"].get<bool>());
    EXPECT_EQ(j["functional"]["elements"], s.outputs);
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_GE(j["seconds"].get<double>(), j["bounds"]["compute_s"].get<double>());
}

#define SHAPE(h, w, c, f, extra)                                                                             \
    "--set workload.h=" #h " --set workload.w=" #w " --set workload.channels=" #c                            \
    " --set workload.filters=" #f " " extra
INSTANTIATE_TEST_SUITE_P(
    K1, RvvConvShapes,
    ::testing::Values(
        Shape{"padded3x3", SHAPE(9, 7, 5, 6, ""), 9 * 7 * 6},
        Shape{"stride2k7",
              SHAPE(20, 17, 3, 8, "--set workload.k=7 --set workload.stride=2 --set workload.pad=3"),
              10 * 9 * 8},
        Shape{"pointwise",
              SHAPE(11, 9, 6, 4, "--set workload.k=1 --set workload.pad=0 --set workload.stride=2"),
              6 * 5 * 4},
        Shape{"grouped", SHAPE(9, 7, 6, 6, "--set workload.groups=3"), 9 * 7 * 6},
        Shape{"depthwise", SHAPE(9, 7, 6, 6, "--set workload.groups=6"), 9 * 7 * 6},
        Shape{"depthwiseTwoStripsStride2",
              SHAPE(9, 7, 70, 70, "--set workload.groups=70 --set workload.stride=2"), 5 * 4 * 70},
        Shape{"depthwiseAsGemms", SHAPE(9, 7, 6, 6, "--set workload.groups=6 --set plan.depthwise=im2col"),
              9 * 7 * 6},
        Shape{"f16", SHAPE(9, 7, 6, 6, "--set plan.dtype=f16"), 9 * 7 * 6},
        Shape{"f64", SHAPE(9, 7, 6, 6, "--set plan.dtype=f64"), 9 * 7 * 6},
        Shape{"tilesOf3OnThreeCores", SHAPE(9, 7, 5, 6, "--set plan.tile_pixels=3 --set plan.threads=3"),
              9 * 7 * 6},
        Shape{"filtersSplit", SHAPE(9, 7, 5, 22, "--set plan.split=filters --set plan.tile_pixels=4"),
              9 * 7 * 22},
        Shape{"fullyConnectedSplitByEstimate", SHAPE(1, 1, 70, 37, "--set workload.k=1 --set workload.pad=0"),
              37},
        // INT8: widening integer MACs, requantised through f32 (or the i32 accumulators stored).
        Shape{"int8", SHAPE(9, 7, 5, 40, "--set plan.dtype=i8 --set plan.threads=3"), 9 * 7 * 40},
        Shape{"int8Accumulators", SHAPE(9, 7, 5, 6, "--set plan.dtype=i8 --set workload.output_dtype=i32"),
              9 * 7 * 6},
        Shape{"int8Lmul2Blocks2x2",
              SHAPE(9, 7, 5, 70, "--set plan.dtype=i8 --set plan.lmul=2 --set plan.rb=1 --set plan.ro=2"),
              9 * 7 * 70},
        Shape{"int8DepthwiseTwoStrips",
              SHAPE(9, 7, 70, 70, "--set workload.groups=70 --set workload.stride=2 --set plan.dtype=i8"),
              5 * 4 * 70},
        Shape{"int8DepthwiseAsGemms",
              SHAPE(9, 7, 6, 6, "--set workload.groups=6 --set plan.depthwise=im2col --set plan.dtype=i8"),
              9 * 7 * 6},
        Shape{"int8FiltersSplit",
              SHAPE(3, 3, 5, 70, "--set plan.dtype=i8 --set plan.split=filters --set plan.threads=2"),
              3 * 3 * 70}),
    [](const ::testing::TestParamInfo<Shape>& info) { return std::string(info.param.name); });

// INT8 on the K1 (plan.dtype i8): a layer moves a quarter of f32's bytes and never beats its
// compute bound (the X60's vwmacc.vx at e16 m2 does 32 MACs in 4 cycles, as many a cycle as vfmacc
// at e32 m1).
// Strides that differ between rows and columns (ONNX strides [2, 1], [1, 3]): each layer's
// outputs equal the reference and its output map is (H + 2·pad_h − kh) / stride_h + 1 rows by
// (W + 2·pad_w − kw) / stride_w + 1 columns.
TEST(RvvConv, StridesPerAxisEqualTheReference) {
    const std::string path = "/tmp/tessim-axis-strides-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: a, h: 17, w: 16, channels: 4, filters: 8, kh: 3, kw: 1, pad_h: 1, stride_h: 2, "
           "stride_w: 1}\n"
           "  - {name: b, h: 9, w: 16, channels: 8, filters: 8, k: 3, pad: 1, stride_h: 1, stride_w: 3}\n";
    const auto j = runK1("--workload " + path + " --functional");
    std::remove(path.c_str());
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 9 * 16 * 8 + 9 * 6 * 8);
    ASSERT_EQ(j["layers"].size(), 2u);
    EXPECT_EQ(j["layers"][0]["stride_h"], 2);
    EXPECT_EQ(j["layers"][0]["stride_w"], 1);
    EXPECT_EQ(j["layers"][1]["out_h"], 9);
    EXPECT_EQ(j["layers"][1]["out_w"], 6);
}

TEST(RvvConv, Int8LayersMoveAQuarterOfTheBytesOfF32) {
    const std::string layer = "--workload resnet18-layer1 --set workload.h=14 --set workload.w=14";
    const auto i8 = runK1(layer + " --set plan.dtype=i8");
    const auto f32 = runK1(layer);
    ASSERT_FALSE(i8.is_null());
    ASSERT_FALSE(f32.is_null());
    EXPECT_EQ(i8["plan"]["config"]["dtype"], "i8");
    EXPECT_DOUBLE_EQ(i8["bounds"]["compulsory_bytes"]["l1"].get<double>() * 4,
                     f32["bounds"]["compulsory_bytes"]["l1"].get<double>());
    EXPECT_GE(i8["seconds"].get<double>(), i8["bounds"]["compute_s"].get<double>());
    EXPECT_GE(i8["seconds"].get<double>(), i8["bounds"]["bandwidth_s"]["ddr"].get<double>());
}

// An f64 model runs in f64 by default (SEW 64: half the lanes of f32, so about twice the time of
// a compute-bound layer), as seed 003's map does as the ftm2000-conv reproduction's CPU stand-in.
TEST(RvvConv, AnF64ModelRunsAtSew64WithHalfTheLanesOfF32) {
    const std::string layer =
        "--workload conv-ftm --set workload.h=48 --set workload.w=48 --set workload.filters=8";
    const auto f64 = runK1(layer + " --functional");
    const auto f32 = runK1(layer + " --set plan.dtype=f32");
    ASSERT_FALSE(f64.is_null());
    ASSERT_FALSE(f32.is_null());
    EXPECT_EQ(f64["plan"]["config"]["dtype"], "f64");
    EXPECT_EQ(f64["functional"]["mismatches"], 0) << f64["functional"];
    // Half the lanes per register: at least twice the compute bound (more where the reduction
    // tails of shorter strips add ops).
    EXPECT_GE(f64["bounds"]["compute_s"].get<double>(), 1.9 * f32["bounds"]["compute_s"].get<double>());
    EXPECT_GT(f64["seconds"].get<double>(), 1.3 * f32["seconds"].get<double>());
}

TEST(RvvConv, ALayerListReportsEveryLayerAtOrAboveItsComputeBound) {
    const std::string path = "/tmp/tessim-rvv-net-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: stem, h: 16, w: 16, channels: 3, filters: 8, k: 3, stride: 2, pad: 1}\n"
           "  - {name: dw, h: 8, w: 8, channels: 8, filters: 8, k: 3, pad: 1, groups: 8}\n"
           "  - {name: pw, h: 8, w: 8, channels: 8, filters: 16, k: 1}\n";
    const auto j = runK1("--workload " + path + " --functional");
    std::remove(path.c_str());
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 8 * 8 * 8 + 8 * 8 * 8 + 8 * 8 * 16);
    ASSERT_EQ(j["layers"].size(), 3u);
    EXPECT_EQ(j["layers"][1]["lowering"], "direct depthwise");
    EXPECT_EQ(j["layers"][2]["lowering"], "im2col + GEMM");
    double sum = 0.0;
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["dtype"], "f32") << l["name"];  // an INT8 model runs in f32 on the K1
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        sum += l["seconds"].get<double>();
    }
    EXPECT_NEAR(sum, j["seconds"].get<double>(), 1e-9);
}

TEST(RvvConv, ColumnTilesThatFitTheL1KeepTheGemmOffTheDdr) {
    // layer1 at 28×28: each core's 98 column rows take 221 KiB, past its 32 KiB L1 and its share of
    // the L2. Tiles of half the L1 keep them there while the weights (147 KiB, in the L2) pass; one
    // tile of all 98 re-reads them from the DDR for every block of filters.
    const std::string layer = "--workload resnet18-layer1 --set workload.h=28 --set workload.w=28 ";
    const auto tiled = runK1(layer);
    const auto whole = runK1(layer + "--set plan.tile_pixels=100000");
    ASSERT_FALSE(tiled.is_null());
    ASSERT_FALSE(whole.is_null());
    EXPECT_EQ(tiled["plan"]["config"]["tile_pixels"], 6);  // 16 KiB / 2304 B per row, whole blocks of rb 2
    const double tiledDdr = tiled["traffic_bytes"]["ddr"]["read"].get<double>();
    const double wholeDdr = whole["traffic_bytes"]["ddr"]["read"].get<double>();
    EXPECT_LT(tiledDdr, 0.1 * wholeDdr) << tiledDdr << " vs " << wholeDdr;
    EXPECT_LT(tiled["seconds"].get<double>(), 0.5 * whole["seconds"].get<double>());
}

TEST(RvvConv, ADirectDepthwiseLayerBeatsOneGemmPerChannel) {
    // 32 channels of 28×28, 3×3: the direct loop multiplies 32 channels per tap in one FMA; as
    // im2col + GEMM each channel is a GEMM of depth 9 with one output, reduced per pixel.
    const std::string layer = "--workload resnet18-layer1 --set workload.h=28 --set workload.w=28 --set "
                              "workload.channels=32 --set workload.filters=32 --set workload.groups=32 ";
    const auto direct = runK1(layer);
    const auto gemms = runK1(layer + "--set plan.depthwise=im2col");
    ASSERT_FALSE(direct.is_null());
    ASSERT_FALSE(gemms.is_null());
    EXPECT_LT(3 * direct["seconds"].get<double>(), gemms["seconds"].get<double>());
    EXPECT_GE(direct["seconds"].get<double>(), direct["bounds"]["compute_s"].get<double>());
}

// A fully connected layer (one pixel) split by pixels runs on one core while seven wait; by
// filters each core multiplies the input by its own 15 of the 120 filters. The estimate picks it.
TEST(RvvConv, AFullyConnectedLayerSplitsItsFiltersOverTheCores) {
    const std::string path = "/tmp/tessim-rvv-fc-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\ndtype: f32\nlayers:\n"
                           "  - {name: fc, h: 1, w: 1, channels: 400, filters: 120, k: 1}\n"
                           "  - {name: fc2, h: 1, w: 1, channels: 120, filters: 84, k: 1}\n";
    const auto split = runK1("--workload " + path + " --functional");
    const auto onOne = runK1("--workload " + path + " --set plan.split=pixels");
    std::remove(path.c_str());
    ASSERT_FALSE(split.is_null());
    ASSERT_FALSE(onOne.is_null());
    EXPECT_EQ(split["functional"]["mismatches"], 0) << split["functional"];
    EXPECT_EQ(split["functional"]["elements"], 120 + 84);
    for (int i = 0; i < 2; ++i) {
        const auto& l = split["layers"][i];
        EXPECT_EQ(l["lowering"], "im2col + GEMM, filters split over the threads") << l["name"];
        EXPECT_EQ(onOne["layers"][i]["lowering"], "im2col + GEMM");
        EXPECT_LT(l["cycles"].get<double>(), 0.8 * onOne["layers"][i]["cycles"].get<double>()) << l["name"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>());
    }
    // Every core multiplies (split by pixels, one does).
    int multiplying = 0;
    for (int c = 0; c < 8; ++c) {
        const std::string core = "core" + std::to_string(c);
        EXPECT_GT(split["stats"]["k1"][core]["vfpu"]["fma_f32_elements"]["value"].get<double>(), 0.0) << core;
        multiplying += onOne["stats"]["k1"][core]["vfpu"].contains("fma_f32_elements") ? 1 : 0;
    }
    EXPECT_EQ(multiplying, 1);
}

TEST(RvvConv, EightCoresTakeLessThanAThirdOfOnesTime) {
    const std::string layer = "--workload resnet18-layer1 --set workload.h=28 --set workload.w=28 ";
    const auto eight = runK1(layer);
    const auto one = runK1(layer + "--set plan.threads=1");
    ASSERT_FALSE(eight.is_null());
    ASSERT_FALSE(one.is_null());
    EXPECT_EQ(eight["plan"]["config"]["threads"], 8);
    EXPECT_LT(eight["seconds"].get<double>(), one["seconds"].get<double>() / 3);
}

}  // namespace
}  // namespace tessim
