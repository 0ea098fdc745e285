// One network on every chip: the same conv2d layer list (an INT8 model) runs on the npu (tiled on
// the MAC array), the K1 (im2col + RVV GEMM in f32) and ftm2000 (the shuffle convolution in f32,
// layer by layer on its four cores, filters in blocks that fit its SM), each layer checked
// against its reference and never faster than its compute bound.
#include <algorithm>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

std::string writeNetwork() {
    const std::string path = "/tmp/tessim-net-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: stem, h: 16, w: 16, channels: 3, filters: 8, k: 3, stride: 2, pad: 1}\n"
           "  - {name: body, h: 8, w: 8, channels: 8, filters: 8, k: 3, pad: 1}\n"
           "  - {name: head, h: 8, w: 8, channels: 8, filters: 16, k: 1}\n";
    return path;
}

nlohmann::json runNetwork(const std::string& args) {
    const auto r = test::runTessim("run " + args + " --format json");
    EXPECT_EQ(r.exitCode, 0) << args << ": " << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// The layer list at `path` on k1, ftm2000 and the npu with --functional: every one of its
// `elements` outputs as the reference computes it.
void expectCheckedOnEveryChip(const std::string& path, std::uint64_t elements) {
    for (const std::string target : {"k1", "ftm2000", "npu"}) {
        SCOPED_TRACE(target);
        const auto j = runNetwork("--target " + target + " --workload " + path + " --functional");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], elements);
    }
}

TEST(OneNetworkEveryChip, EveryLayerRunsCheckedAndAtOrAboveItsBoundOnEachChip) {
    const std::string net = writeNetwork();
    for (const std::string target : {"npu", "k1", "ftm2000"}) {
        const auto j = runNetwork("--target " + target + " --workload " + net + " --functional");
        ASSERT_FALSE(j.is_null()) << target;
        EXPECT_EQ(j["functional"]["mismatches"], 0) << target << " " << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 8 * 8 * 8 + 8 * 8 * 8 + 8 * 8 * 16) << target;
        ASSERT_EQ(j["layers"].size(), 3u) << target;
        double sum = 0.0;
        for (const auto& l : j["layers"]) {
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>())
                << target << " " << l["name"];
            sum += l["seconds"].get<double>();
        }
        EXPECT_NEAR(sum, j["seconds"].get<double>(), 1e-9) << target;
        EXPECT_GE(j["seconds"].get<double>(), j["bounds"]["compute_s"].get<double>()) << target;
        if (target == "ftm2000") {
            // The INT8 model ran in f32 on all four cores.
            EXPECT_EQ(j["layers"][0]["dtype"], "f32");
            EXPECT_EQ(j["layers"][0]["model_dtype"], "i8");
            EXPECT_EQ(j["plan"]["config"]["cores"], 4);
            for (const auto& l : j["layers"])
                EXPECT_TRUE(l["strategy"] == "shuffle" || l["strategy"] == "im2col") << l;
            // The report's workload (f32 beside the model's i8) runs again as it is.
            const std::string again = net + ".again.json";
            std::ofstream(again) << j["workload"]["config"].dump();
            const auto rerun = runNetwork("--target ftm2000 --workload " + again);
            EXPECT_EQ(rerun["cycles"], j["cycles"]);
            std::remove(again.c_str());
        }
    }
    std::remove(net.c_str());
}

TEST(OneNetworkEveryChip, FiltersThatDoNotFitTheDspsMemoryRunInBlocks) {
    // 64 filters of 256×3×3 f32: 16 per core take 147 KiB of a 96 KiB SM, so two blocks of 32.
    const auto j =
        runNetwork("--target ftm2000 --workload resnet18-layer1 --set workload.h=8 --set workload.w=8 "
                   "--set workload.channels=256 --functional");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 8 * 8 * 64);
    EXPECT_EQ(j["plan"]["config"]["filter_blocks"], nlohmann::json::array({2}));
    EXPECT_EQ(j["layers"][0]["filter_blocks"], 2);
    // The same layer on one core, where it fits whole, is told so by the plan: one block.
    const auto small =
        runNetwork("--target ftm2000 --workload resnet18-layer1 --set workload.h=8 --set workload.w=8 "
                   "--set workload.channels=16 --set workload.filters=8 --set plan.cores=1");
    ASSERT_FALSE(small.is_null());
    EXPECT_FALSE(small.contains("layers") && small["layers"].is_array() && !small["layers"].empty());
}

