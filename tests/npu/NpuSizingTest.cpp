// What sizing the NPU relies on: the MAC array's operands stream through the SRAM model (fewer
// banks slow a layer, never below its SRAM bound), the DMA channels the target has are the ones
// kernels use, DDR traffic counts whole bursts (bus bytes ≥ useful bytes, equal when every
// transfer fills its bursts), and a plan's roles are checked before simulation.
#include <gtest/gtest.h>

#include "common/ProcessRunner.h"

#include <string>

#include <nlohmann/json.hpp>

#include "run/pipeline/Simulation.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using nlohmann::json;

json runSizingCli(const std::string& args) {
    auto r = test::runTessim("run --target npu " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return json::parse(r.out);
}

std::uint64_t busBytes(const json& report, const char* level) {
    const auto& t = report["traffic_bytes"][level];
    return t["read"].get<std::uint64_t>() + t["write"].get<std::uint64_t>();
}
// useful_bytes is present only where some level moved more than was asked of it.
std::uint64_t usefulBytes(const json& report, const char* level) {
    const auto& t =
        report.contains("useful_bytes") ? report["useful_bytes"][level] : report["traffic_bytes"][level];
    return t["read"].get<std::uint64_t>() + t["write"].get<std::uint64_t>();
}

TEST(SramBandwidth, OneBankIsSlowerThanSixteenAndNeverBeatsItsSramBound) {
    const json wide = runSizingCli("--workload conv1080p --plan double-buffer");
    const json narrow = runSizingCli("--workload conv1080p --plan double-buffer --set target.sram.banks=1");
    const double fast = wide["seconds"].get<double>(), slow = narrow["seconds"].get<double>();
    const double bound = narrow["bounds"]["bandwidth_s"]["sram"].get<double>();
    EXPECT_GT(slow, fast);
    EXPECT_GE(slow, bound) << "1 bank: " << slow << " s, SRAM bound " << bound << " s";
    EXPECT_GE(fast, wide["bounds"]["bandwidth_s"]["sram"].get<double>());
    // SRAM-bound, the layer takes about what all its SRAM bytes (the array's and the DMA's) need
    // at the SRAM's bandwidth; compute-bound (16 banks), the array hardly waits.
    EXPECT_LE(slow, 1.05 * double(busBytes(narrow, "sram")) / 32e9);
    EXPECT_LT(wide["stall_fraction"].get<double>(), 0.01);
    // One bank of 16 B at 1 GHz, two ports: 32 GB/s for the array's operand bytes.
    EXPECT_DOUBLE_EQ(bound, narrow["bounds"]["compulsory_bytes"]["sram"].get<double>() / 32e9);
    // The array's bytes are SRAM traffic (the DMA's come on top), and the plan's closed form
    // (the bound's bytes) counts exactly what the array streamed.
    const auto& mac = narrow["stats"]["npu"]["npu"]["mac"];
    EXPECT_EQ(narrow["bounds"]["compulsory_bytes"]["sram"].get<std::uint64_t>(),
              mac["sram_read_bytes"]["value"].get<std::uint64_t>() +
                  mac["sram_write_bytes"]["value"].get<std::uint64_t>());
    EXPECT_GE(busBytes(narrow, "sram"), mac["sram_read_bytes"]["value"].get<std::uint64_t>() +
                                            mac["sram_write_bytes"]["value"].get<std::uint64_t>());
}

class DmaChannels : public ::testing::TestWithParam<int> {};

TEST_P(DmaChannels, ConvRunsOnWhatTheTargetHas) {
    RunRequest r;
    r.target = "npu";
    r.workload = "resnet18-layer2";
    r.plan = "double-buffer";
    r.sets = {"target.dma.channels=" + std::to_string(GetParam())};
    const json report = runSimulation(r);
    EXPECT_GT(report["seconds"].get<double>(), 0.0);
    EXPECT_GE(report["seconds"].get<double>(), report["bounds"]["compute_s"].get<double>());
}
INSTANTIATE_TEST_SUITE_P(Channels, DmaChannels, ::testing::Values(1, 2, 3, 4, 8));

// With few bursts in flight per channel, channels beyond the four streams fetch the input in
// parallel: the single-buffered layer, which waits for every fetch, gets faster.
TEST(DmaChannels, ExtraChannelsShareTheInput) {
    const std::string plan = "--workload conv1080p --plan static-single --set target.dma.outstanding=2 ";
    const json four = runSizingCli(plan + "--set target.dma.channels=4");
    const json eight = runSizingCli(plan + "--set target.dma.channels=8");
    EXPECT_LT(eight["seconds"].get<double>(), four["seconds"].get<double>());
    EXPECT_GT(eight["stats"]["npu"]["dma"]["channel7.bytes"]["value"].get<std::uint64_t>(), 0u);
}

TEST(DmaChannels, MoreThanTheTargetHasIsAConfigError) {
    RunRequest r;
    r.target = "npu";
    r.workload = "resnet18-layer2";
    r.plan = "double-buffer";
    r.sets = {"target.dma.channels=2", "plan.dma_channels=3"};
    try {
        runSimulation(r);
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("dma_channels"), std::string::npos) << e.what();
    }
}

