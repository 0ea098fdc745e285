// A run ends when its last write has reached the DRAM, not when the DDR's posted-write queue
// accepted it: otherwise a write-bound run reports less time than its own DDR bandwidth bound.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

// A 1×1 convolution that writes 1 KiB per pixel (256 INT32 filters) and reads 8 B: one DDR
// channel is the bottleneck, and a 512-entry write queue could hide the run's tail.
const char* kWriteBound =
    "run --target npu --workload conv1080p --set workload.h=8 --set workload.w=64 "
    "--set workload.channels=8 --set workload.filters=256 --set workload.k=1 --set workload.pad=0 "
    "--set workload.output_dtype=i32 --set target.ddr.channels=1 --format json";

TEST(RunEnd, WriteBoundRunNeverBeatsItsDdrBound) {
    for (const char* queue : {"0", "32", "512", "4096"}) {
        auto r = runTessim(std::string(kWriteBound) + " --set target.ddr.write_queue=" + queue);
        ASSERT_EQ(r.status, 0) << r.output;
        const auto j = nlohmann::json::parse(r.out);
        const double seconds = j["seconds"].get<double>();
        for (auto& [level, s] : j["bounds"]["bandwidth_s"].items())
            EXPECT_GE(seconds, s.get<double>()) << "write_queue " << queue << ", level " << level;
        // Every written burst crossed the bus within the run.
        const double written = j["traffic_bytes"]["ddr"]["write"].get<double>();
        EXPECT_GE(seconds * j["stats"]["npu"]["ddr"]["peak_bandwidth"]["value"].get<double>(), written);
    }
}

}  // namespace