// Without a strategy in the plan each DSP layer runs the lowering its estimate finds faster: the
// shuffle convolution for a deep stride-1 3×3 layer, im2col for a strided 1×1 one; forced, each
// of those is slower in simulation. The report's workload and plan run again as they are.
TEST(OneNetworkEveryChip, EachDspLayerRunsTheLoweringThatSimulatesFaster) {
    const std::string path = "/tmp/tessim-mix-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\ndtype: f32\nlayers:\n"
                           "  - {name: deep3x3, h: 28, w: 28, channels: 64, filters: 8, k: 3, pad: 1}\n"
                           "  - {name: down1x1, h: 32, w: 32, channels: 16, filters: 32, k: 1, stride: 2}\n";
    const auto chosen = runNetwork("--target ftm2000 --workload " + path + " --functional");
    const auto shuffle = runNetwork("--target ftm2000 --workload " + path + " --plan shuffle");
    const auto im2col = runNetwork("--target ftm2000 --workload " + path + " --plan im2col");
    ASSERT_FALSE(chosen.is_null() || shuffle.is_null() || im2col.is_null());
    EXPECT_EQ(chosen["functional"]["mismatches"], 0);
    ASSERT_EQ(chosen["layers"].size(), 2u);
    EXPECT_EQ(chosen["layers"][0]["strategy"], "shuffle");
    EXPECT_EQ(chosen["layers"][1]["strategy"], "im2col");
    EXPECT_FALSE(chosen["plan"]["config"].contains("strategy"));  // it differs per layer
    for (int i = 0; i < 2; ++i) {
        const double best = std::min(shuffle["layers"][i]["seconds"].get<double>(),
                                     im2col["layers"][i]["seconds"].get<double>());
        EXPECT_NEAR(chosen["layers"][i]["seconds"].get<double>(), best, 0.02 * best) << i;
    }
    EXPECT_LT(chosen["seconds"].get<double>(), shuffle["seconds"].get<double>());
    EXPECT_LT(chosen["seconds"].get<double>(), im2col["seconds"].get<double>());
    const std::string plan = path + ".plan.json";
    std::ofstream(path) << chosen["workload"]["config"].dump();
    std::ofstream(plan) << chosen["plan"]["config"].dump();
    const auto again = runNetwork("--target ftm2000 --workload " + path + " --plan " + plan);
    EXPECT_EQ(again["cycles"], chosen["cycles"]);
    std::remove(path.c_str());
    std::remove(plan.c_str());
}

// Strided layers whose im2col gathers element by element — a stride-2 depthwise layer, a layer at
// column stride 3 — take the shuffle: im2col's estimate charges the DMA a cycle per gathered element
// (it had charged the AM's bandwidth alone and picked im2col, 5.1× and 2.2× slower).
TEST(OneNetworkEveryChip, StridedLayersThatGatherElementsPickTheFasterLowering) {
    const std::string path = "/tmp/tessim-strided-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: f32\nlayers:\n"
           "  - {name: dw, h: 28, w: 28, channels: 192, filters: 192, k: 3, stride: 2, pad: 1, groups: 192}\n"
           "  - {name: wide, h: 9, w: 16, channels: 8, filters: 8, k: 3, pad: 1, stride_h: 1, stride_w: 3}\n";
    const auto chosen = runNetwork("--target ftm2000 --workload " + path + " --functional");
    const auto shuffle = runNetwork("--target ftm2000 --workload " + path + " --plan shuffle");
    const auto im2col = runNetwork("--target ftm2000 --workload " + path + " --plan im2col");
    std::remove(path.c_str());
    ASSERT_FALSE(chosen.is_null() || shuffle.is_null() || im2col.is_null());
    EXPECT_EQ(chosen["functional"]["mismatches"], 0);
    ASSERT_EQ(chosen["layers"].size(), 2u);
    for (int i = 0; i < 2; ++i) {
        const double best = std::min(shuffle["layers"][i]["seconds"].get<double>(),
                                     im2col["layers"][i]["seconds"].get<double>());
        EXPECT_NEAR(chosen["layers"][i]["seconds"].get<double>(), best, 0.02 * best) << i;
    }
}

