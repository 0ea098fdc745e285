// `tessim probe ddr --memory` on a memory alone: streams in closed and open loop against the
// preset's timings, the echoed timings, and bad flags (exit 2, a message, nothing on stdout).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;

constexpr double kTck = 0.833;  // ns, ddr4-2400-x64

nlohmann::json probeDdr(const std::string& options) {
    auto r = runTessim("probe ddr --memory ddr4-2400-x64 --stream-kib 64 " + options);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(DdrProbe, EchoesEveryTimingInCyclesAndNs) {
    const auto j = probeDdr("--pattern seq --requests 100");
    ASSERT_TRUE(j.contains("timings"));
    EXPECT_EQ(j["timings"]["tCCD_L"]["cycles"], 6);
    EXPECT_DOUBLE_EQ(j["timings"]["tCCD_L"]["ns"].get<double>(), 4.998);
    EXPECT_EQ(j["timings"]["tFAW"]["cycles"], 26);
    EXPECT_EQ(j["timings"]["tWTR_L"]["cycles"], 9);
    EXPECT_EQ(j["organisation"]["bank_groups"], 4);
    EXPECT_EQ(j["streams"].size(), 1u);
}

TEST(DdrProbe, SequentialReadsHitTheRowAndStayBelowThePeak) {
    const auto j = probeDdr("--pattern seq --requests 20000");
    const auto& s = j["streams"][0];
    EXPECT_EQ(s["reads"], 20000);
    EXPECT_LE(s["bandwidth_GBps"].get<double>(), j["peak_GBps"].get<double>());
    EXPECT_GT(s["row_hit_rate"].get<double>(), 0.95);
    EXPECT_LE(s["latency_ns"]["p50"].get<double>(), s["latency_ns"]["p99"].get<double>());
    EXPECT_LE(s["latency_ns"]["p99"].get<double>(), s["latency_ns"]["max"].get<double>());
}

// One random read per microsecond: the memory is idle and refresh closes every row each 7.8 µs,
// so most reads find their bank closed: the median is an activate and a read (tRCD + tCL +
// burst = 38 cycles, from the next clock edge), and the slowest waited for a refresh (tRPab +
// tRFC).
TEST(DdrProbe, OpenLoopUnloadedLatencyIsAnActivateAndReadAndRefreshShowsInTheMaximum) {
    const auto j = probeDdr("--pattern random --rate 1e6 --requests 2000 --seed 7");
    const auto& s = j["streams"][0];
    EXPECT_EQ(s["arrival"], "open-loop");
    EXPECT_DOUBLE_EQ(s["back_pressure_ns"].get<double>(), 0.0);
    const double p50 = s["latency_ns"]["p50"].get<double>();
    EXPECT_GE(p50, 38 * kTck - 0.001);
    EXPECT_LE(p50, 39 * kTck + 0.001);
    EXPECT_GE(s["latency_ns"]["max"].get<double>(), (17 + 421) * kTck);
    EXPECT_GT(s["refreshes"].get<int>(), 0);
    EXPECT_EQ(s["activates"], 2000);
}

TEST(DdrProbe, AReadWriteMixCountsBoth) {
    const auto j = probeDdr("--pattern strided --stride 8KiB --read-ratio 0.5 --requests 4000");
    const auto& s = j["streams"][0];
    EXPECT_EQ(s["pattern"], "strided");
    EXPECT_EQ(s["stride_bytes"], 8192);
    EXPECT_EQ(s["reads"].get<int>() + s["writes"].get<int>(), 4000);
    EXPECT_GT(s["reads"].get<int>(), 1500);
    EXPECT_GT(s["writes"].get<int>(), 1500);
}

TEST(DdrProbe, BadFlagsExitWithTwoAndSayWhy) {
    const std::string bad = ::testing::TempDir() + "/bad-ddr.yaml";
    {
        std::ofstream f(bad);
        f << "preset: ddr4-2400-x64\nbank_groups: 3\n";
    }
    struct Case {
        std::string options, message;
    };
    const std::vector<Case> cases = {
        {"--memory ddr4-2400-x64 --pattern zig", "--pattern 'zig'"},
        {"--memory ddr4-2400-x64 --pattern strided", "needs --stride"},
        {"--memory ddr4-2400-x64 --stride 4KiB", "--stride applies to --pattern strided only"},
        {"--memory ddr4-2400-x64 --pattern strided --stride 0", "--stride '0'"},
        {"--memory ddr4-2400-x64 --rate 1e6 --outstanding 4", "exclude each other"},
        {"--memory ddr4-2400-x64 --read-ratio 2", "--read-ratio"},
        {"--memory ddr4-2400-x64 --set target.x=1", "--set overrides a target"},
        {"--memory nowhere/ddr.yaml", "no such file"},
        {"--memory " + bad, "bad-ddr.yaml:2:1"},
        {"", "needs --target T or --memory FILE"},
    };
    for (const auto& c : cases) {
        auto r = runTessim("probe ddr " + c.options);
        EXPECT_EQ(r.exitCode, 2) << c.options;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.options << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << c.options;
    }
    auto r = runTessim("probe cache --memory ddr4-2400-x64");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("needs --target"), std::string::npos) << r.err;
    r = runTessim("probe cache --target k1 --pattern seq");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("belong to `probe ddr`"), std::string::npos) << r.err;
    std::remove(bad.c_str());
}

}  // namespace
}  // namespace tessim
