// `tessim explain` on every shipped target: it builds, its peaks agree with the bounds a run
// reports, every parameter is listed with the source its YAML names, and bad input exits 2.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

std::vector<std::string> shippedTargets() {
    std::vector<std::string> names;
    for (const auto& e :
         std::filesystem::directory_iterator(std::string(TESSIM_SOURCE_DIR) + "/configs/targets"))
        if (e.path().extension() == ".yaml")
            names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(ExplainCommand, EveryShippedTargetIsExplainedInJsonAndMarkdown) {
    const auto targets = shippedTargets();
    ASSERT_GE(targets.size(), 5u);
    for (const auto& t : targets) {
        auto r = runTessim("explain " + t + " --format json");
        ASSERT_EQ(r.exitCode, 0) << t << ": " << r.err;
        const Json x = Json::parse(r.out);
        EXPECT_EQ(x["schema"], "tessim.explain/1");
        EXPECT_EQ(x["target"], t);
        EXPECT_GT(x["peaks"]["work_per_s"].get<double>(), 0.0) << t;
        // The per-level peak is the sum of that level's memories (roles stand for their instances).
        std::map<std::string, double> sum;
        for (const auto& m : x["memories"]) {
            if (m.contains("role_of"))
                continue;
            EXPECT_GT(m["size_bytes"].get<double>(), 0.0) << t << " " << m["name"];
            sum[m["level"].get<std::string>()] += m["peak_bandwidth_bytes_per_s"].get<double>();
        }
        for (const auto& [level, bw] : x["peaks"]["bandwidth_bytes_per_s"].items())
            EXPECT_DOUBLE_EQ(bw.get<double>(), sum[level]) << t << " " << level;
        // Every parameter of the target's own file is listed; the clock names its source.
        bool clock = false;
        for (const auto& p : x["parameters"])
            if (p["key"] == "clock") {
                clock = true;
                EXPECT_FALSE(p["source"].get<std::string>().empty()) << t << ": the clock's comment";
            }
        EXPECT_TRUE(clock) << t;
        EXPECT_TRUE(x["resolved"].is_object()) << t;

        auto md = runTessim("explain " + t);
        ASSERT_EQ(md.exitCode, 0) << t << ": " << md.err;
        EXPECT_NE(md.out.find("## Parameters"), std::string::npos) << t;
        EXPECT_NE(md.out.find("## Warnings"), std::string::npos) << t;
    }
}

// The peaks explain derives are the ones a run's bounds divide by.
TEST(ExplainCommand, PeaksAreTheOnesTheRunsBoundsUse) {
    auto x = runTessim("explain minimal --format json");
    ASSERT_EQ(x.exitCode, 0) << x.err;
    const Json explained = Json::parse(x.out);
    auto r = runTessim("run --target minimal --workload dot --set workload.n=65536");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Json report = Json::parse(r.out);
    const double work = report["engines"]["core"]["work"].get<double>();
    EXPECT_NEAR(report["bounds"]["compute_s"].get<double>() * explained["peaks"]["work_per_s"].get<double>(),
                work, work * 1e-12);
    const double bytes = report["bounds"]["compulsory_bytes"]["ddr"].get<double>();
    EXPECT_NEAR(report["bounds"]["bandwidth_s"]["ddr"].get<double>() *
                    explained["peaks"]["bandwidth_bytes_per_s"]["ddr"].get<double>(),
                bytes, bytes * 1e-12);
}

TEST(ExplainCommand, SetOverridesShowAndParametersWithoutASourceAreWarnedOf) {
    auto r = runTessim("explain npu --set target.sram.size=2MiB --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Json x = Json::parse(r.out);
    bool found = false;
    for (const auto& p : x["parameters"])
        if (p["key"] == "sram.size") {
            found = true;
            EXPECT_EQ(p["value"], "2MiB");
            EXPECT_EQ(p["source"], "--set");
        }
    EXPECT_TRUE(found) << r.out;
    for (const auto& m : x["memories"]) {
        if (m["name"] == "sram") {
            EXPECT_EQ(m["size_bytes"].get<double>(), 2.0 * 1024 * 1024);
        }
    }

    // A target whose numbers carry no comment: each is a warning naming its file and line.
    const auto dir =
        std::filesystem::temp_directory_path() / ("tessim_explain_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    // The minimal target with its comments taken out.
    const std::string bare = (dir / "bare.yaml").string();
    {
        std::ifstream in(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal.yaml");
        std::ofstream out(bare);
        for (std::string line; std::getline(in, line);) {
            if (const auto hash = line.find(" #"); hash != std::string::npos)
                line.erase(hash);
            if (line.rfind("energy_table:", 0) == 0)
                line =
                    "energy_table: " + std::string(TESSIM_SOURCE_DIR) + "/configs/energy/horowitz-45nm.yaml";
            out << line << "\n";
        }
    }
    r = runTessim("explain " + bare + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Json warned = Json::parse(r.out);
    std::string all;
    for (const auto& w : warned["warnings"])
        all += w.get<std::string>() + "\n";
    EXPECT_NE(all.find(bare + ":3:8: clock = 1 GHz names no source"), std::string::npos) << all;
    EXPECT_NE(all.find(bare + ":9:9: spm.size = 256 KiB names no source"), std::string::npos) << all;
    EXPECT_EQ(all.find("spm.impl"), std::string::npos) << "impl names a model, not a number: " << all;
}

TEST(ExplainCommand, BadInputExitsTwoWithNothingOnStdout) {
    auto r = runTessim("explain no-such-target");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("no target named 'no-such-target'"), std::string::npos) << r.err;
    r = runTessim("explain npu --set target.sram.sise=2MiB");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("sram.sise"), std::string::npos) << r.err;
}

// A cache whose stores enter at a rate of their own shows it beside its peak: the k1's L1s take
// 12.8 B a cycle at 1.6 GHz (k1.yaml), their lines 64 B a cycle; the L2, without one, shows none.
TEST(ExplainCommand, ACachesStoreRateIsShownBesideItsPeak) {
    const auto r = runTessim("explain k1 --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Json x = Json::parse(r.out);
    unsigned l1s = 0, l2s = 0;
    for (const auto& m : x["memories"]) {
        if (m.contains("role_of"))
            continue;
        if (m["level"] == "l1") {
            ++l1s;
            EXPECT_DOUBLE_EQ(m["peak_store_bandwidth_bytes_per_s"].get<double>(), 12.8 * 1.6e9) << m["name"];
            EXPECT_DOUBLE_EQ(m["peak_bandwidth_bytes_per_s"].get<double>(), 64 * 1.6e9) << m["name"];
        } else if (m["level"] == "l2") {
            // The L2 takes a line written back from an L1 in 7 cycles, a read in 5 (k1.yaml).
            ++l2s;
            EXPECT_DOUBLE_EQ(m["peak_store_bandwidth_bytes_per_s"].get<double>(), 64 * 1.6e9 / 7)
                << m["name"];
            EXPECT_DOUBLE_EQ(m["peak_bandwidth_bytes_per_s"].get<double>(), 64 * 1.6e9 / 5) << m["name"];
        } else {
            EXPECT_FALSE(m.contains("peak_store_bandwidth_bytes_per_s")) << m["name"];
        }
    }
    EXPECT_EQ(l1s, 8u);
    EXPECT_EQ(l2s, 2u);
}

}  // namespace
}  // namespace tessim
