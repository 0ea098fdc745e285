// Results do not depend on how a sweep is run: --jobs 1, --jobs 2 and MPI ranks write
// byte-identical results.csv, results.jsonl and pareto.csv (rows in the points' order, not in
// the order points finished), and one run twice gives the same report byte for byte.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

struct Scratch {
    Scratch() {
        char pattern[] = "/tmp/tessim-determinism-XXXXXX";
        path = ::mkdtemp(pattern);
    }
    ~Scratch() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    std::string path;
};

// Points of unequal length (n spans 64×), on a single-core and an eight-core target, so that
// with two jobs they finish out of order.
const char* kSweep = R"(name: determinism
base:
  target: minimal-8core
  workload: axpy
grid:
  workload.n: [65536, 1024, 16384, 4096]
  plan.cores: [1, 2, 8]
  target.l2.mshrs: [4, 16]
metrics: [seconds, cycles, energy_j.total, traffic_bytes.ddr.read]
objectives:
  - minimize: seconds
  - minimize: energy_j.total
)";

const char* kFiles[] = {"results.csv", "results.jsonl", "pareto.csv"};

TEST(Determinism, SweepFilesAreByteIdenticalWithOneAndTwoJobs) {
    Scratch dir;
    const std::string spec = dir.path + "/sweep.yaml";
    std::ofstream(spec) << kSweep;
    const auto one = runTessim("sweep " + spec + " --jobs 1 --out " + dir.path + "/one");
    const auto two = runTessim("sweep " + spec + " --jobs 2 --out " + dir.path + "/two");
    ASSERT_EQ(one.status, 0) << one.output;
    ASSERT_EQ(two.status, 0) << two.output;
    for (const char* file : kFiles) {
        const std::string a = tessim::test::readFile(dir.path + "/one/" + file);
        EXPECT_FALSE(a.empty()) << file;
        EXPECT_EQ(a, tessim::test::readFile(dir.path + "/two/" + file)) << file;
    }
}

TEST(Determinism, SweepFilesAreByteIdenticalAcrossMpiRanks) {
#ifndef TESSIM_HAVE_MPI
    GTEST_SKIP() << "built without MPI";
#else
    if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "mpirun is not installed";
    Scratch dir;
    const std::string spec = dir.path + "/sweep.yaml";
    std::ofstream(spec) << kSweep;
    const auto one = runTessim("sweep " + spec + " --jobs 1 --out " + dir.path + "/one");
    ASSERT_EQ(one.status, 0) << one.output;
    const std::string mpi = "mpirun --allow-run-as-root --oversubscribe -np 3 " + std::string(TESSIM_BINARY) +
                            " sweep " + spec + " --mpi --jobs 1 --out " + dir.path + "/mpi >" + dir.path +
                            "/mpi.log 2>&1";
    ASSERT_EQ(std::system(mpi.c_str()), 0) << tessim::test::readFile(dir.path + "/mpi.log");
    for (const char* file : kFiles)
        EXPECT_EQ(tessim::test::readFile(dir.path + "/one/" + file),
                  tessim::test::readFile(dir.path + "/mpi/" + file))
            << file;
#endif
}

TEST(Determinism, OneRunTwiceGivesTheSameReport) {
    for (const char* run : {"--target k1 --workload memcpy --set workload.bytes=64KiB --plan all-cores",
                            "--target npu --workload conv1080p --set workload.h=16 --set workload.w=32"}) {
        const auto a = runTessim(std::string("run ") + run);
        const auto b = runTessim(std::string("run ") + run);
        ASSERT_EQ(a.status, 0) << a.output;
        EXPECT_EQ(a.out, b.out) << run;
    }
}

}  // namespace
