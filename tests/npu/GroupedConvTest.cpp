// Grouped and depthwise convolution (workload key `groups`): every group is its own small
// convolution of channels/groups by filters/groups, tiled alike and run one after the other on the
// MAC array. Functional runs equal the direct grouped convolution bit-exactly and read from DDR
// exactly the plan's closed forms; the array's utilisation is what the per-group mapping gives
// (a depthwise 3×3 layer fills 9 rows and 1 column of a weight-stationary array); `groups` that
// does not divide the channels and filters is refused at its key.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/ProcessRunner.h"
#include "common/UsefulBytes.h"
#include "run/pipeline/Simulation.h"
#include "sim/config/ConfigError.h"
#include "workloads/conv/ConvGeometry.h"

namespace tessim {
namespace {

struct GroupedCase {
    const char* name;
    const char* plan;
    std::vector<std::string> sets;
};

std::vector<std::string> grouped(int h, int w, int c, int f, int k, int s, int p, int g,
                                 std::vector<std::string> more = {}) {
    std::vector<std::string> v{
        "workload.h=" + std::to_string(h),        "workload.w=" + std::to_string(w),
        "workload.channels=" + std::to_string(c), "workload.filters=" + std::to_string(f),
        "workload.k=" + std::to_string(k),        "workload.stride=" + std::to_string(s),
        "workload.pad=" + std::to_string(p),      "workload.groups=" + std::to_string(g)};
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

class GroupedConvFunctional : public ::testing::TestWithParam<GroupedCase> {};

TEST_P(GroupedConvFunctional, OutputEqualsDirectReference) {
    const GroupedCase& c = GetParam();
    RunRequest r;
    r.target = "npu";
    r.workload = "conv1080p";
    r.plan = c.plan;
    r.functional = true;
    r.sets = c.sets;
    auto report = runSimulation(r);
    const auto& f = report["functional"];
    EXPECT_EQ(f["mismatches"].get<std::uint64_t>(), 0u) << f.dump();
    const auto& w = report["workload"]["config"];
    const std::uint64_t outputs =
        w["filters"].get<std::uint64_t>() * w["out_h"].get<std::uint64_t>() * w["out_w"].get<std::uint64_t>();
    EXPECT_EQ(f["elements"].get<std::uint64_t>(), outputs);
    const auto& p = report["plan"]["config"];
    EXPECT_EQ(test::usefulBytes(report, "ddr", "read"), p["input_fetch_bytes"].get<std::uint64_t>() +
                                                            p["weight_fetch_bytes"].get<std::uint64_t>() +
                                                            p["zero_line_bytes"].get<std::uint64_t>());
    EXPECT_GE(report["seconds"].get<double>(), report["bounds"]["compute_s"].get<double>());
}

const GroupedCase kGroupedCases[] = {
    {"depthwise_3x3", "double-buffer", grouped(14, 12, 16, 16, 3, 1, 1, 16)},
    {"depthwise_stride2_small_tiles", "double-buffer",
     grouped(15, 13, 8, 8, 3, 2, 1, 8, {"plan.tile_h=2", "plan.tile_w=3"})},
    {"depthwise_multiplier2", "static-single", grouped(9, 11, 6, 12, 3, 1, 1, 6, {"plan.tile_h=4"})},
    {"depthwise_naive", "naive", grouped(9, 8, 5, 5, 3, 1, 1, 5)},
    {"depthwise_i32", "double-buffer", grouped(10, 10, 4, 4, 5, 1, 2, 4, {"workload.output_dtype=i32"})},
    {"grouped_channel_and_filter_chunks", "double-buffer",
     grouped(12, 10, 12, 24, 3, 2, 1, 6, {"plan.tile_h=3", "plan.tile_c=1", "plan.tile_f=3"})},
    {"grouped_spatial_outer", "double-buffer",
     grouped(11, 9, 8, 8, 3, 1, 1, 2, {"plan.tile_h=4", "plan.tile_f=2", "plan.loop_order=spatial-outer"})},
};

INSTANTIATE_TEST_SUITE_P(Groups, GroupedConvFunctional, ::testing::ValuesIn(kGroupedCases),
                         [](const auto& info) { return std::string(info.param.name); });

// A depthwise layer in whole-image tiles: each of the G groups is one MAC tile of Sr = k² window
// rows, Sc = 1 filter column and T = out_h·out_w pixels; on a rows × cols weight-stationary array
// one fold of 2·rows + cols + T − 2 cycles (SCALE-Sim v2). Utilisation = MACs / (cycles·rows·cols).
TEST(GroupedConv, DepthwiseUtilisationEqualsClosedFormOfPerGroupMapping) {
    RunRequest r;
    r.target = "npu";
    r.workload = "conv1080p";
    r.sets = grouped(16, 16, 32, 32, 3, 1, 1, 32,
                     {"workload.output_dtype=i32", "plan.tile_h=full", "plan.tile_w=full", "plan.tile_c=full",
                      "plan.tile_f=full"});
    auto report = runSimulation(r);
    const auto& npu = report["target"]["config"]["npu"];
    ASSERT_EQ(npu["units"]["mac"]["dataflow"].get<std::string>(), "ws") << npu.dump();
    const std::uint64_t rows = npu["units"]["mac"]["rows"].get<std::uint64_t>(),
                        cols = npu["units"]["mac"]["cols"].get<std::uint64_t>();
    const std::uint64_t groups = 32, pixels = 16 * 16, window = 9;
    ASSERT_LE(window, rows);
    const std::uint64_t cyclesPerGroup = 2 * rows + cols + pixels - 2;
    const auto& mac = report["stats"]["npu"]["npu"]["mac"];
    EXPECT_EQ(mac["busy_cycles"]["value"].get<std::uint64_t>(), groups * cyclesPerGroup);
    EXPECT_EQ(mac["macs"]["value"].get<std::uint64_t>(), groups * pixels * window);
    EXPECT_DOUBLE_EQ(mac["mapping_efficiency"]["value"].get<double>(),
                     double(pixels * window) / double(cyclesPerGroup * rows * cols));
    EXPECT_EQ(mac["tiles"]["value"].get<std::uint64_t>(), groups);
}

// The planner's figures for a grouped layer are `groups` times those of one group; its time is
// one pipeline through all of them.
TEST(GroupedConv, PlannerFiguresAreGroupsTimesOneGroup) {
    ConvShape s{28, 28, 96, 192, 3, 3, 2, 2, 1, 1};
    s.groups = 48;
    const ConvShape one = s.group();
    EXPECT_EQ(one.channels, 2u);
    EXPECT_EQ(one.filters, 4u);
    EXPECT_EQ(s.macs(), 48 * one.macs());
    const ConvTiling t{7, 14, 2, 4};
    EXPECT_EQ(inputFetchBytes(s, t), 48 * inputFetchBytes(one, t));
    EXPECT_EQ(weightFetchBytes(s, t), 48 * weightFetchBytes(one, t));
    EXPECT_EQ(weightFetchBytes(s, t), 192ull * 2 * 9);  // each weight once: tiles keep them resident
    PlannerMachine m;
    m.sramBytes = 1 << 20;
    const PlanEstimate all = estimatePlan(s, t, ConvStrategy::DoubleBuffer, m),
                       g = estimatePlan(one, t, ConvStrategy::DoubleBuffer, m);
    EXPECT_EQ(all.computeCycles, 48 * g.computeCycles);
    EXPECT_EQ(all.sramBytes, 48 * g.sramBytes);
    EXPECT_NEAR(double(all.ddrBytes), 48.0 * double(g.ddrBytes), 48.0);  // whole bytes of averaged bursts
    // One pipeline: the groups' fill and drain overlap, so less than 48 groups apart, never less
    // than the array's cycles.
    EXPECT_LT(all.seconds, 48 * g.seconds);
    EXPECT_GE(all.seconds, double(all.computeCycles) / m.clockHz);
    ConvTiling planned, plannedOne;
    std::string message;
    ASSERT_TRUE(planTiling(s, ConvStrategy::DoubleBuffer, TileRequest{}, m, planned, message)) << message;
    ASSERT_TRUE(planTiling(one, ConvStrategy::DoubleBuffer, TileRequest{}, m, plannedOne, message))
        << message;
    EXPECT_EQ(planned.tc, plannedOne.tc);
    EXPECT_LE(planned.tc, 2u);
    EXPECT_LE(planned.tf, 4u);
}

TEST(GroupedConv, GroupsThatDoNotDivideChannelsAndFiltersAreRefusedAtTheKey) {
    const std::string path = "/tmp/tessim-groups-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "name: bad\nkernel: conv2d\nh: 8\nw: 8\nchannels: 12\nfilters: 16\nk: 3\n"
                           "groups: 8\n";
    RunRequest r;
    r.target = "npu";
    r.workload = path;
    try {
        runSimulation(r);
        ADD_FAILURE() << "groups 8 with 12 channels was accepted";
    } catch (const config::ConfigError& e) {
        EXPECT_EQ(e.key(), "groups");
        EXPECT_EQ(e.location().line, 8);
        EXPECT_EQ(e.location().column, 1);  // the key
        EXPECT_NE(std::string(e.what()).find(path + ":8:1"), std::string::npos) << e.what();
        EXPECT_NE(e.detail().find("must divide"), std::string::npos) << e.detail();
    }
    const auto cli = test::runTessim("run --target npu --workload " + path);
    EXPECT_EQ(cli.exitCode, 2) << cli.err;
    EXPECT_NE(cli.err.find(path + ":8:1: error: groups:"), std::string::npos) << cli.err;
    std::remove(path.c_str());
}

// The MobileNetV2 library list (Sandler et al., CVPR 2018, Table 2): 52 convolutions, 17 of them
// depthwise, and the classifier; about 300 M multiply-adds as the paper's Table 3 gives.
TEST(GroupedConv, MobileNetV2LayerListHasThePapersShapes) {
    RunRequest r;
    r.target = "npu";
    r.workload = "mobilenetv2";
    auto report = runSimulation(r);
    const auto& layers = report["workload"]["config"]["layers"];
    ASSERT_EQ(layers.size(), 53u);
    unsigned depthwise = 0;
    for (const auto& l : layers)
        if (l.contains("groups")) {
            ++depthwise;
            EXPECT_EQ(l["groups"], l["channels"]);
            EXPECT_EQ(l["filters"], l["channels"]);
            EXPECT_EQ(l["k"].get<int>(), 3);
        }
    EXPECT_EQ(depthwise, 17u);
    EXPECT_EQ(layers.back()["out_h"].get<int>(), 1);
    EXPECT_EQ(layers[layers.size() - 2]["filters"].get<int>(), 1280);
    EXPECT_EQ(layers[layers.size() - 2]["h"].get<int>(), 7);
    const std::uint64_t macs = report["workload"]["config"]["macs"].get<std::uint64_t>();
    EXPECT_GT(macs, 290'000'000u);
    EXPECT_LT(macs, 310'000'000u);
    EXPECT_GE(report["seconds"].get<double>(), report["bounds"]["compute_s"].get<double>());
}

}  // namespace
}  // namespace tessim