// Element-wise layers run on the DSP's cores as vector streams beside the convolutions: every
// output equal to the reference, every layer at or above its bound, the work split evenly.
TEST(OneNetworkEveryChip, ElementWiseLayersRunAsVectorStreamsOnTheDsp) {
    const std::string path = "/tmp/tessim-ew-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: f32\nlayers:\n"
           "  - {name: conv, h: 16, w: 16, channels: 8, filters: 16, k: 3, pad: 1}\n"
           "  - {name: relu, op: Relu, h: 16, w: 16, channels: 16}\n"
           "  - {name: clip, op: Clip, h: 16, w: 16, channels: 16, min: -0.25, max: 0.5}\n"
           "  - {name: add, op: Add, h: 16, w: 16, channels: 16}\n"
           "  - {name: half, op: Mul, h: 16, w: 16, channels: 16, broadcast: constant, value: 0.5}\n"
           "  - {name: sub, op: Sub, h: 5, w: 3, channels: 7}\n"
           "  - {name: hsig, op: HardSigmoid, h: 16, w: 16, channels: 16, alpha: 0.25, beta: 0.5}\n"
           "  - {name: hswish, op: HardSwish, h: 16, w: 16, channels: 16}\n"
           "  - {name: bias, op: Add, h: 16, w: 16, channels: 16, broadcast: channel}\n"
           "  - {name: scale, op: Mul, h: 5, w: 3, channels: 7, broadcast: channel}\n";
    const auto j = runNetwork("--target ftm2000 --workload " + path + " --functional");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 8 * 16 * 16 * 16 + 2 * 5 * 3 * 7);
    ASSERT_EQ(j["layers"].size(), 10u);
    for (std::size_t i = 1; i < 10; ++i) {
        const auto& l = j["layers"][i];
        EXPECT_EQ(l["strategy"], "vector") << l["name"];
        EXPECT_EQ(l["flops"], l["name"] == "sub" || l["name"] == "scale" ? 105 : 4096) << l["name"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        EXPECT_GT(l["compute_bound_s"].get<double>(), 0.0) << l["name"];
    }
    // The Add reads two tensors and writes one: more DDR traffic and time than the Relu.
    EXPECT_GT(j["layers"][3]["seconds"].get<double>(), j["layers"][1]["seconds"].get<double>());
    // Even slices of whole vectors (the 105-element layer's last core has 9 elements).
    const double work = j["engines"]["core0"]["work"].get<double>();
    for (const char* core : {"core1", "core2", "core3"})
        EXPECT_NEAR(j["engines"][core]["work"].get<double>(), work, 0.001 * work) << core;
    // `compare` names the strategies the layers took, in order.
    const auto cmp = test::runTessim("compare --workload " + path + " --targets ftm2000 --format json");
    ASSERT_EQ(cmp.exitCode, 0) << cmp.err;
    EXPECT_EQ(nlohmann::json::parse(cmp.out)["chips"]["ftm2000"]["plan"],
              j["layers"][0]["strategy"].get<std::string>() + "+vector");
    // The report's workload runs again as it is.
    std::ofstream(path) << j["workload"]["config"].dump();
    const auto again = runNetwork("--target ftm2000 --workload " + path);
    EXPECT_EQ(again["cycles"], j["cycles"]);
    std::remove(path.c_str());
}

// Pools run on the DSP's cores too, the channels split over them: max and average windows with
// padding and stride (the average over the taps inside the map), global pools in passes of taps;
// every output equal to the reference.
TEST(OneNetworkEveryChip, PoolingLayersRunOnTheDspCores) {
    const std::string path = "/tmp/tessim-pool-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: f32\nlayers:\n"
           "  - {name: maxpool, op: MaxPool, h: 16, w: 16, channels: 64, k: 3, stride: 2, pad: 1}\n"
           "  - {name: avgpool, op: AveragePool, h: 9, w: 7, channels: 70, k: 3, stride: 2, pad: 1}\n"
           "  - {name: gap, op: GlobalAveragePool, h: 7, w: 7, channels: 40}\n"
           "  - {name: gmp, op: GlobalMaxPool, h: 5, w: 5, channels: 3}\n";
    const auto j = runNetwork("--target ftm2000 --workload " + path + " --functional");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 8 * 8 * 64 + 5 * 4 * 70 + 40 + 3);
    ASSERT_EQ(j["layers"].size(), 4u);
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["strategy"], "vector") << l["name"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
    }
    EXPECT_EQ(j["layers"][0]["flops"], 8 * 8 * 64 * 9);
    EXPECT_EQ(j["layers"][2]["flops"], 40 * 49);
    // Reported as the K1 reports its pools: a filter per channel, the window, a global pool's the map.
    EXPECT_EQ(j["layers"][0]["filters"], 64);
    EXPECT_EQ(j["layers"][0]["kh"], 3);
    EXPECT_EQ(j["layers"][0]["stride"], 2);
    EXPECT_EQ(j["layers"][0]["pad_w"], 1);
    EXPECT_EQ(j["layers"][2]["kw"], 7);
    EXPECT_EQ(j["layers"][2]["lowering"], "a pooling loop on every core");
    std::remove(path.c_str());
}

// A pool of few channels (LeNet-5's 6) split by channels would DMA each pixel's 8 B as a run of its
// own; split by bands of output rows each core reads its rows whole. Both give the reference.
TEST(OneNetworkEveryChip, PoolsSplitTheirOutputRowsOverTheDspCores) {
    const std::string path = "/tmp/tessim-pool-rows-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\ndtype: f32\nlayers:\n"
                           "  - {name: s2, op: AveragePool, h: 28, w: 28, channels: 6, k: 2, stride: 2}\n";
    const auto rows = runNetwork("--target ftm2000 --workload " + path + " --functional");
    const auto channels =
        runNetwork("--target ftm2000 --workload " + path + " --functional --set plan.split=channels");
    std::remove(path.c_str());
    ASSERT_FALSE(rows.is_null());
    ASSERT_FALSE(channels.is_null());
    EXPECT_EQ(rows["functional"]["mismatches"], 0) << rows["functional"];
    EXPECT_EQ(channels["functional"]["mismatches"], 0) << channels["functional"];
    EXPECT_EQ(rows["functional"]["elements"], 14 * 14 * 6);
    EXPECT_LT(5 * rows["cycles"].get<double>(), channels["cycles"].get<double>());
    EXPECT_LT(rows["traffic_bytes"]["ddr"]["read"].get<double>(),
              1.1 * channels["traffic_bytes"]["ddr"]["read"].get<double>());
}

