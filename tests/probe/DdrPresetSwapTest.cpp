// `--set target.ddr.preset=X` swaps a target's DDR for the parameter set: channels, width, rate
// and rules come from X even where the target's file sets them (the NPU's inline LPDDR4X-4266),
// other --set keys still apply on top, and an unknown set is refused naming the known ones. And
// `probe ddr` figures stay below the peak.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;

nlohmann::json probeTarget(const std::string& target, const std::string& options) {
    auto r = runTessim("probe ddr --target " + target + " --stream-kib 64 " + options);
    EXPECT_EQ(r.exitCode, 0) << target << " " << options << "\n" << r.err;
    return r.exitCode == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(DdrPresetSwap, EveryTargetTakesEveryPresetWhole) {
    struct Preset {
        const char* name;
        const char* standard;
        double peakGBps;
    };
    const Preset presets[] = {{"ddr4-2400-x64", "DDR4-2400", 19.2},
                              {"ddr4-3200-x64", "DDR4-3200", 25.6},
                              {"lpddr4-3200-x32", "LPDDR4-3200", 12.8},
                              {"lpddr4x-2666-x32", "LPDDR4X-2666", 10.667}};
    for (const char* target : {"npu", "k1", "minimal-8core", "ftm2000"})
        for (const Preset& p : presets) {
            const auto j = probeTarget(target, std::string("--set target.ddr.preset=") + p.name);
            ASSERT_FALSE(j.empty());
            EXPECT_EQ(j["standard"], p.standard) << target << " " << p.name;
            EXPECT_NEAR(j["peak_GBps"].get<double>(), p.peakGBps, 0.01) << target << " " << p.name;
            EXPECT_LE(j["seq_read_GBps"].get<double>(), j["peak_GBps"].get<double>())
                << target << " " << p.name;
        }
}

TEST(DdrPresetSwap, OtherCommandLineKeysStillApply) {
    const auto j = probeTarget("npu", "--set target.ddr.preset=lpddr4-3200-x32 --set target.ddr.channels=4");
    ASSERT_FALSE(j.empty());
    EXPECT_EQ(j["standard"], "LPDDR4-3200");
    EXPECT_NEAR(j["peak_GBps"].get<double>(), 25.6, 0.01);
}

TEST(DdrPresetSwap, AnUnknownPresetIsRefusedNamingTheKnownOnes) {
    auto r = runTessim("probe ddr --target npu --set target.ddr.preset=lpddr5-6400");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("no DDR parameter set 'lpddr5-6400'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("lpddr4x-2666-x32"), std::string::npos) << r.err;
}

// A write stream's window closes once the writes still posted in the controller's queue reached
// the DRAM: no figure beats the peak, short streams included (64 KiB on the NPU read 34.717 GB/s
// of writes against a 34.115 peak when the window closed at the last accepted write).
TEST(DdrProbeWindow, NoStreamFigureBeatsThePeak) {
    for (const char* target : {"npu", "k1", "minimal-8core", "ftm2000"})
        for (const char* kib : {"16", "64", "1024"}) {
            auto r = runTessim(std::string("probe ddr --target ") + target + " --stream-kib " + kib);
            ASSERT_EQ(r.exitCode, 0) << r.err;
            const auto j = nlohmann::json::parse(r.out);
            for (const char* figure : {"seq_read_GBps", "seq_write_GBps", "random_read_GBps"})
                EXPECT_LE(j[figure].get<double>(), j["peak_GBps"].get<double>())
                    << target << " " << kib << " KiB " << figure;
        }
}

// `probe cache` streams --stream-kib from a cold cache; a write stream's window includes writing
// back the lines it left dirty, so neither stream beats the DDR below (before: k1's l2_0 wrote
// 12.769 GB/s through a 10.667 GB/s DDR, its last 512 KiB still in the cache).
TEST(CacheProbeWindow, StreamsHonourTheirSizeAndNeverBeatTheDdr) {
    const std::pair<const char*, const char*> caches[] = {
        {"k1", "l1_0"}, {"k1", "l2_0"}, {"minimal-8core", "l2"}, {"ftm2000", "gc"}};
    for (const auto& [target, cache] : caches) {
        auto ddr = runTessim(std::string("probe ddr --target ") + target);
        ASSERT_EQ(ddr.exitCode, 0) << ddr.err;
        const double peak = nlohmann::json::parse(ddr.out)["peak_GBps"].get<double>();
        for (const char* kib : {"64", "1024"}) {
            auto r = runTessim(std::string("probe cache --target ") + target + " --memory " + cache +
                               " --stream-kib " + kib);
            ASSERT_EQ(r.exitCode, 0) << r.err;
            const auto j = nlohmann::json::parse(r.out);
            EXPECT_EQ(j["stream_bytes"].get<std::uint64_t>(), std::stoull(kib) * 1024)
                << target << " " << cache;
            for (const char* figure : {"seq_read_GBps", "seq_write_GBps"})
                EXPECT_LE(j[figure].get<double>(), peak)
                    << target << " " << cache << " " << kib << " KiB " << figure;
            EXPECT_GT(j["seq_write_GBps"].get<double>(), 0.0);
        }
    }
}

}  // namespace
}  // namespace tessim
