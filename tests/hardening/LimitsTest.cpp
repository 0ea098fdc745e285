// Values and sizes beyond what the simulator can represent or afford are refused at once with a
// clear message (exit 2): durations past 64-bit picoseconds, NaN timeouts, sweeps of 10^12 points,
// misspelt swept keys.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "hardening/CliRun.h"
#include "run/pipeline/HostTimeWatchdog.h"
#include "run/sweep/PointSet.h"
#include "run/sweep/SweepSpec.h"
#include "sim/config/ConfigError.h"
#include "sim/config/Quantity.h"

namespace {

using tessim::test::CliResult;
using tessim::test::runTessim;

void expectRefused(const CliResult& r, std::initializer_list<std::string> fragments) {
    EXPECT_EQ(r.status, 2) << r.output;
    for (const auto& f : fragments)
        EXPECT_NE(r.output.find(f), std::string::npos) << "missing '" << f << "' in: " << r.output;
}

struct TempYaml {
    std::string path;
    explicit TempYaml(const std::string& text)
        : path((std::filesystem::temp_directory_path() /
                ("tessim-limits-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++) + ".yaml"))
                   .string()) {
        std::ofstream(path) << text;
    }
    ~TempYaml() { std::filesystem::remove(path); }
    static int& counter() {
        static int n = 0;
        return n;
    }
};

// A long run at a terminal says every 30 s (here every 0.1 s) that it is still going and how to
// bound it; the lines stop when the run ends.
TEST(Limits, ALongRunSaysItIsStillGoingUntilItEnds) {
    ::testing::internal::CaptureStderr();
    {
        const tessim::HostTimeWatchdog watchdog(0.0, "the run of npu", 0.1);
        std::this_thread::sleep_for(std::chrono::milliseconds(350));
    }
    const std::string during = ::testing::internal::GetCapturedStderr();
    const std::string line = "tessim: the run of npu is still running after ";
    std::size_t lines = 0;
    for (std::size_t at = during.find(line); at != std::string::npos; at = during.find(line, at + 1))
        ++lines;
    EXPECT_GE(lines, 2u) << during;
    EXPECT_NE(during.find("s of host time (--timeout SECONDS stops a run)"), std::string::npos) << during;
    ::testing::internal::CaptureStderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST(Limits, DurationsBeyondSimulatedTimeAreRefused) {
    std::string why;
    EXPECT_TRUE(tessim::config::parseDuration("1.8e7 s"));
    EXPECT_FALSE(tessim::config::parseDuration("1.9e7 s", &why));
    EXPECT_NE(why.find("64-bit picoseconds"), std::string::npos) << why;
    EXPECT_FALSE(tessim::config::parseDuration("1e300 s", &why));
    EXPECT_NE(why.find("time range"), std::string::npos) << why;
    expectRefused(runTessim("run --target minimal --workload axpy --set 'target.spm.latency=1e300 s'"),
                  {"spm.latency", "time range"});
}

TEST(Limits, TimingParametersThatWouldOverflowARunAreRefused) {
    // Each of these once ran for minutes or wrapped the run's time around 2^64 ps.
    expectRefused(runTessim("run --target npu --workload conv1080p --set workload.h=8 "
                            "--set 'target.sram.latency=3e4 s'"),
                  {"sram.latency", "at most 1 ms"});
    expectRefused(runTessim("run --target npu --workload conv1080p --set workload.h=8 "
                            "--set target.sram.latency=30000000000000"),
                  {"sram.latency", "at most 1 ms"});
    expectRefused(runTessim("run --target minimal --workload axpy --set 'target.ddr.latency=1e7 s'"),
                  {"ddr.latency"});
    // The longest accepted still runs.
    EXPECT_EQ(runTessim("run --target npu --workload conv1080p --set workload.h=2 --set workload.w=8 "
                        "--set 'target.sram.latency=1 ms'")
                  .status,
              0);
}

TEST(Limits, SweepTimeoutMustBeAFinitePositiveNumber) {
    for (const char* bad : {"nan", "inf", "-1", "0"}) {
        auto r = runTessim(std::string("sweep configs/sweeps/minimal-axpy.yaml --timeout ") + bad);
        EXPECT_NE(r.status, 0) << bad << ": " << r.output;
        EXPECT_NE(r.output.find("--timeout"), std::string::npos) << r.output;
    }
}

// `tessim list` alone lists every kind (SweepCli.ListAloneShowsEveryKindAndEverySweepHasADescription);
// a kind it does not know is refused, naming those it knows.
// A target declaring more memories than a target may hold stops at the first one past the limit,
// before anything is expanded or built (a 200,000-memory file took over a minute and 1.5 GB).
TEST(Limits, TooManyMemoriesStopAtTheFirstOnePastTheLimit) {
    const std::string path = "/tmp/tessim-many-memories-" + std::to_string(::getpid()) + ".yaml";
    {
        std::ofstream out(path);
        out << "name: many\nclock: 1 GHz\n";
        for (int i = 0; i < 20000; ++i)
            out << "m" << i
                << ": {impl: simple, level: sram, size: 1 KiB, latency: 1 ns, bandwidth: 1 GB/s}\n";
    }
    const CliResult r = runTessim("run --target " + path + " --workload axpy");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find(path + ":258:14: error: m255.impl: too many memories (at most 255)"),
              std::string::npos)
        << r.err;
    std::filesystem::remove(path);
}

TEST(Limits, ListOfAnUnknownKindNamesTheKinds) {
    expectRefused(runTessim("list sweep"),
                  {"sweep not in {targets,workloads,kernels,plans,papers,sweeps,ops,config}"});
}

TEST(Limits, AMisspeltComponentSuggestsTheComponent) {
    expectRefused(runTessim("run --target npu --workload conv1080p --set target.srm.size=2MiB"),
                  {"srm", "did you mean 'sram'?"});
    // A cluster's member is suggested as it is overridden: through its cluster.
    expectRefused(runTessim("run --target k1 --workload memcpy --set target.l2.size=1MiB"),
                  {"did you mean 'cluster.l2'?"});
}

TEST(Limits, AHugeGridIsRefusedBeforeAnyAxisIsExpanded) {
    TempYaml sweep("name: huge\nbase: {target: minimal, workload: axpy}\ngrid:\n"
                   "  workload.n: {from: 1, to: 1000000, count: 1000000}\n"
                   "  target.ddr.channels: {from: 1, to: 1000000, count: 1000000}\n");
    const auto start = std::chrono::steady_clock::now();
    try {
        tessim::sweep::loadSweepSpec(sweep.path);
        FAIL() << "a 10^12-point sweep was accepted";
    } catch (const tessim::config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("1000000000000 points"), std::string::npos) << e.what();
    }
    // The bound multiplies counts; expanding a million-value axis would take far longer.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(Limits, RangeExpansionIsLinear) {
    tessim::sweep::NumericRange r;
    r.from = 1;
    r.to = 200000;
    r.count = 200000;
    r.integer = true;
    const auto values = tessim::sweep::expandRange(r);
    ASSERT_EQ(values.size(), 200000u);
    EXPECT_EQ(values.front(), "1");
    EXPECT_EQ(values.back(), "200000");
    // Rounding merges values: 0..10 in 101 steps rounded to integers gives 11 distinct values.
    tessim::sweep::NumericRange coarse;
    coarse.from = 0;
    coarse.to = 10;
    coarse.count = 101;
    coarse.integer = true;
    EXPECT_EQ(tessim::sweep::expandRange(coarse).size(), 11u);
}

TEST(Limits, AMisspeltSweptKeyIsRefusedBeforeAnyPointRuns) {
    const auto out =
        std::filesystem::temp_directory_path() / ("tessim-limits-out-" + std::to_string(::getpid()));
    TempYaml sweep("name: misspelt\nbase: {target: minimal, workload: axpy, set: {workload.n: 64}}\n"
                   "grid:\n  target.spm.sise: [64 KiB, 128 KiB]\n");
    auto r = runTessim("sweep " + sweep.path + " --jobs 1 --out " + out.string());
    expectRefused(r, {"sise", "unknown key", "no point was run"});
    EXPECT_FALSE(std::filesystem::exists(out / "results.csv")) << "points ran";
    std::filesystem::remove_all(out);
}

}  // namespace

namespace {

// A SCALE-Sim GEMM of side 30,000 needs gigabytes to map its operands: under --max-memory it
// stops at once with a clear message instead of thrashing (sanitizer builds take no limit).
TEST(Limits, MaxMemoryStopsARunThatWouldOutgrowIt) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves more address space than any limit";
#else
    const std::string topology =
        (std::filesystem::temp_directory_path() / ("tessim-limits-" + std::to_string(::getpid()) + ".csv"))
            .string();
    std::ofstream(topology) << "Layer, M, N, K,\nhuge, 30000, 64, 30000,\n";
    const auto r = runTessim("run --target " + std::string(TESSIM_SOURCE_DIR) +
                             "/tests/fuzz/corpus/scalesim-cfg/ws-calc.cfg --workload " + topology +
                             " --max-memory 512MiB");
    std::filesystem::remove(topology);
    expectRefused(r, {"error: out of memory", "memory limit of 0.5 GiB (--max-memory"});
    EXPECT_TRUE(r.out.empty()) << r.out;
#endif
}

// A schedule whose work is finite but far too long to wait for (a DMA of 10^9 rows) stops at
// --timeout with exit 2 and nothing on stdout; a run that ends in time is unaffected.
TEST(Limits, TimeoutStopsAnyRunThatOutlivesIt) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("tessim-limits-dma-" + std::to_string(::getpid()) + ".jsonl"))
                                 .string();
    std::ofstream(path)
        << R"({"schema":"tessim.schedule/1","target":"npu"})"
           "\n"
        << R"({"engine":"npu","op":"dma_start","tag":1,"src_mem":"ddr","src":0,"dst_mem":"sram",)"
           R"("dst":0,"row_bytes":64,"rows":1000000000,"src_row_stride":0,"dst_row_stride":0})"
           "\n"
        << R"({"engine":"npu","op":"dma_wait","tag":1})"
           "\n";
    const auto start = std::chrono::steady_clock::now();
    const CliResult r = runTessim("run --target npu --schedule " + path + " --timeout 1");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    expectRefused(r, {"error: --timeout: the run of npu ran longer than 1 s of host time"});
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_LT(wall, 60.0);
    EXPECT_EQ(runTessim("run --target minimal --workload axpy --set workload.n=1024 --timeout 600").status,
              0);
    std::filesystem::remove(path);
}

TEST(Limits, MaxMemoryNeedsASizeWithAUnit) {
    expectRefused(runTessim("run --target minimal --workload axpy --max-memory 4096"),
                  {"<command line>:1:1: error: --max-memory:", "a size with a unit"});
    expectRefused(runTessim("run --target minimal --workload axpy --max-memory 1MiB"), {"below 64 MiB"});
    const auto none = runTessim("run --target minimal --workload axpy --set workload.n=64 --max-memory none");
    EXPECT_EQ(none.status, 0) << none.output;
}

}  // namespace