// A grouped layer runs on the DSP as a convolution per group: with at least as many groups as
// cores, each group on one core and the cores side by side (equal work on each), else the groups
// one after another on every core; the outputs equal the grouped reference either way.
TEST(OneNetworkEveryChip, GroupedLayersRunAConvolutionPerGroupOnTheDsp) {
    const std::string path = "/tmp/tessim-grouped-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\ndtype: f32\nlayers:\n"
           "  - {name: dw, h: 12, w: 12, channels: 8, filters: 8, k: 3, pad: 1, groups: 8}\n"
           "  - {name: dw2, h: 12, w: 12, channels: 8, filters: 16, k: 3, stride: 2, groups: 8}\n"
           "  - {name: g2, h: 6, w: 6, channels: 8, filters: 8, k: 3, pad: 1, groups: 2}\n";
    const auto j = runNetwork("--target ftm2000 --workload " + path + " --functional");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 12 * 12 * 8 + 5 * 5 * 16 + 6 * 6 * 8);
    ASSERT_EQ(j["layers"].size(), 3u);
    // MACs of the grouped layers: each filter sees its group's channels only.
    EXPECT_EQ(j["layers"][0]["macs"], 12 * 12 * 8 * 9);
    EXPECT_EQ(j["layers"][1]["macs"], 5 * 5 * 16 * 9);
    EXPECT_EQ(j["layers"][2]["macs"], 6 * 6 * 8 * 4 * 9);
    EXPECT_EQ(j["layers"][0]["lowering"], "a convolution per group, groups side by side on the cores");
    EXPECT_EQ(j["layers"][2]["lowering"], "a convolution per group, one after another on every core");
    EXPECT_EQ(j["layers"][2]["groups"], 2);
    EXPECT_EQ(j["layers"][2]["channels"], 8);
    EXPECT_EQ(j["plan"]["config"]["cores"], 4);
    for (const auto& l : j["layers"])
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
    // Side by side: every core does the same work.
    const double work = j["engines"]["core0"]["work"].get<double>();
    for (const char* core : {"core1", "core2", "core3"})
        EXPECT_EQ(j["engines"][core]["work"].get<double>(), work) << core;
    // The report's workload runs again as it is: the same cycles.
    std::ofstream(path) << j["workload"]["config"].dump();
    const auto again = runNetwork("--target ftm2000 --workload " + path);
    EXPECT_EQ(again["cycles"], j["cycles"]);
    std::remove(path.c_str());
}

TEST(OneNetworkEveryChip, AGroupedLayerOnItsOwnRunsAndBadGroupsAreRefused) {
    const auto one =
        runNetwork("--target ftm2000 --workload conv-ftm --plan shuffle --set workload.channels=4 "
                   "--set workload.filters=4 --set workload.groups=4 --set workload.h=16 "
                   "--set workload.w=16 --functional");
    ASSERT_FALSE(one.is_null());
    EXPECT_EQ(one["functional"]["mismatches"], 0) << one["functional"];
    ASSERT_EQ(one["layers"].size(), 1u);
    EXPECT_EQ(one["layers"][0]["groups"], 4);
    const auto bad = test::runTessim("run --target ftm2000 --workload conv-ftm --plan shuffle --set "
                                     "workload.channels=4 --set workload.filters=6 --set workload.groups=4");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.out.empty());
    EXPECT_NE(bad.err.find("groups: 4 groups do not divide 4 channels and 6 filters"), std::string::npos)
        << bad.err;
}

