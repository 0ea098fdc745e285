// The shuffle convolution in channel groups: where the input rows of every channel do not fit the
// AM beside one output row (a wide multi-channel layer such as seed 001's 1080p one), a block of
// output rows takes the input channels in groups, one after the other, its outputs staying in the
// AM and accumulated by each group's passes, written back after the last group. Every output equals
// the reference (--functional), forced groups or chosen ones, padded, strided, on several cores and
// in both row orders; each input row comes from DDR once per block whatever the groups; a layer
// whose single channel's rows do not fit is still refused, with the arithmetic.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

nlohmann::json runConv(const std::string& args) {
    const test::ProcessResult r =
        test::runTessim("run --target ftm2000 " + args + " --functional --format json");
    EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.err;
    if (r.exitCode != 0)
        return nlohmann::json();
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["functional"]["checked"].get<bool>()) << args;
    EXPECT_EQ(j["functional"]["mismatches"].get<std::uint64_t>(), 0u) << args << j["functional"].dump();
    return j;
}

double workloadStat(const nlohmann::json& r, const char* key) {
    return r["stats"]["workload"][key]["value"].get<double>();
}

TEST(ShuffleChannelGroups, ForcedGroupsEqualTheReferenceAndReadEachInputRowOncePerBlock) {
    const std::string layer =
        "--workload conv-ftm --plan shuffle --set workload.h=23 --set workload.w=29 "
        "--set workload.channels=5 --set workload.filters=4 --set plan.buffering=double "
        "--set plan.block_rows=6";
    const nlohmann::json whole = runConv(layer);
    ASSERT_FALSE(whole.is_null());
    EXPECT_FALSE(whole["plan"]["config"].contains("channel_group"));
    for (const char* extra : {"--set plan.channel_group=2", "--set plan.channel_group=1 --set plan.cores=2",
                              "--set plan.channel_group=3 --set workload.pad=1 --set workload.stride=2",
                              "--set plan.channel_group=4 --set plan.row_order=output --set workload.k=5"}) {
        SCOPED_TRACE(extra);
        const nlohmann::json r = runConv(layer + " " + extra);
        ASSERT_FALSE(r.is_null());
        EXPECT_LT(r["plan"]["config"]["channel_group"].get<unsigned>(), 5u);
        // Groups split the channels of a block, not its rows: the same input rows from DDR.
        const bool sameWindow = std::string(extra).find("stride") == std::string::npos &&
                                std::string(extra).find("k=5") == std::string::npos;
        if (sameWindow) {
            EXPECT_EQ(workloadStat(r, "input_ddr_bytes"), workloadStat(whole, "input_ddr_bytes"));
        }
    }
}

// Seed 001's 1080p layer (64 channels of 960 columns, 64 filters, 3×3, pad 1) on ftm2000 without a
// plan, at 2 rows: one output row's input rows of every channel (738 KB in f32) and the core's 16
// filters' output rows do not fit two buffers of the 768 KiB AM (1,493,504 B); groups of 17
// channels beside blocks of 2 rows do. Measured: 440,001 cycles; DDR reads 638,976 B, the map
// (2 × 960 × 64 × 4 B) and the weights (64 × 64 × 9 × 4 B) once each.
TEST(ShuffleChannelGroups, Seed001sWideLayerRunsInChannelGroups) {
    const nlohmann::json r = runConv("--workload conv1080p --set workload.h=2");
    ASSERT_FALSE(r.is_null());
    EXPECT_EQ(r["plan"]["config"]["strategy"], "shuffle");
    const unsigned group = r["plan"]["config"]["channel_group"].get<unsigned>();
    EXPECT_GE(group, 1u);
    EXPECT_LT(group, 64u);
    EXPECT_LE(r["plan"]["config"]["am_bytes"].get<double>(), 768.0 * 1024);
    EXPECT_EQ(r["traffic_bytes"]["ddr"]["read"].get<double>(), 2.0 * 960 * 64 * 4 + 64.0 * 64 * 9 * 4);
    EXPECT_EQ(r["functional"]["elements"].get<double>(), 2.0 * 960 * 64);
    // `tessim list workloads` now lists ftm2000 among the chips the library layer runs on.
    const test::ProcessResult list = test::runTessim("list workloads");
    const auto line = list.out.find("conv1080p");
    ASSERT_NE(line, std::string::npos);
    EXPECT_NE(list.out.substr(line, list.out.find('\n', line) - line).find("ftm2000"), std::string::npos)
        << list.out;
}

// f64 rows of 60,000 columns: one channel's 5 input rows (2.4 MB) alone exceed the AM.
TEST(ShuffleChannelGroups, ALayerWhoseSingleChannelRowsDoNotFitIsRefusedWithTheArithmetic) {
    const test::ProcessResult r =
        test::runTessim("run --target ftm2000 --workload conv-ftm --plan shuffle --set "
                        "workload.h=8 --set workload.w=60000 --set workload.channels=4");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("buffering: two blocks of one output row need 6720512 B of AM with 1 input channel, "
                         "which holds 786432 B"),
              std::string::npos)
        << r.err;
}

}  // namespace
}  // namespace tessim
