// Cached targets are bounded at every level a run reaches: what a workload must read from main
// memory passes the L2 and the DDR at least once (the caches start cold), so each gets a
// compulsory-bytes figure and a bandwidth bound, and the simulated time is never below any. A
// cache level's bound counts only the instances the working cores reach.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

nlohmann::json run(const std::string& args) {
    const test::ProcessResult r = test::runTessim("run " + args + " --format json");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

TEST(LevelBounds, CachedTargetsAreBoundedAtL1L2AndDdr) {
    struct Case {
        const char* args;
        double coldRead;  // bytes the workload reads from main memory
    };
    const Case cases[] = {
        {"--target k1 --workload memcpy --set workload.bytes=1MiB", 1 << 20},
        {"--target k1 --workload memread --set workload.bytes=256KiB --set workload.repeat=2", 256 << 10},
        {"--target k1 --workload fc", (4.0 * 1024 + 256.0 * 1024) * 4},
        {"--target minimal-8core --workload axpy --set workload.n=65536", 2 * 65536 * 4},
    };
    for (const Case& c : cases) {
        const nlohmann::json r = run(c.args);
        const auto& b = r["bounds"];
        for (const char* level : {"l1", "l2", "ddr"}) {
            ASSERT_TRUE(b["bandwidth_s"].contains(level)) << c.args << " " << level;
            EXPECT_GT(b["bandwidth_s"][level].get<double>(), 0.0) << c.args << " " << level;
            EXPECT_LE(b["bandwidth_s"][level].get<double>(), r["seconds"].get<double>())
                << c.args << " " << level;
        }
        // At least the cold reads; more where what the run writes overflows the caches in front.
        EXPECT_GE(b["compulsory_bytes"]["ddr"].get<double>(), c.coldRead) << c.args;
        EXPECT_GE(b["compulsory_bytes"]["l2"].get<double>(), c.coldRead) << c.args;
        // What the DDR moved covers what it must.
        EXPECT_GE(r["traffic_bytes"]["ddr"]["read"].get<double>(), c.coldRead) << c.args;
        for (const char* level : {"l2", "ddr"})
            EXPECT_GE(r["traffic_bytes"][level]["read"].get<double>() +
                          r["traffic_bytes"][level]["write"].get<double>(),
                      b["compulsory_bytes"][level].get<double>())
                << c.args << " " << level;
    }
    // A cache level is bounded by the instances the working cores reach: one thread has one L1
    // (64 B a cycle at 1.6 GHz) and one cluster's L2; four threads on a cluster four L1s.
    const std::string memcpy = "--target k1 --workload memcpy --set workload.bytes=1MiB";
    const nlohmann::json one = run(memcpy + " --plan single-thread");
    const nlohmann::json four = run(memcpy + " --plan cluster");
    // The copy reads its 1 MiB source at the L1's line a cycle and writes its destination at the
    // rate the core's stores enter the array (k1.yaml: store_bytes_per_cycle 12.8).
    EXPECT_DOUBLE_EQ(one["bounds"]["bandwidth_s"]["l1"].get<double>(),
                     (1 << 20) / (64 * 1.6e9) + (1 << 20) / (12.8 * 1.6e9));
    EXPECT_DOUBLE_EQ(one["bounds"]["bandwidth_s"]["l1"].get<double>(),
                     4 * four["bounds"]["bandwidth_s"]["l1"].get<double>());
    // Behind the L1s: the 1 MiB source, read once, and the part of the 1 MiB destination that the
    // caches in front cannot hold (one thread: its 32 KiB L1, then its cluster's 512 KiB L2; four
    // threads: four L1s).
    EXPECT_EQ(one["bounds"]["compulsory_bytes"]["l2"].get<double>(), 2.0 * (1 << 20) - (32 << 10));
    EXPECT_EQ(one["bounds"]["compulsory_bytes"]["ddr"].get<double>(), 2.0 * (1 << 20) - (544 << 10));
    EXPECT_EQ(four["bounds"]["compulsory_bytes"]["l2"].get<double>(), 2.0 * (1 << 20) - (128 << 10));
    EXPECT_EQ(four["bounds"]["compulsory_bytes"]["ddr"].get<double>(), 2.0 * (1 << 20) - (640 << 10));
    // One cluster's L2 for either: the source read at a 64 B line every 5 cycles at 1.6 GHz, the
    // destination the L1s cannot hold written back at a line every 7 (k1.yaml).
    EXPECT_NEAR(one["bounds"]["bandwidth_s"]["l2"].get<double>(),
                (1 << 20) / (64 * 1.6e9 / 5) + ((1 << 20) - (32 << 10)) / (64 * 1.6e9 / 7), 1e-15);
    EXPECT_NEAR(four["bounds"]["bandwidth_s"]["l2"].get<double>(),
                (1 << 20) / (64 * 1.6e9 / 5) + ((1 << 20) - (128 << 10)) / (64 * 1.6e9 / 7), 1e-15);
    // memset reads nothing: behind the L1 only what the L1 cannot hold (32 of its 64 KiB), and
    // nothing reaches the DDR.
    const nlohmann::json set =
        run("--target k1 --workload memset --set workload.bytes=64KiB --plan single-thread");
    EXPECT_EQ(set["bounds"]["compulsory_bytes"]["l2"].get<double>(), 32 << 10);
    EXPECT_FALSE(set["bounds"]["compulsory_bytes"].contains("ddr"));
}

// A memset larger than the caches must write all but what they hold into the DDR before it ends:
// its DDR bound (16 MiB less the 544 KiB of one core's L1 and L2, at 10.67 GB/s) is within a
// factor of two of its time, where it had none.
TEST(LevelBounds, WritesTheCachesCannotHoldBoundTheLevelsBehind) {
    const nlohmann::json set =
        run("--target k1 --workload memset --set workload.bytes=16MiB --plan single-thread");
    const double bytes = 16.0 * (1 << 20) - (544 << 10);
    EXPECT_EQ(set["bounds"]["compulsory_bytes"]["ddr"].get<double>(), bytes);
    const double bound = set["bounds"]["bandwidth_s"]["ddr"].get<double>();
    EXPECT_NEAR(bound, bytes / 10.6666666666e9, 1e-9 * bound);
    EXPECT_LE(bound, set["seconds"].get<double>());
    EXPECT_GT(bound, 0.5 * set["seconds"].get<double>());
    EXPECT_GE(set["traffic_bytes"]["ddr"]["write"].get<double>(), bytes);
}

// A level whose stores hold its port longer than reads bounds the bytes a workload must write at
// its store rate: an L1-resident memset at LMUL 8 issues stores faster than the L1 takes them, so
// the bound is within a few percent of its time (at the line rate it would be five times below).
TEST(LevelBounds, WrittenBytesAreBoundedAtTheCachesStoreRate) {
    const nlohmann::json set = run(
        "--target k1 --workload memset --set workload.bytes=16KiB --set plan.lmul=8 --plan single-thread");
    const double bound = set["bounds"]["bandwidth_s"]["l1"].get<double>();
    EXPECT_DOUBLE_EQ(bound, (16 << 10) / (12.8 * 1.6e9));
    EXPECT_LE(bound, set["seconds"].get<double>());
    EXPECT_GT(bound, 0.9 * set["seconds"].get<double>());
    // memread writes nothing: its bound is the line rate alone.
    const nlohmann::json read = run("--target k1 --workload memread --set workload.bytes=16KiB");
    EXPECT_DOUBLE_EQ(read["bounds"]["bandwidth_s"]["l1"].get<double>(), (16 << 10) / (64 * 1.6e9));
    // Without a store rate every byte takes the line rate.
    const nlohmann::json flat =
        run("--target k1 --workload memset --set workload.bytes=16KiB --set plan.lmul=8 "
            "--set target.cluster.l1.store_bytes_per_cycle=0 --plan single-thread");
    EXPECT_DOUBLE_EQ(flat["bounds"]["bandwidth_s"]["l1"].get<double>(), (16 << 10) / (64 * 1.6e9));
}

// `tessim run --plot FILE.png` draws the report's roofline (a roof per level, the run at each);
// a run without one (memset does no FLOP) or a PNG that cannot be written is exit 2 with nothing
// on stdout and no report written.
TEST(LevelBounds, RunDrawsItsRooflineOrExitsTwoWithNothingOnStdout) {
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no matplotlib for /usr/bin/python3";
    const std::string png = "/tmp/tessim-roofline-" + std::to_string(::getpid()) + ".png";
    const test::ProcessResult drawn = test::runTessim("run --target k1 --workload fc --plot " + png);
    EXPECT_EQ(drawn.exitCode, 0) << drawn.err;
    EXPECT_NE(drawn.out.find("\"roofline\""), std::string::npos);
    std::ifstream in(png, std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    std::remove(png.c_str());
    const std::string report = "/tmp/tessim-roofline-" + std::to_string(::getpid()) + ".json";
    const test::ProcessResult none =
        test::runTessim("run --target k1 --workload memset --plot " + png + " --report " + report);
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_TRUE(none.out.empty()) << none.out;
    EXPECT_NE(none.err.find("error: --plot: the run has no roofline to draw"), std::string::npos) << none.err;
    EXPECT_FALSE(std::ifstream(report).good()) << "no report after a refused plot";
    EXPECT_FALSE(std::ifstream(png).good());
    const test::ProcessResult unwritable =
        test::runTessim("run --target k1 --workload fc --plot /nonexistent-dir/x.png");
    EXPECT_EQ(unwritable.exitCode, 2);
    EXPECT_TRUE(unwritable.out.empty()) << unwritable.out;
    EXPECT_NE(unwritable.err.find("cannot write /nonexistent-dir/x.png"), std::string::npos)
        << unwritable.err;
}

}  // namespace
}  // namespace tessim