// On the npu the array runs the convolutions and the vector processor beside it (vpu) the
// element-wise and pooling layers of an INT8 network: in INT8 where integer arithmetic is the op
// (max, min, add, an integer constant), in f16 where it takes a fraction (averages); every output
// equal to the reference, every layer at or above its bound, its DDR bytes counted, and the
// report's workload runs again to the same cycles.
TEST(OneNetworkEveryChip, ElementWiseAndPoolingLayersRunOnTheNpusVectorProcessor) {
    const std::string path = "/tmp/tessim-npu-vec-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: conv, h: 16, w: 16, channels: 8, filters: 16, k: 3, pad: 1}\n"
           "  - {name: relu, op: Relu, h: 16, w: 16, channels: 16}\n"
           "  - {name: clip, op: Clip, h: 16, w: 16, channels: 16, min: -3, max: 6}\n"
           "  - {name: add, op: Add, h: 16, w: 16, channels: 16}\n"
           "  - {name: bias, op: Add, h: 16, w: 16, channels: 16, broadcast: channel}\n"
           "  - {name: twice, op: Mul, h: 16, w: 16, channels: 16, broadcast: constant, value: 2}\n"
           "  - {name: maxpool, op: MaxPool, h: 16, w: 16, channels: 16, k: 3, stride: 2, pad: 1}\n"
           "  - {name: avgpool, op: AveragePool, h: 8, w: 8, channels: 16, k: 2, stride: 2}\n"
           "  - {name: gap, op: GlobalAveragePool, h: 4, w: 4, channels: 16}\n";
    const auto j = runNetwork("--target npu --workload " + path + " --functional");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 6 * 16 * 16 * 16 + 8 * 8 * 16 + 4 * 4 * 16 + 16);
    ASSERT_EQ(j["layers"].size(), 9u);
    EXPECT_EQ(j["layers"][0]["dtype"], "i8");
    for (std::size_t i = 1; i < 9; ++i) {
        const auto& l = j["layers"][i];
        const bool average = i >= 7;
        EXPECT_EQ(l["dtype"], average ? "f16" : "i8") << l["name"];
        if (average) {
            EXPECT_EQ(l["model_dtype"], "i8") << l["name"];
        }
        EXPECT_EQ(l["strategy"], "vector") << l["name"];
        EXPECT_NE(l["lowering"].get<std::string>().find("on engine vpu"), std::string::npos) << l["lowering"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        EXPECT_GT(l["ddr_read_bytes"].get<std::uint64_t>(), 0u) << l["name"];
    }
    // An INT8 Relu reads and writes a byte per element; the f16 average pool two.
    EXPECT_EQ(j["layers"][1]["ddr_read_bytes"], 16 * 16 * 16);
    EXPECT_EQ(j["layers"][1]["ddr_write_bytes"], 16 * 16 * 16);
    EXPECT_EQ(j["layers"][7]["ddr_write_bytes"], 2 * 4 * 4 * 16);
    EXPECT_GT(j["engines"]["vpu"]["work"].get<double>(), 0.0);
    EXPECT_EQ(j["engines"]["npu"]["work"], 16 * 16 * 16 * 8 * 9);
    // The report's workload runs again as it is.
    std::ofstream(path) << j["workload"]["config"].dump();
    const auto again = runNetwork("--target npu --workload " + path);
    EXPECT_EQ(again["cycles"], j["cycles"]);
    std::remove(path.c_str());
}

// Average pools over more channels than a register holds: the pool loop's broadcast of the
// reciprocal issues from a vector slot on the vpu (a scalar one on ftm2000's SPU). Scheduled as a
// scalar op, a 64-channel pool once put four vector ops in a 3-slot bundle and the run failed.
TEST(OneNetworkEveryChip, WideAveragePoolsRunOnTheNpusVectorProcessor) {
    const std::string path = "/tmp/tessim-npu-pools-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\ndtype: i8\nlayers:\n"
                           "  - {name: avgpool, op: AveragePool, h: 8, w: 8, channels: 64, k: 2, stride: 2}\n"
                           "  - {name: gap, op: GlobalAveragePool, h: 7, w: 7, channels: 512}\n";
    const auto j = runNetwork("--target npu --workload " + path + " --functional");
    std::remove(path.c_str());
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
    EXPECT_EQ(j["functional"]["elements"], 4 * 4 * 64 + 512);
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["dtype"], "f16") << l["name"];
        // Bound by the vpu's own vector ALU: 64 B of f16 is 32 lanes, one op each per cycle at
        // 1 GHz (not the MAC array's 2,048 MACs per cycle, which made it 64× looser).
        EXPECT_DOUBLE_EQ(l["compute_bound_s"].get<double>(), l["flops"].get<double>() / 32e9) << l["name"];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
    }
}

