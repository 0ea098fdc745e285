// `tessim probe cache --curves` on the k1 target as a user runs it: the latency plateaus of L1,
// L2 and DDR in closed form from the target's YAML, the L1-resident stream rates of the vector
// load/store unit, and clear exit-2 errors for bad options.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "run/pipeline/CacheCurveProbe.h"
#include "tests/common/DocsBuild.h"
#include "tests/common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;

YAML::Node k1Cluster() {
    return YAML::LoadFile(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/k1.yaml")["cluster"];
}

// The curves' figures from the release build (tests/common/DocsBuild.h: the same figures, many
// times faster); the options' errors below run the sanitized build.
nlohmann::json probe(const std::string& options) {
    auto r = test::runCommand(test::docsTessim() + " probe cache --target k1 --jobs 2 " + options);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

double latencyCycles(const nlohmann::json& out, std::uint64_t bytes) {
    for (const auto& p : out.at("latency"))
        if (p.at("bytes").get<std::uint64_t>() == bytes)
            return p.at("cycles").get<double>();
    ADD_FAILURE() << "no latency point at " << bytes << " B";
    return 0.0;
}

TEST(CacheCurveProbe, LatencyPlateausAreL1HitThenL2HitThenDdr) {
    // 16 KiB fits the 32 KiB L1, 256 KiB the 512 KiB L2, 2 MiB neither.
    const nlohmann::json out = probe("--min 16KiB --max 2MiB");
    EXPECT_EQ(out.at("schema"), "tessim.probe.cache/1");
    EXPECT_EQ(out.at("target"), "k1");
    ASSERT_EQ(out.at("latency").size(), 8u);  // 16 KiB … 2 MiB, powers of two

    const YAML::Node cluster = k1Cluster();
    const double l1Hit = cluster["l1"]["hit_latency"].as<double>();
    const double l2Hit = cluster["l2"]["hit_latency"].as<double>();
    const double sload = cluster["core"]["units"]["scalar_lsu"]["ops"]["sload"]["latency"].as<double>();
    const double l1 = latencyCycles(out, 16 << 10), l2 = latencyCycles(out, 256 << 10),
                 ddr = latencyCycles(out, 2 << 20);
    // Each dependent load waits for the previous one's data: L1 hit + the load unit's latency.
    EXPECT_DOUBLE_EQ(l1, l1Hit + sload);
    // An L1 miss that hits L2 adds the L2's hit latency and the cycles the line takes to enter
    // the L1's array, which the next load (issued as the data arrives) waits for (within 0.05
    // cycles: now and then the random chain shows the L1's stride prefetcher two equal steps in
    // one 4 KiB region, and its prefetch holds the L2's port when the next miss arrives).
    const double fill = cluster["l1"]["fill_occupancy"].as<double>(0.0);
    EXPECT_NEAR(l2, l1Hit + l2Hit + fill + sload, 0.05);
    EXPECT_LT(l1, l2);
    EXPECT_LT(l2, ddr);
    // 1.6 GHz: 0.625 ns per cycle.
    EXPECT_NEAR(out.at("latency")[0].at("ns").get<double>(), l1 * 0.625, 1e-3);
}

TEST(CacheCurveProbe, L1ResidentStreamsRunAtTheVectorLoadStoreUnitsRate) {
    const nlohmann::json out = probe("--min 16KiB --max 16KiB --threads 2");
    ASSERT_EQ(out.at("bandwidth").size(), 2u);  // 1 thread and 2 threads
    const YAML::Node ops = k1Cluster()["core"]["units"]["vlsu"]["ops"];
    // One LMUL-8 group of 32 B registers (256 B) per vle32 / vse32, at their m8 reciprocals.
    const double read = 256.0 / ops["vload"]["reciprocal"]["m8"].as<double>();
    const double write = 256.0 / ops["vstore"]["reciprocal"]["m8"].as<double>();
    for (const auto& row : out.at("bandwidth")) {
        const double threads = row.at("threads").get<double>();
        EXPECT_NEAR(row.at("read").at("bytes_per_cycle").get<double>(), threads * read, 0.1 * threads * read);
        EXPECT_NEAR(row.at("write").at("bytes_per_cycle").get<double>(), threads * write,
                    0.1 * threads * write);
        // A copy loads and stores each vector: both on the one unit, the store waiting for its
        // load's data (the load's m8 latency, calibrated against the board's memcpy curve).
        const double copy =
            256.0 / (256.0 / read + 256.0 / write + ops["vload"]["latency"]["m8"].as<double>());
        EXPECT_NEAR(row.at("copy").at("bytes_per_cycle").get<double>(), threads * copy, 0.1 * threads * copy);
        EXPECT_NEAR(row.at("read").at("GBps").get<double>(),
                    row.at("read").at("bytes_per_cycle").get<double>() * 1.6, 0.01);
    }
}

TEST(CacheCurveProbe, PlotIsWrittenAndStdoutStaysJson) {
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "/usr/bin/python3 has no matplotlib";
    const std::string png = "/tmp/tessim_probe_plot_" + std::to_string(::getpid()) + ".png";
    const nlohmann::json out = probe("--min 1KiB --max 2KiB --plot " + png);
    EXPECT_EQ(out.at("latency").size(), 2u);
    std::ifstream file(png, std::ios::binary);
    std::string magic(4, '\0');
    file.read(magic.data(), 4);
    EXPECT_EQ(magic, "\x89PNG");
    EXPECT_FALSE(std::ifstream(png + ".json").good());  // the plot's data file is removed
    std::remove(png.c_str());
}

TEST(CacheCurveProbe, BadOptionsExitTwoWithAClearMessage) {
    struct Case {
        std::string options, message;
    };
    const Case cases[] = {
        {"--min 3KiB", "powers of two"},
        {"--min 1MiB --max 64KiB", "--min (1048576 B) is above --max (65536 B)"},
        {"--max 64", "--max '64'"},
        {"--min 512B", "from 1 KiB"},
        {"--threads 0", "--threads"},
        {"--curves --memory l1_0", "--memory does not apply"},
    };
    for (const auto& c : cases) {
        auto r = runTessim("probe cache --target k1 " + c.options);
        EXPECT_EQ(r.exitCode, 2) << c.options;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.options << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << c.options;
    }
    auto r = runTessim("probe ddr --target k1 --curves");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("belong to `probe cache`"), std::string::npos) << r.err;
}

std::uint64_t statValue(const nlohmann::json& report, const std::string& cache, const std::string& key) {
    return report.at("stats").at("k1").at(cache).at(key).at("value").get<std::uint64_t>();
}

// The chain touches each 64 B line once per pass, in a cycle that LRU cannot keep when the set
// is larger than the cache: the hit and miss counts of two passes in closed form.
TEST(PointerChase, EachPassTouchesEveryLineOnce) {
    auto run = [](const std::string& bytes) {
        // Demand misses in closed form: the L1's stride prefetcher off (it finds the chain's
        // regular steps within a 4 KiB region).
        auto r = runTessim("run --target k1 --workload pointer_chase --format json --set workload.repeat=2 "
                           "--set target.cluster.l1.prefetcher.kind=none --set workload.bytes=" +
                           bytes);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return nlohmann::json::parse(r.out);
    };
    const nlohmann::json fits = run("16KiB");  // 256 lines: cold misses, then hits
    EXPECT_EQ(statValue(fits, "l1_0", "misses"), 256u);
    EXPECT_EQ(statValue(fits, "l1_0", "hits"), 256u);
    const nlohmann::json spills = run("64KiB");  // 1024 lines, twice the L1: every load misses L1
    EXPECT_EQ(statValue(spills, "l1_0", "misses"), 2048u);
    EXPECT_EQ(statValue(spills, "l1_0", "hits"), 0u);
    EXPECT_EQ(statValue(spills, "l2_0", "misses"), 1024u);
    EXPECT_EQ(statValue(spills, "l2_0", "hits"), 1024u);
}

TEST(CacheCurveProbe, SizesArePowersOfTwoFromMinToMax) {
    EXPECT_EQ(powerOfTwoSizes(1024, 8192), (std::vector<std::uint64_t>{1024, 2048, 4096, 8192}));
    EXPECT_EQ(powerOfTwoSizes(4096, 4096), (std::vector<std::uint64_t>{4096}));
    EXPECT_THROW(powerOfTwoSizes(1024, 3000), std::runtime_error);
    // At least two passes, and 256 KiB per thread, in the passes a figure comes from.
    EXPECT_EQ(measuredPasses(1024, 1), 256u);
    EXPECT_EQ(measuredPasses(64 << 10, 4), 16u);
    EXPECT_EQ(measuredPasses(64 << 20, 1), 2u);
}

}  // namespace
}  // namespace tessim
