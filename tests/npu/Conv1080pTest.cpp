// conv1080p on the npu target: the three strategies through the CLI (one process per run).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "common/UsefulBytes.h"

namespace {

nlohmann::json run(const std::string& plan, const std::string& extra = "") {
    tessim::test::ProcessResult r =
        tessim::test::runTessim("run --target npu --workload conv1080p --plan " + plan + " " + extra);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

std::uint64_t ddrBytes(const nlohmann::json& r) {
    return r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>() +
           r["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>();
}

void checkInvariants(const nlohmann::json& r) {
    double seconds = r["seconds"].get<double>();
    EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>());
    for (auto& [level, s] : r["bounds"]["bandwidth_s"].items())
        EXPECT_GE(seconds, s.get<double>()) << level;
    EXPECT_GE(ddrBytes(r), r["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>());
    // The bus moves whole bursts: at least what was requested.
    using tessim::test::usefulBytes;
    EXPECT_GE(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), usefulBytes(r, "ddr", "read"));
    EXPECT_GE(r["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>(), usefulBytes(r, "ddr", "write"));
    // DDR reads requested are exactly the input with its halo, the weights and the zero line;
    // writes the output once: 1 B per output when requantised to INT8 (the default), 4 B when INT32.
    const auto& p = r["plan"]["config"];
    const std::uint64_t outputs = 540ull * 960 * 64,
                        elementBytes = r["workload"]["config"]["output_dtype"] == "i8" ? 1 : 4;
    EXPECT_EQ(usefulBytes(r, "ddr", "read"), p["input_fetch_bytes"].get<std::uint64_t>() +
                                                 p["weight_fetch_bytes"].get<std::uint64_t>() +
                                                 p["zero_line_bytes"].get<std::uint64_t>());
    EXPECT_EQ(usefulBytes(r, "ddr", "write"), p["output_bytes"].get<std::uint64_t>());
    EXPECT_EQ(p["output_bytes"].get<std::uint64_t>(), outputs * elementBytes);
    // Compulsory: the input once (every pixel is used), the weights once, the output once.
    EXPECT_EQ(r["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>(),
              64ull * 540 * 960 + 64ull * 64 * 9 + outputs * elementBytes);
    // Halo closed form (3×3, stride 1, pad 1): every interior tile boundary re-reads K − S = 2
    // rows (columns); filter chunks re-read the whole input unless it stays resident across them
    // (whole channels, and spatial tiles outer or a single spatial tile).
    const std::uint64_t H = 540, W = 960, C = 64, F = 64, K = 3, S = 1;
    std::uint64_t th = p["tile_h"], tw = p["tile_w"], tc = p["tile_c"], tf = p["tile_f"];
    std::uint64_t nH = (H + th - 1) / th, nW = (W + tw - 1) / tw, nF = (F + tf - 1) / tf;
    const bool resident = tc == C && (p["loop_order"] == "spatial-outer" || nH * nW == 1);
    std::uint64_t halo =
        (resident ? 1 : nF) * C * (H + (nH - 1) * (K - S)) * (W + (nW - 1) * (K - S)) - C * H * W;
    EXPECT_EQ(p["halo_bytes"].get<std::uint64_t>(), halo);
    double sum = 0;
    for (auto& [reason, f] : r["engines"]["npu"]["stall"].items())
        sum += f.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(Conv1080p, StrategiesImproveInOrder) {
    auto naive = run("naive"), single = run("static-single"), dbl = run("double-buffer");
    for (const auto* r : {&naive, &single, &dbl})
        checkInvariants(*r);
    EXPECT_GT(ddrBytes(naive), ddrBytes(single));
    EXPECT_GT(ddrBytes(single), ddrBytes(dbl));
    EXPECT_GT(naive["stall_fraction"].get<double>(), single["stall_fraction"].get<double>());
    EXPECT_GT(single["stall_fraction"].get<double>(), dbl["stall_fraction"].get<double>());
    EXPECT_GT(naive["seconds"].get<double>(), single["seconds"].get<double>());
    EXPECT_GT(single["seconds"].get<double>(), dbl["seconds"].get<double>());
    // Compute-bound (compute bound above the DDR bound): double buffering hides the DMA.
    ASSERT_GT(dbl["bounds"]["compute_s"].get<double>(), dbl["bounds"]["bandwidth_s"]["ddr"].get<double>());
    EXPECT_LT(dbl["stall_fraction"].get<double>(), 0.05);
}

// The seed's NPU writes INT8 outputs: requantising in the array cuts the output writes to a quarter
// of the INT32 accumulators' (132.7 MB → 33.2 MB). Double-buffered, the layer is compute-bound,
// so it is slower by at most the requantisation's ceil(outputs / 64) = 518,400 array cycles.
TEST(Conv1080p, Int8OutputsWriteAQuarterOfInt32) {
    auto i8 = run("double-buffer"), i32 = run("double-buffer", "--set workload.output_dtype=i32");
    checkInvariants(i8);
    checkInvariants(i32);
    EXPECT_EQ(tessim::test::usefulBytes(i8, "ddr", "write"), 540ull * 960 * 64);
    EXPECT_EQ(tessim::test::usefulBytes(i32, "ddr", "write"), 540ull * 960 * 64 * 4);
    EXPECT_LT(ddrBytes(i8), ddrBytes(i32));
    const auto& mac = i8["stats"]["npu"]["npu"]["mac"];
    EXPECT_EQ(mac["requant_ops"]["value"].get<std::uint64_t>(), 540ull * 960 * 64);
    // Tiles of all 64 filters: every tile's outputs fill whole rows of the 64 columns.
    ASSERT_EQ(i8["plan"]["config"]["tile_f"].get<unsigned>(), 64u);
    EXPECT_EQ(mac["requant_cycles"]["value"].get<std::uint64_t>(), 540ull * 960);
    EXPECT_EQ(i32["stats"]["npu"]["npu"]["mac"]["requant_ops"]["value"].get<std::uint64_t>(), 0u);
    EXPECT_LE(i8["seconds"].get<double>(), i32["seconds"].get<double>() + 518400 / 1e9);
}

TEST(Conv1080p, SramSizeOverrideAdaptsThePlan) {
    auto small = run("double-buffer", "--set target.sram.size=256KiB");
    auto big = run("double-buffer", "--set target.sram.size=2MiB");
    checkInvariants(small);
    checkInvariants(big);
    EXPECT_LE(small["plan"]["config"]["sram_bytes_used"].get<std::uint64_t>(), 256u * 1024u);
    EXPECT_GT(ddrBytes(small), ddrBytes(big));
}

TEST(Conv1080p, PlanThatCannotFitIsAConfigError) {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target npu --workload conv1080p --plan static-single --set plan.tile_h=64 "
        "--set plan.tile_c=full --set plan.tile_f=full");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("SRAM holds 1048576 B"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tile_h"), std::string::npos) << r.err;
}

}  // namespace