// A fully connected layer on ftm2000 fills one lane of a map-wide vector; as a GEMV its outputs
// are the map (the weights stored transposed as a C-channel map, the input vector one 1×1 filter),
// the same MACs and bytes, and it runs DDR-bound: 256 → 512 in f32 35,306 cycles against 198,401
// with the map-wide im2col the plan can still ask for.
TEST(OneNetworkEveryChip, AFullyConnectedLayerRunsAsAGemvOnFtm2000) {
    const std::string path = "/tmp/tessim-ftm-fc-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\ndtype: f32\nlayers:\n"
                           "  - {name: fc, h: 1, w: 1, channels: 256, filters: 512, k: 1}\n";
    const auto gemv = runNetwork("--target ftm2000 --workload " + path + " --functional");
    const auto mapWide = runNetwork("--target ftm2000 --workload " + path + " --plan im2col");
    ASSERT_FALSE(gemv.is_null());
    ASSERT_FALSE(mapWide.is_null());
    EXPECT_EQ(gemv["functional"]["mismatches"], 0) << gemv["functional"];
    EXPECT_EQ(gemv["functional"]["elements"], 512);
    const auto& l = gemv["layers"][0];
    EXPECT_NE(l["lowering"].get<std::string>().find("a GEMV"), std::string::npos) << l["lowering"];
    EXPECT_EQ(l["h"], 1);
    EXPECT_EQ(l["w"], 1);
    EXPECT_EQ(l["channels"], 256);
    EXPECT_EQ(l["filters"], 512);
    EXPECT_EQ(l["macs"], mapWide["layers"][0]["macs"]);
    EXPECT_LT(3 * gemv["cycles"].get<double>(), mapWide["cycles"].get<double>());
    // Never faster than streaming its f32 weights from the 19.2 GB/s DDR.
    EXPECT_GE(l["seconds"].get<double>(), 256.0 * 512 * 4 / 19.2e9);
    // The report's workload is the layer as written, and runs again to the same cycles.
    std::ofstream(path) << gemv["workload"]["config"].dump();
    const auto again = runNetwork("--target ftm2000 --workload " + path);
    EXPECT_EQ(again["cycles"], gemv["cycles"]);
    std::remove(path.c_str());
}

// LeakyRelu on every chip: max(x, α·x) (min for α > 1) as a multiply by the splat slope and a
// max, bit-exact against the reference; on the npu in f16 (a fractional slope on an INT8 network).
TEST(OneNetworkEveryChip, LeakyReluRunsOnEveryChip) {
    const std::string path = "/tmp/tessim-leaky-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n"
                           "  - {name: leaky, op: LeakyRelu, h: 8, w: 8, channels: 16, alpha: 0.1}\n"
                           "  - {name: steep, op: LeakyRelu, h: 8, w: 8, channels: 16, alpha: 3}\n";
    for (const std::string target : {"k1", "ftm2000", "npu"}) {
        const auto j = runNetwork("--target " + target + " --workload " + path + " --set workload.dtype=" +
                                  (target == "npu" ? "i8" : "f32") + " --functional");
        ASSERT_FALSE(j.is_null()) << target;
        EXPECT_EQ(j["functional"]["mismatches"], 0) << target << " " << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 2 * 8 * 8 * 16) << target;
        for (const auto& l : j["layers"]) {
            EXPECT_EQ(l["dtype"], target == "npu" ? "f16" : "f32") << target << " " << l["name"];
            EXPECT_EQ(l["flops"], 8 * 8 * 16) << target;
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << target;
        }
    }
    std::remove(path.c_str());
}

// PRelu on every chip: max(x, slope·x) with one slope per channel (loaded beside each pixel's
// strip), one for the tensor, or one per element; bit-exact against the reference, where the
// slopes of the test data (−1 … 1) take both signs; a constant slope above 1 is refused at its key.
TEST(OneNetworkEveryChip, PReluRunsOnEveryChip) {
    const std::string path = "/tmp/tessim-prelu-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: conv, h: 8, w: 8, channels: 8, filters: 16, k: 3, pad: 1}\n"
           "  - {name: perchannel, op: PRelu, h: 8, w: 8, channels: 16, broadcast: channel}\n"
           "  - {name: one, op: PRelu, h: 8, w: 8, channels: 16, broadcast: constant, value: 0.25}\n"
           "  - {name: each, op: PRelu, h: 8, w: 8, channels: 16}\n";
    for (const std::string target : {"k1", "ftm2000", "npu"}) {
        const auto j = runNetwork("--target " + target + " --workload " + path + " --set workload.dtype=" +
                                  (target == "npu" ? "i8" : "f32") + " --functional");
        ASSERT_FALSE(j.is_null()) << target;
        EXPECT_EQ(j["functional"]["mismatches"], 0) << target << " " << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 4 * 8 * 8 * 16) << target;
        for (const auto& l : j["layers"]) {
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << target;
            if (l["name"] != "conv") {
                EXPECT_EQ(l["op"], "PRelu") << target;
            }
        }
    }
    const auto steep = test::runTessim("run --target k1 --workload " + path +
                                       " --set 'workload.layers[2].value=1.5' --format json");
    EXPECT_EQ(steep.exitCode, 2);
    EXPECT_TRUE(steep.out.empty());
    EXPECT_NE(steep.err.find("value: PRelu runs as max(x, slope·x)"), std::string::npos) << steep.err;
    std::remove(path.c_str());
}

// Tanh, Sigmoid and Div need a divide: the K1 runs them (its vector divider, the rational tanh)
// bit-exact against the reference in f32 and f16, and on one core a Tanh whose operands stream
// from memory takes over twice a Relu's time (the divider's 190 cycles a register group at m8,
// where the Relu's stream is memory-bound; timed as an add the Tanh would take 1.1–1.3×). ftm2000's
// cores and the npu's vpu have no divider: they divide by Newton–Raphson from a reciprocal estimate
// (`recip`), bit-exact against that sequence's reference (newtonDivideIn), a Div by a constant
// included; on the npu's single vector ALU a Tanh (about 15 ops a vector) takes over twice a Relu's
// time. A unit table without `recip` refuses them at the layer's op with the reason.
// Sub and Div with the second operand first (c − x, c / x: an ONNX node whose broadcast input is
// the minuend or the dividend) compute that, bit for bit, on every chip; the key is theirs alone.
TEST(OneNetworkEveryChip, ReversedSubAndDivRunOnEveryChip) {
    const std::string path = "/tmp/tessim-reversed-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: conv, h: 8, w: 8, channels: 8, filters: 16, k: 3, pad: 1}\n"
           "  - {name: oneminus, op: Sub, h: 8, w: 8, channels: 16, broadcast: constant, value: 1, reversed: "
           "true}\n"
           "  - {name: rsub, op: Sub, h: 8, w: 8, channels: 16, broadcast: channel, reversed: true}\n"
           "  - {name: invert, op: Div, h: 8, w: 8, channels: 16, broadcast: constant, value: 2, reversed: "
           "true}\n"
           "  - {name: rdiv, op: Div, h: 8, w: 8, channels: 16, broadcast: channel, reversed: true}\n"
           "  - {name: ratio, op: Div, h: 8, w: 8, channels: 16, reversed: true}\n";
    expectCheckedOnEveryChip(path, 6 * 8 * 8 * 16);
    const std::string add = "/tmp/tessim-reversed-add-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(add) << "kernel: conv2d\nlayers:\n"
                          "  - {name: add, op: Add, h: 8, w: 8, channels: 16, reversed: true}\n";
    const auto r = test::runTessim("run --target k1 --workload " + add);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("reversed"), std::string::npos) << r.err;
}

// Windows that differ between rows and columns — ONNX's strides [2, 1] and [1, 3], a 3×1 and a 1×5
// kernel, pads [1, 0] and [0, 2] — run checked on every chip, each output map
// ((H + 2·pad_h − kh) / stride_h + 1) × ((W + 2·pad_w − kw) / stride_w + 1); on ftm2000 by the
// shuffle (lane phases and slides along the columns, kernel rows over input rows) or im2col,
// whichever the estimate picks, and by the shuffle alone under --plan shuffle.
TEST(OneNetworkEveryChip, StridesKernelsAndPadsPerAxisRunOnEveryChip) {
    const std::string path = "/tmp/tessim-axes-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: a, h: 17, w: 16, channels: 4, filters: 8, kh: 3, kw: 1, pad_h: 1, stride_h: 2, "
           "stride_w: 1}\n"
           "  - {name: b, h: 9, w: 16, channels: 8, filters: 8, k: 3, pad: 1, stride_h: 1, stride_w: 3}\n"
           "  - {name: c, h: 9, w: 6, channels: 8, filters: 16, kh: 1, kw: 5, pad_h: 0, pad_w: 2}\n";
    for (const std::string run :
         {"--target k1", "--target ftm2000", "--target ftm2000 --plan shuffle", "--target npu"}) {
        SCOPED_TRACE(run);
        const auto j = runNetwork(run + " --workload " + path + " --functional");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 9 * 16 * 8 + 9 * 6 * 8 + 9 * 6 * 16);
        ASSERT_EQ(j["layers"].size(), 3u);
        EXPECT_EQ(j["layers"][0]["stride_h"], 2);
        EXPECT_EQ(j["layers"][1]["stride_w"], 3);
        for (const auto& l : j["layers"]) {
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
            if (run == "--target ftm2000 --plan shuffle") {
                EXPECT_EQ(l["strategy"], "shuffle") << l["name"];
            } else if (run == "--target ftm2000") {
                EXPECT_TRUE(l["strategy"] == "shuffle" || l["strategy"] == "im2col") << l;
            }
        }
    }
    // Grouped layers and pools take the same keys: a 3×5 depthwise layer at strides 2×1, a 4-group
    // layer at 1×2, MaxPool 2×3 at 2×1 and AveragePool 3×2 at 1×2 (padding left out of the average).
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: dw, h: 20, w: 23, channels: 32, filters: 32, kh: 3, kw: 5, stride_h: 2, stride_w: 1, "
           "pad_h: 1, pad_w: 2, groups: 32}\n"
           "  - {name: grp, h: 10, w: 23, channels: 32, filters: 16, k: 3, stride_h: 1, stride_w: 2, pad: 1, "
           "groups: 4}\n"
           "  - {name: pool, op: MaxPool, h: 10, w: 12, channels: 16, kh: 2, kw: 3, stride_h: 2, stride_w: "
           "1}\n"
           "  - {name: avg, op: AveragePool, h: 5, w: 10, channels: 16, kh: 3, kw: 2, stride_h: 1, stride_w: "
           "2, "
           "pad_h: 1}\n";
    expectCheckedOnEveryChip(path, 10 * 23 * 32 + 10 * 12 * 16 + 5 * 10 * 16 + 5 * 5 * 16);
    std::remove(path.c_str());
}

