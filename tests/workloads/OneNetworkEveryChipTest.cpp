// One network on every chip: the same conv2d layer list (an INT8 model) runs on the npu (tiled on
// the MAC array), the K1 (im2col + RVV GEMM in f32) and ftm2000 (the shuffle convolution in f32,
// layer by layer on its four cores, filters in blocks that fit its SM), each layer checked
// against its reference and never faster than its compute bound.
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
            EXPECT_EQ(j["plan"]["config"]["strategy"], "shuffle");
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

}  // namespace
}  // namespace tessim