TEST(BusBytes, UnalignedRowsMoveWholeBursts) {
    const json report = runSizingCli("--workload conv1080p --plan double-buffer");
    ASSERT_TRUE(report.contains("useful_bytes"));
    EXPECT_GT(busBytes(report, "ddr"), usefulBytes(report, "ddr"));
    // 32 B bursts (LPDDR4X x16, BL16).
    EXPECT_EQ(busBytes(report, "ddr") % 32, 0u);
    const auto& ddr = report["stats"]["npu"]["ddr"];
    EXPECT_EQ(busBytes(report, "ddr"), 32 * (ddr["read_bursts"]["value"].get<std::uint64_t>() +
                                             ddr["write_bursts"]["value"].get<std::uint64_t>()));
    // Useful bytes are what the plan asks for: every fetch and write-back once.
    const auto& p = report["plan"]["config"];
    EXPECT_EQ(usefulBytes(report, "ddr"),
              p["input_fetch_bytes"].get<std::uint64_t>() + p["weight_fetch_bytes"].get<std::uint64_t>() +
                  p["zero_line_bytes"].get<std::uint64_t>() + p["output_bytes"].get<std::uint64_t>());
}

// 39×57 tiles (the planner's choice when it counted requested bytes): 59-byte input rows at every
// alignment span two or three 32-byte bursts, so the bus moves half as much again as requested.
// The planner, counting bus bytes, estimates that within 3 % and picks tiles that move less.
TEST(BusBytes, ThePlannerMinimisesBusBytes) {
    const json narrow = runSizingCli(
        "--workload conv1080p --plan double-buffer --set plan.tile_h=39 --set plan.tile_w=57 --set "
        "plan.tile_c=32 --set plan.tile_f=64 --set plan.loop_order=filters-outer");
    const json chosen = runSizingCli("--workload conv1080p --plan double-buffer");
    const double bus = double(busBytes(narrow, "ddr")), useful = double(usefulBytes(narrow, "ddr"));
    EXPECT_GT(bus, 1.45 * useful);
    EXPECT_NEAR(narrow["plan"]["config"]["estimate"]["ddr_bytes"].get<double>(), bus, 0.03 * bus);
    EXPECT_LT(double(busBytes(chosen, "ddr")), bus);
    EXPECT_LE(chosen["seconds"].get<double>(), narrow["seconds"].get<double>() * 1.001);
}

TEST(BusBytes, BurstAlignedTransfersMoveExactlyTheirBytes) {
    // Whole 64-byte rows, whole planes, no padding: every DMA transfer starts and ends on a burst.
    const json report = runSizingCli(
        "--workload conv1080p --plan static-single --set workload.h=32 --set workload.w=64 --set "
        "workload.channels=32 --set workload.filters=32 --set workload.k=1 --set workload.pad=0 --set "
        "plan.tile_w=full --set plan.tile_c=full --set plan.tile_f=full");
    EXPECT_FALSE(report.contains("useful_bytes")) << report["useful_bytes"].dump();
    EXPECT_EQ(busBytes(report, "ddr"), 32u * 64 * 32 + 32u * 32 + 32u * 64 * 32);
}

TEST(PlanRoles, DdrAsTheTileMemoryIsRefusedBeforeSimulation) {
    RunRequest r;
    r.target = "npu";
    r.workload = "conv1080p";
    r.plan = "double-buffer";
    r.sets = {"plan.sram=ddr"};
    try {
        runSimulation(r);
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("sram: conv2d tiles"), std::string::npos) << what;
        EXPECT_NE(what.find("on-chip"), std::string::npos) << what;
    }
}

TEST(PlanRoles, AMemoryTheEngineDoesNotReachIsRefusedBeforeSimulation) {
    auto r = test::runTessim(
        "run --target npu --workload conv1080p --set target.buf.impl=scratchpad --set target.buf.size=64KiB "
        "--set target.buf.clock=1GHz --set 'target.dma.memories=[sram, ddr, buf]' --set plan.sram=buf");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("'buf' (level buf) is not among its memories"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessim
