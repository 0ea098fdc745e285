// Every conv strategy and loop order, run functionally on reduced shapes, gives the direct
// convolution's output bit-exactly (INT8 inputs, INT32 accumulation; by default requantised to
// INT8 by the array, compared against the direct convolution followed by the same
// requantisation; output_dtype i32: the accumulators themselves), reads from DDR exactly the
// bytes the plan's closed forms give (input with halo and loop-order re-fetches, weights with
// re-fetches, zero line) and writes exactly one output element's bytes per output (1 B INT8,
// 4 B INT32). One simulation per test process.
#include <gtest/gtest.h>

#include "common/ProcessRunner.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/UsefulBytes.h"
#include "run/pipeline/Simulation.h"

namespace tessim {
namespace {

struct Case {
    const char* name;
    const char* plan;
    std::vector<std::string> sets;
};

class ConvFunctional : public ::testing::TestWithParam<Case> {};

TEST_P(ConvFunctional, MatchesDirectConvolution) {
    const Case& c = GetParam();
    RunRequest r;
    r.target = "npu";
    r.workload = "conv1080p";
    r.plan = c.plan;
    r.functional = true;
    r.sets = c.sets;
    auto report = runSimulation(r);
    ASSERT_TRUE(report.contains("functional")) << report.dump();
    const auto& f = report["functional"];
    EXPECT_TRUE(f["checked"].get<bool>());
    EXPECT_GT(f["elements"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(f["mismatches"].get<std::uint64_t>(), 0u) << f.dump();
    EXPECT_GE(report["seconds"].get<double>(), report["bounds"]["compute_s"].get<double>());
    const auto& p = report["plan"]["config"];
    EXPECT_EQ(test::usefulBytes(report, "ddr", "read"), p["input_fetch_bytes"].get<std::uint64_t>() +
                                                            p["weight_fetch_bytes"].get<std::uint64_t>() +
                                                            p["zero_line_bytes"].get<std::uint64_t>())
        << p.dump();
    const auto& w = report["workload"]["config"];
    const bool i8 = w["output_dtype"].get<std::string>() == "i8";
    const std::uint64_t outputs =
        w["filters"].get<std::uint64_t>() * w["out_h"].get<std::uint64_t>() * w["out_w"].get<std::uint64_t>();
    EXPECT_EQ(f["elements"].get<std::uint64_t>(), outputs);
    EXPECT_EQ(test::usefulBytes(report, "ddr", "write"), outputs * (i8 ? 1 : 4));
    EXPECT_GE(report["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>(), outputs * (i8 ? 1 : 4));
    EXPECT_EQ(p["output_bytes"].get<std::uint64_t>(), outputs * (i8 ? 1 : 4));
    for (const auto& set : c.sets) {
        if (set == "workload.output_dtype=i32") {
            EXPECT_FALSE(i8);
        }
        if (set.rfind("plan.loop_order=", 0) == 0) {
            EXPECT_EQ(p["loop_order"].get<std::string>(), set.substr(16));
        }
    }
}

std::vector<std::string> shape(int h, int w, int c, int f, int k, int s, int p) {
    return {"workload.h=" + std::to_string(h),        "workload.w=" + std::to_string(w),
            "workload.channels=" + std::to_string(c), "workload.filters=" + std::to_string(f),
            "workload.k=" + std::to_string(k),        "workload.stride=" + std::to_string(s),
            "workload.pad=" + std::to_string(p)};
}
// A kernel of kh rows by kw columns, padded ph above and below and pw left and right.
std::vector<std::string> rect(int h, int w, int c, int f, int kh, int kw, int s, int ph, int pw) {
    return {"workload.h=" + std::to_string(h),        "workload.w=" + std::to_string(w),
            "workload.channels=" + std::to_string(c), "workload.filters=" + std::to_string(f),
            "workload.kh=" + std::to_string(kh),      "workload.kw=" + std::to_string(kw),
            "workload.stride=" + std::to_string(s),   "workload.pad_h=" + std::to_string(ph),
            "workload.pad_w=" + std::to_string(pw)};
}
std::vector<std::string> with(std::vector<std::string> v, std::vector<std::string> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

const Case kCases[] = {
    {"naive_odd", "naive", shape(13, 17, 5, 7, 3, 1, 1)},
    {"naive_stride2", "naive", shape(15, 11, 3, 4, 3, 2, 1)},
    {"static_odd", "static-single", with(shape(13, 17, 5, 7, 3, 1, 1), {"plan.tile_h=4"})},
    {"static_stride2_pad2", "static-single", with(shape(19, 13, 6, 5, 5, 2, 2), {"plan.tile_h=3"})},
    {"static_channel_split", "static-single",
     with(shape(11, 9, 10, 6, 3, 1, 1), {"plan.tile_h=4", "plan.tile_c=3"})},
    {"double_odd", "double-buffer", with(shape(13, 17, 5, 7, 3, 1, 1), {"plan.tile_h=3", "plan.tile_w=5"})},
    {"double_stride2", "double-buffer",
     with(shape(17, 15, 4, 9, 3, 2, 1), {"plan.tile_h=2", "plan.tile_w=3", "plan.tile_f=4"})},
    {"double_channel_split", "double-buffer",
     with(shape(12, 10, 9, 5, 3, 1, 1), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4"})},
    {"double_split_all_nopad", "double-buffer",
     with(shape(10, 9, 7, 6, 3, 1, 0), {"plan.tile_h=3", "plan.tile_w=2", "plan.tile_c=2", "plan.tile_f=4"})},
    {"double_auto_small_sram", "double-buffer",
     with(shape(21, 23, 16, 8, 3, 1, 1), {"target.sram.size=8KiB"})},
    // Loop orders: filters outer (weights resident over the spatial tiles) and spatial outer
    // (input resident over the filter groups), with whole channels (the resident operand is
    // fetched once per outer iteration) and with channels split (both operands every step).
    {"double_filters_outer_weights_resident", "double-buffer",
     with(shape(13, 11, 5, 7, 3, 1, 1), {"plan.tile_h=4", "plan.tile_w=5", "plan.tile_c=full",
                                         "plan.tile_f=3", "plan.loop_order=filters-outer"})},
    {"double_spatial_outer_input_resident", "double-buffer",
     with(shape(13, 11, 5, 7, 3, 1, 1), {"plan.tile_h=4", "plan.tile_w=5", "plan.tile_c=full",
                                         "plan.tile_f=3", "plan.loop_order=spatial-outer"})},
    {"double_spatial_outer_stride2", "double-buffer",
     with(shape(17, 15, 4, 9, 3, 2, 1),
          {"plan.tile_h=2", "plan.tile_w=3", "plan.tile_f=4", "plan.loop_order=spatial-outer"})},
    {"double_spatial_outer_channel_split", "double-buffer",
     with(shape(12, 10, 9, 5, 3, 1, 1), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4", "plan.tile_f=2",
                                         "plan.loop_order=spatial-outer"})},
    {"double_filters_outer_one_spatial_tile", "double-buffer",
     with(shape(9, 7, 6, 7, 3, 1, 1), {"plan.tile_h=full", "plan.tile_w=full", "plan.tile_c=full",
                                       "plan.tile_f=2", "plan.loop_order=filters-outer"})},
    {"double_spatial_outer_one_filter_group", "double-buffer",
     with(shape(11, 9, 6, 5, 3, 2, 1), {"plan.tile_h=2", "plan.tile_w=3", "plan.tile_c=full",
                                        "plan.tile_f=full", "plan.loop_order=spatial-outer"})},
    {"static_spatial_outer", "static-single",
     with(shape(13, 17, 5, 7, 3, 1, 1),
          {"plan.tile_h=4", "plan.tile_c=full", "plan.tile_f=3", "plan.loop_order=spatial-outer"})},
    {"static_filters_outer_channel_split", "static-single",
     with(shape(11, 9, 10, 6, 3, 1, 1),
          {"plan.tile_h=4", "plan.tile_c=3", "plan.tile_f=4", "plan.loop_order=filters-outer"})},
    {"double_auto_order_pad2", "double-buffer",
     with(shape(19, 13, 6, 5, 5, 2, 2), {"target.sram.size=16KiB"})},
    // Shapes at the edges: padding wider than the kernel (tiles wholly in the padding are zeros),
    // a stride longer than the kernel (skipped input rows and columns), a 1×1 map.
    {"pad_beyond_kernel_k1_pad2", "double-buffer",
     with(shape(7, 9, 3, 4, 1, 1, 2), {"plan.tile_h=2", "plan.tile_w=3"})},
    {"pad_beyond_kernel_naive", "naive", shape(6, 5, 2, 3, 2, 1, 3)},
    {"stride_beyond_kernel", "static-single", with(shape(13, 11, 3, 5, 2, 3, 1), {"plan.tile_h=2"})},
    {"map_1x1", "double-buffer", shape(1, 1, 7, 5, 1, 1, 0)},
    // Rectangular kernels (factorised 1×7 / 7×1 convolutions), each dimension padded on its own.
    {"rect_1x7_naive", "naive", rect(13, 17, 5, 7, 1, 7, 1, 0, 3)},
    {"rect_7x1_stride2", "static-single", with(rect(19, 13, 6, 5, 7, 1, 2, 3, 0), {"plan.tile_h=3"})},
    {"rect_3x5_channel_split", "double-buffer",
     with(rect(12, 14, 9, 5, 3, 5, 1, 1, 2), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4"})},
    {"rect_5x2_pad_w_only", "double-buffer",
     with(rect(10, 9, 4, 6, 5, 2, 1, 0, 1), {"plan.tile_h=2", "plan.tile_w=3"})},
    {"rect_2x4_spatial_outer", "double-buffer",
     with(rect(11, 15, 5, 6, 2, 4, 2, 1, 0),
          {"plan.tile_h=2", "plan.tile_w=3", "plan.tile_f=3", "plan.loop_order=spatial-outer"})},
    {"map_1x1_padded_3x3", "static-single", shape(1, 1, 4, 6, 3, 1, 1)},
    // Requantisation happens on the last channel chunk of a tile only: every strategy, both loop
    // orders, channels split.
    {"requant_naive_filters_outer_split", "naive",
     with(shape(9, 11, 7, 6, 3, 1, 1), {"plan.tile_c=2", "plan.tile_f=4", "plan.loop_order=filters-outer"})},
    {"requant_naive_spatial_outer_split", "naive",
     with(shape(9, 11, 7, 6, 3, 1, 1), {"plan.tile_c=2", "plan.tile_f=4", "plan.loop_order=spatial-outer"})},
    {"requant_static_filters_outer_split", "static-single",
     with(shape(12, 10, 9, 7, 3, 2, 1),
          {"plan.tile_h=2", "plan.tile_c=4", "plan.tile_f=3", "plan.loop_order=filters-outer"})},
    {"requant_static_spatial_outer_split", "static-single",
     with(shape(12, 10, 9, 7, 3, 2, 1),
          {"plan.tile_h=2", "plan.tile_c=4", "plan.tile_f=3", "plan.loop_order=spatial-outer"})},
    {"requant_double_filters_outer_split", "double-buffer",
     with(shape(13, 11, 10, 9, 3, 1, 1), {"plan.tile_h=4", "plan.tile_w=5", "plan.tile_c=3", "plan.tile_f=4",
                                          "plan.loop_order=filters-outer"})},
    {"requant_double_spatial_outer_split", "double-buffer",
     with(shape(13, 11, 10, 9, 3, 1, 1), {"plan.tile_h=4", "plan.tile_w=5", "plan.tile_c=3", "plan.tile_f=4",
                                          "plan.loop_order=spatial-outer"})},
    // Explicit requantisation: unit scale saturates almost every output (the clamp), a negative
    // multiplier flips the sign, a shift of 0 rounds nothing.
    {"requant_saturating", "double-buffer",
     with(shape(9, 8, 6, 5, 3, 1, 1),
          {"plan.tile_h=3", "plan.tile_c=4", "workload.requant_multiplier=1", "workload.requant_shift=0"})},
    {"requant_negative_multiplier", "static-single",
     with(shape(9, 8, 6, 5, 3, 1, 1),
          {"plan.tile_h=3", "plan.tile_c=4", "workload.requant_multiplier=-3", "workload.requant_shift=9"})},
    // INT32 outputs (the accumulators, 4 B each) stay available.
    {"i32_naive", "naive", with(shape(13, 17, 5, 7, 3, 1, 1), {"workload.output_dtype=i32"})},
    {"i32_static_split", "static-single",
     with(shape(11, 9, 10, 6, 3, 1, 1), {"plan.tile_h=4", "plan.tile_c=3", "workload.output_dtype=i32"})},
    {"i32_double_spatial_outer_split", "double-buffer",
     with(shape(12, 10, 9, 5, 3, 1, 1), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4", "plan.tile_f=2",
                                         "plan.loop_order=spatial-outer", "workload.output_dtype=i32"})},
    // Partial sums in the array's accumulators (plan accumulate: array): channels split, each
    // strategy and loop order, INT8 requantised and INT32 drained.
    {"array_naive_split", "naive",
     with(shape(9, 11, 7, 6, 3, 1, 1), {"plan.tile_c=2", "plan.tile_f=4", "plan.accumulate=array",
                                        "target.npu.units.mac.accumulators=4KiB"})},
    {"array_static_spatial_outer_split", "static-single",
     with(shape(12, 10, 9, 7, 3, 2, 1),
          {"plan.tile_h=2", "plan.tile_c=4", "plan.tile_f=3", "plan.loop_order=spatial-outer",
           "plan.accumulate=array", "target.npu.units.mac.accumulators=4KiB"})},
    {"array_double_filters_outer_split", "double-buffer",
     with(shape(13, 11, 10, 9, 3, 1, 1), {"plan.tile_h=4", "plan.tile_w=5", "plan.tile_c=3", "plan.tile_f=4",
                                          "plan.loop_order=filters-outer", "plan.accumulate=array",
                                          "target.npu.units.mac.accumulators=4KiB"})},
    {"array_i32_double_spatial_outer_split", "double-buffer",
     with(shape(12, 10, 9, 5, 3, 1, 1), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4", "plan.tile_f=2",
                                         "plan.loop_order=spatial-outer", "workload.output_dtype=i32",
                                         "plan.accumulate=array", "target.npu.units.mac.accumulators=4KiB"})},
};

INSTANTIATE_TEST_SUITE_P(Npu, ConvFunctional, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The requantisation fields survive the JSONL schedule: a replay of the emitted schedule times the
// same as the run that generated it and moves the same DDR bytes. (Through the CLI: one
// simulation per process.)
std::string cli(const std::string& args) {
    test::ProcessResult r = test::runTessim(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
}

TEST(ConvSchedule, RequantisingTilesRoundTripThroughJsonl) {
    std::string args = "--target npu --workload conv1080p --plan double-buffer";
    for (const auto& set :
         with(shape(12, 10, 9, 5, 3, 1, 1), {"plan.tile_h=5", "plan.tile_w=4", "plan.tile_c=4"}))
        args += " --set " + set;
    const std::string jsonl = cli("emit " + args);
    EXPECT_NE(jsonl.find("\"requantize\":true"), std::string::npos);
    EXPECT_NE(jsonl.find("\"out8\":"), std::string::npos);
    auto path =
        std::filesystem::temp_directory_path() / ("tessim-requant-" + std::to_string(::getpid()) + ".jsonl");
    {
        std::ofstream out(path);
        out << jsonl;
    }
    auto direct = nlohmann::json::parse(cli("run --format json " + args));
    auto replayed = nlohmann::json::parse(cli("run --format json --target npu --schedule " + path.string()));
    std::filesystem::remove(path);
    EXPECT_EQ(replayed["cycles"], direct["cycles"]);
    EXPECT_EQ(replayed["traffic_bytes"]["ddr"], direct["traffic_bytes"]["ddr"]);
    EXPECT_EQ(replayed["stats"]["npu"]["npu"]["mac"]["requant_ops"],
              direct["stats"]["npu"]["npu"]["mac"]["requant_ops"]);
}

}  // namespace
}  // namespace tessim
