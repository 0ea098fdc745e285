// The scalar data memory's two modes on ftm2000: SRAM (the SM, coefficients DMAed in) and cache
// (target ftm2000-l1d-cache: scalar loads through a per-core L1D cache backed by the GC and DDR).
// Cache mode computes the same outputs; its coefficient reads miss once per 64 B line on first
// touch, in the L1D and in the GC, and hit after that.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "common/UsefulBytes.h"

namespace {

nlohmann::json run(const std::string& target, const std::string& plan, const std::string& extra = "") {
    tessim::test::ProcessResult r =
        tessim::test::runTessim("run --target " + target + " --workload conv-ftm --plan " + plan +
                                " --functional --format json " + extra);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["functional"]["checked"].get<bool>());
    EXPECT_EQ(j["functional"]["mismatches"].get<std::uint64_t>(), 0u) << j["functional"].dump();
    return j;
}

std::uint64_t cacheStat(const nlohmann::json& r, const std::string& cache, const std::string& name) {
    return r["stats"]["ftm2000-l1d-cache"][cache][name]["value"].get<std::uint64_t>();
}

constexpr std::uint64_t kLine = 64;  // L1D and GC line (configs/targets)

}  // namespace

TEST(L1dCacheMode, ShuffleCoefficientsMissOncePerLineAndComputeTheSame) {
    // 222×222 f64, one 5×5 filter: 8 resident bands × 25 scalar loads, 200 B of coefficients.
    const nlohmann::json sram = run("ftm2000", "shuffle");
    const nlohmann::json cache = run("ftm2000-l1d-cache", "shuffle");
    const std::uint64_t blocks = cache["plan"]["config"]["blocks"].get<std::uint64_t>();
    const std::uint64_t loads = blocks * 25;
    const std::uint64_t lines = (25 * 8 + kLine - 1) / kLine;  // first touch of each line: 4
    EXPECT_EQ(cacheStat(cache, "l1d0", "reads"), loads);
    EXPECT_EQ(cacheStat(cache, "l1d0", "misses"), lines);
    EXPECT_EQ(cacheStat(cache, "l1d0", "hits"), loads - lines);
    EXPECT_EQ(cacheStat(cache, "gc", "misses"), lines);
    EXPECT_EQ(tessim::test::usefulBytes(cache, "gc", "read"), lines * kLine);
    // No DMA into the SM, which stays idle; DDR reads the lines instead of the 200 B.
    EXPECT_EQ(tessim::test::usefulBytes(cache, "sm", "read"), 0u);
    EXPECT_EQ(tessim::test::usefulBytes(cache, "sm", "write"), 0u);
    EXPECT_EQ(tessim::test::usefulBytes(sram, "sm", "write"), 25u * 8);
    EXPECT_EQ(tessim::test::usefulBytes(cache, "ddr", "read"),
              tessim::test::usefulBytes(sram, "ddr", "read") - 25 * 8 + lines * kLine);
    EXPECT_EQ(cache["plan"]["config"]["l1d"], "cache");
    EXPECT_EQ(sram["plan"]["config"]["l1d"], "sram");  // the default, echoed as read
    EXPECT_NE(cache["cycles"].get<std::uint64_t>(), sram["cycles"].get<std::uint64_t>());
}

TEST(L1dCacheMode, FourCoresShareCoefficientLinesInTheGc) {
    // 4 filters of 3×3 f64 (72 B each) on 4 cores: filter f spans DDR bytes [72f, 72f + 72), so
    // each core touches 2 lines and the GC sees 8 reads of the 5 distinct lines.
    const std::string extra = "--set workload.h=20 --set workload.w=20 --set workload.k=3 "
                              "--set workload.filters=4 --set plan.cores=4";
    const nlohmann::json r = run("ftm2000-l1d-cache", "shuffle", extra);
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    for (const char* l1d : {"l1d0", "l1d1", "l1d2", "l1d3"}) {
        EXPECT_EQ(cacheStat(r, l1d, "reads"), blocks * 9) << l1d;
        EXPECT_EQ(cacheStat(r, l1d, "misses"), 2u) << l1d;
    }
    EXPECT_EQ(cacheStat(r, "gc", "reads"), 8u);
    EXPECT_EQ(cacheStat(r, "gc", "misses"), 5u);
    EXPECT_EQ(tessim::test::usefulBytes(r, "ddr", "read"), 20u * 20 * 8 + 5 * kLine);
}

TEST(L1dCacheMode, Im2colCoefficientsGoThroughTheL1d) {
    const nlohmann::json r = run("ftm2000-l1d-cache", "im2col");
    const std::uint64_t blocks = r["plan"]["config"]["blocks"].get<std::uint64_t>();
    EXPECT_EQ(cacheStat(r, "l1d0", "reads"), blocks * 25);
    EXPECT_EQ(cacheStat(r, "l1d0", "misses"), (25 * 8 + kLine - 1) / kLine);
    EXPECT_EQ(tessim::test::usefulBytes(r, "sm", "write"), 0u);
}

TEST(L1dCacheMode, SramModeOnTheCacheTargetMatchesFtm2000) {
    const nlohmann::json base = run("ftm2000", "shuffle");
    const nlohmann::json sram = run("ftm2000-l1d-cache", "shuffle", "--set plan.l1d=sram");
    EXPECT_EQ(sram["cycles"], base["cycles"]);
    EXPECT_EQ(tessim::test::usefulBytes(sram, "l1d", "read"), 0u);
    EXPECT_EQ(tessim::test::usefulBytes(sram, "sm", "read"), tessim::test::usefulBytes(base, "sm", "read"));
}

TEST(L1dCacheMode, CacheModeWithoutAnL1dIsAConfigError) {
    tessim::test::ProcessResult r = tessim::test::runTessim(
        "run --target ftm2000 --workload conv-ftm --plan shuffle --set plan.l1d=cache --format json");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("l1d"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ftm2000-l1d-cache"), std::string::npos) << r.err;
}