TEST(OneNetworkEveryChip, TanhSigmoidAndDivRunOnEveryChip) {
    const std::string path = "/tmp/tessim-divide-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path)
        << "kernel: conv2d\nlayers:\n"
           "  - {name: conv, h: 8, w: 8, channels: 8, filters: 16, k: 3, pad: 1}\n"
           "  - {name: tanh, op: Tanh, h: 8, w: 8, channels: 16}\n"
           "  - {name: sigmoid, op: Sigmoid, h: 8, w: 8, channels: 16}\n"
           "  - {name: div, op: Div, h: 8, w: 8, channels: 16, broadcast: channel}\n"
           "  - {name: half, op: Div, h: 8, w: 8, channels: 16, broadcast: constant, value: 3}\n";
    const std::string stream = "/tmp/tessim-divide-time-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(stream) << "kernel: conv2d\nlayers:\n"
                             "  - {name: tanh, op: Tanh, h: 64, w: 64, channels: 16}\n"
                             "  - {name: relu, op: Relu, h: 64, w: 64, channels: 16}\n";
    for (const std::string dtype : {"f32", "f16"}) {
        const auto j =
            runNetwork("--target k1 --workload " + path + " --set plan.dtype=" + dtype + " --functional");
        ASSERT_FALSE(j.is_null()) << dtype;
        EXPECT_EQ(j["functional"]["mismatches"], 0) << dtype << " " << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 5 * 8 * 8 * 16) << dtype;
        const auto t = runNetwork("--target k1 --workload " + stream + " --set plan.dtype=" + dtype +
                                  " --set plan.threads=1");
        ASSERT_FALSE(t.is_null()) << dtype;
        EXPECT_GT(t["layers"][0]["cycles"].get<double>(), 2 * t["layers"][1]["cycles"].get<double>())
            << dtype;
    }
    for (const std::string target : {"ftm2000", "npu"}) {
        SCOPED_TRACE(target);
        const auto j = runNetwork("--target " + target + " --workload " + path + " --functional");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 5 * 8 * 8 * 16);
        for (const auto& l : j["layers"])
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
    }
    const auto npu = runNetwork("--target npu --workload " + stream);
    ASSERT_FALSE(npu.is_null());
    EXPECT_GT(npu["layers"][0]["cycles"].get<double>(), 2 * npu["layers"][1]["cycles"].get<double>());
    const auto r = test::runTessim(
        "run --target ftm2000 --workload " + path +
        " --set 'target.core.units.vfmac.ops={fma: {latency: 4}, mul: {latency: 4}, add: {latency: 4}}'");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(":4:22: error: layers[1].op: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("engine 'core0' times no `recip` (a reciprocal estimate): a Tanh layer divides"),
              std::string::npos)
        << r.err;
    std::remove(path.c_str());
    std::remove(stream.c_str());
}

// Concat and Transpose move data: each runs as a copy of its output's elements through the chip's
// vector unit (RVV on the K1, the DSP's cores, the npu's vpu), bit-exact, no arithmetic counted,
// its DDR bytes those of one read and one write where a DMA moves them.
TEST(OneNetworkEveryChip, ConcatAndTransposeRunAsCopiesOnEveryChip) {
    const std::string path = "/tmp/tessim-copy-" + std::to_string(::getpid()) + ".yaml";
    std::ofstream(path) << "kernel: conv2d\nlayers:\n"
                           "  - {name: conv, h: 8, w: 8, channels: 8, filters: 16, k: 3, pad: 1}\n"
                           "  - {name: cat, op: Concat, h: 8, w: 8, channels: 32}\n"
                           "  - {name: tr, op: Transpose, h: 5, w: 7, channels: 3}\n";
    for (const std::string target : {"npu", "k1", "ftm2000"}) {
        SCOPED_TRACE(target);
        const auto j = runNetwork("--target " + target + " --workload " + path + " --functional");
        ASSERT_FALSE(j.is_null());
        EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], 8 * 8 * 16 + 8 * 8 * 32 + 5 * 7 * 3);
        ASSERT_EQ(j["layers"].size(), 3u);
        for (std::size_t i = 1; i < 3; ++i) {
            const auto& l = j["layers"][i];
            EXPECT_EQ(l["flops"], 0) << l["name"];
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
            EXPECT_GT(l["cycles"].get<std::uint64_t>(), 0u) << l["name"];
        }
        if (target == "npu") {  // INT8: a byte read and written per element
            EXPECT_EQ(j["layers"][1]["ddr_read_bytes"], 8 * 8 * 32);
            EXPECT_EQ(j["layers"][1]["ddr_write_bytes"], 8 * 8 * 32);
        }
    }
    std::remove(path.c_str());
}

}  // namespace
}  // namespace tessim
