// `tessim sweep` and `tessim plot` as users run them: exit codes, malformed files, kill -9 and
// --resume of the real process, MPI giving the local rows, plots on disk.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <thread>

#include <fcntl.h>

#include "tests/sweep/SweepTestSupport.h"

namespace tessim::sweep {
namespace {

using namespace tessim::sweep::testing;

const std::string kTessimBinary = TESSIM_BINARY;

// A sweep over the stand-in run command (the undocumented `_test_point_command` hook).
std::string fakeSweep(const std::string& dir, const std::string& body) {
    std::string path = dir + "/sweep.yaml";
    writeText(path, "_test_point_command: [/bin/sh, " + sourceDir() + "/tests/sweep/fake_run.sh]\n" +
                        "base: {target: minimal, workload: axpy}\n" + body);
    return path;
}

TEST(SweepCli, MalformedSweepFileIsAClearErrorWithExit2) {
    ScratchDir scratch("cli-bad");
    const std::string& dir = scratch.path;
    writeText(dir + "/bad.yaml", "base: {target: minimal, workload: axpy}\n"
                                 "grid:\n"
                                 "  workload.n: [1, 2]\n"
                                 "  sram.size: [1 MiB]\n");
    CommandResult r = runShell(kTessimBinary + " sweep " + dir + "/bad.yaml --out " + dir + "/out", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(dir + "/bad.yaml:4:3: error:"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(dir + "/out/results.csv"));

    writeText(dir + "/syntax.yaml", "base: {target: minimal\ngrid: [\n");
    r = runShell(kTessimBinary + " sweep " + dir + "/syntax.yaml", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(dir + "/syntax.yaml:"), std::string::npos) << r.err;

    r = runShell(kTessimBinary + " sweep " + dir + "/missing.yaml", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("missing.yaml"), std::string::npos) << r.err;
}

// A value the point's run refuses came from the sweep file: the point's message names the file's
// line (the axis, or base.set), not the --set on the child's command line.
TEST(SweepCli, APointsBadValueIsBlamedOnItsLineInTheSweepFile) {
    ScratchDir scratch("cli-value");
    const std::string& dir = scratch.path;
    writeText(dir + "/values.yaml", "name: values\n"
                                    "base: {target: minimal, workload: axpy}\n"
                                    "grid:\n"
                                    "  workload.n: [16, -5]\n");
    CommandResult r = runShell(kTessimBinary + " sweep " + dir + "/values.yaml --out " + dir + "/out", dir);
    EXPECT_EQ(r.status, 1) << r.err;
    const std::string csv = readText(dir + "/out/results.csv");
    EXPECT_NE(csv.find(dir + "/values.yaml:4:3: error: n: expected a non-negative integer, got '-5' (the "
                             "point's workload.n = -5)"),
              std::string::npos)
        << csv;
    EXPECT_EQ(csv.find("<command line>"), std::string::npos) << csv;
}

// The library's sweeps run by the names `tessim list sweeps` prints; a name the library lacks is
// refused, naming those it has, before anything runs.
TEST(SweepCli, LibrarySweepsRunByNameAndUnknownNamesAreRefused) {
    ScratchDir scratch("cli-by-name");
    const std::string& dir = scratch.path;
    namespace fs = std::filesystem;
    // A library of its own (TESSIM_CONFIG_DIR): the shipped targets, plans, energy and memory
    // tables, and one quick sweep over the stand-in run command.
    fs::create_directories(dir + "/configs/sweeps");
    for (const auto& entry : fs::directory_iterator(sourceDir() + "/configs"))
        if (entry.path().filename() != "sweeps")
            fs::create_directory_symlink(entry.path(), dir + "/configs/" + entry.path().filename().string());
    fs::create_directories(dir + "/workloads");
    fs::create_directory_symlink(sourceDir() + "/workloads/library", dir + "/workloads/library");
    writeText(dir + "/configs/sweeps/quick.yaml",
              "_test_point_command: [/bin/sh, " + sourceDir() + "/tests/sweep/fake_run.sh]\n" +
                  "description: three stand-in points\n" + "base: {target: minimal, workload: axpy}\n" +
                  "grid: {workload.n: [1, 2, 3]}\n");
    const std::string env = "TESSIM_CONFIG_DIR=" + dir + "/configs ";

    CommandResult listed = runShell(env + kTessimBinary + " list sweeps", dir);
    ASSERT_EQ(listed.status, 0) << listed.err;
    EXPECT_NE(listed.out.find("quick"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("three stand-in points"), std::string::npos) << listed.out;

    CommandResult r = runShell(env + kTessimBinary + " sweep quick --out " + dir + "/out", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(countLines(dir + "/out/results.csv"), 4u);
    EXPECT_NE(r.out.find("3 ok, 0 error, 0 timeout"), std::string::npos) << r.out;

    r = runShell(env + kTessimBinary + " sweep quik --out " + dir + "/out2", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("no sweep named 'quik'; did you mean 'quick'? (known: quick)"), std::string::npos)
        << r.err;
    EXPECT_FALSE(exists(dir + "/out2"));
}

// `tessim list` alone: every kind under its heading, and every shipped sweep with a description.
TEST(SweepCli, ListAloneShowsEveryKindAndEverySweepHasADescription) {
    ScratchDir scratch("cli-list");
    CommandResult all = runShell(kTessimBinary + " list", scratch.path);
    ASSERT_EQ(all.status, 0) << all.err;
    std::size_t at = 0;
    for (const char* heading :
         {"targets:\n", "workloads:\n", "kernels:\n", "plans:\n", "papers:\n", "sweeps:\n"}) {
        const auto found = all.out.find(heading, at);
        ASSERT_NE(found, std::string::npos) << heading << " missing or out of order:\n" << all.out;
        at = found;
    }
    EXPECT_NE(all.out.find("\n  npu "), std::string::npos) << all.out;
    EXPECT_NE(all.out.find("\n  conv2d/tiled "), std::string::npos) << all.out;

    CommandResult sweeps = runShell(kTessimBinary + " list sweeps", scratch.path);
    ASSERT_EQ(sweeps.status, 0) << sweeps.err;
    std::istringstream lines(sweeps.out);
    int count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
        const auto gap = line.find(' ');
        ASSERT_NE(gap, std::string::npos) << "no description: " << line;
        EXPECT_NE(line.find_first_not_of(' ', gap), std::string::npos) << "no description: " << line;
        const std::string name = line.substr(0, gap);
        EXPECT_TRUE(exists(sourceDir() + "/configs/sweeps/" + name + ".yaml")) << name;
    }
    EXPECT_GE(count, 9);
    EXPECT_NE(all.out.find(sweeps.out.substr(0, sweeps.out.find('\n'))), std::string::npos);
}

TEST(SweepCli, ExistingResultsNeedResume) {
    ScratchDir scratch("cli-exist");
    const std::string& dir = scratch.path;
    std::string spec = fakeSweep(dir, "grid: {workload.n: [1, 2, 3]}\n");
    CommandResult r = runShell(kTessimBinary + " sweep " + spec + " --jobs 2 --out " + dir + "/out", dir);
    ASSERT_EQ(r.status, 0) << r.err;
    r = runShell(kTessimBinary + " sweep " + spec + " --out " + dir + "/out", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
    r = runShell(kTessimBinary + " sweep " + spec + " --resume --out " + dir + "/out", dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("(0 run now, 3 from an earlier run)"), std::string::npos) << r.out;
}

TEST(SweepCli, TimeoutOptionAndFailedPointsGiveExit1) {
    ScratchDir scratch("cli-timeout");
    const std::string& dir = scratch.path;
    std::string spec = fakeSweep(dir, "grid: {workload.n: [1, hang, abc]}\n");
    CommandResult r =
        runShell(kTessimBinary + " sweep " + spec + " --timeout 0.5 --out " + dir + "/out", dir);
    EXPECT_EQ(r.status, 1) << r.err;
    std::string csv = readText(dir + "/out/results.csv");
    EXPECT_NE(csv.find(",timeout,no result within 0.5 s"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",error,\"exit 2: <command line>:0:9: error: workload.n: expected an "
                       "integer, got 'abc'\""),
              std::string::npos)
        << csv;
}

TEST(SweepCli, KillNineOfTheProcessThenResume) {
    ScratchDir scratch("cli-kill");
    const std::string& dir = scratch.path;
    std::string spec = dir + "/sweep.yaml";
    writeText(spec, "_test_point_command: [/bin/sh, " + sourceDir() +
                        "/tests/sweep/fake_run.sh]\n"
                        "base: {target: minimal, workload: axpy, set: {workload.delay: 0.1}}\n"
                        "grid: {workload.n: {from: 1, to: 30, step: 1}}\n");
    CommandResult reference =
        runShell(kTessimBinary + " sweep " + spec + " --jobs 2 --out " + dir + "/reference", dir);
    ASSERT_EQ(reference.status, 0) << reference.err;

    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, 1);
        ::dup2(devNull, 2);
        std::string out = dir + "/killed";
        ::execl(kTessimBinary.c_str(), kTessimBinary.c_str(), "sweep", spec.c_str(), "--jobs", "2", "--out",
                out.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (countLines(dir + "/killed/results.jsonl") < 6 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    size_t kept = countLines(dir + "/killed/results.jsonl");
    ASSERT_GE(kept, 5u);
    ASSERT_LT(kept, 30u);

    CommandResult resumed =
        runShell(kTessimBinary + " sweep " + spec + " --jobs 2 --resume --out " + dir + "/killed", dir);
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    for (const char* file : {"results.csv", "results.jsonl"}) {
        EXPECT_EQ(sortedLines(dir + "/killed/" + file), sortedLines(dir + "/reference/" + file)) << file;
    }
}

TEST(SweepCli, MpiRunGivesTheLocalRows) {
    ScratchDir scratch("cli-mpi");
    const std::string& dir = scratch.path;
    std::string spec = fakeSweep(dir, "grid: {workload.n: [1, 2, 3, 4, 5, 6, 7, 8, abc]}\n"
                                      "objectives: [{minimize: seconds}, {minimize: energy_j.total}]\n");
#ifndef TESSIM_HAVE_MPI
    CommandResult r = runShell(kTessimBinary + " sweep " + spec + " --mpi --out " + dir + "/mpi", dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("without MPI"), std::string::npos) << r.err;
    GTEST_SKIP() << "built without MPI";
#else
    if (!onPath("mpirun"))
        GTEST_SKIP() << "mpirun is not installed";
    CommandResult one = runShell(kTessimBinary + " sweep " + spec + " --jobs 1 --out " + dir + "/one", dir);
    CommandResult two = runShell(kTessimBinary + " sweep " + spec + " --jobs 2 --out " + dir + "/two", dir);
    CommandResult mpi = runShell("mpirun --allow-run-as-root --oversubscribe -np 3 " + kTessimBinary +
                                     " sweep " + spec + " --mpi --jobs 2 --out " + dir + "/mpi",
                                 dir);
    EXPECT_EQ(one.status, 1) << one.err;  // the point n=abc fails on purpose
    EXPECT_EQ(two.status, 1) << two.err;
    EXPECT_NE(mpi.status, 0) << mpi.err;  // mpirun passes rank 0's 1 on
    EXPECT_NE(mpi.out.find("2 MPI workers x 2 jobs"), std::string::npos) << mpi.out << mpi.err;
    for (const char* file : {"results.csv", "results.jsonl"}) {
        EXPECT_EQ(countLines(dir + "/one/" + file), file[8] == 'c' ? 10u : 9u);
        EXPECT_EQ(sortedLines(dir + "/one/" + file), sortedLines(dir + "/two/" + file)) << file;
        EXPECT_EQ(sortedLines(dir + "/one/" + file), sortedLines(dir + "/mpi/" + file)) << file;
    }
    EXPECT_EQ(readText(dir + "/one/pareto.csv"), readText(dir + "/mpi/pareto.csv"));
#endif
}

TEST(SweepCli, ExampleMinimalSweepWithTheRealSimulator) {
    ScratchDir scratch("cli-minimal");
    const std::string& dir = scratch.path;
    std::string spec = sourceDir() + "/configs/sweeps/minimal-axpy.yaml";
    CommandResult one = runShell(kTessimBinary + " sweep " + spec + " --jobs 1 --out " + dir + "/one", dir);
    CommandResult two = runShell(kTessimBinary + " sweep " + spec + " --jobs 2 --out " + dir + "/two", dir);
    ASSERT_EQ(one.status, 0) << one.out << one.err;
    ASSERT_EQ(two.status, 0) << two.out << two.err;
    EXPECT_EQ(countLines(dir + "/one/results.csv"), 81u);
    EXPECT_NE(one.out.find("80 ok, 0 error, 0 timeout"), std::string::npos) << one.out;
    for (const char* file : {"results.csv", "results.jsonl", "pareto.csv"}) {
        EXPECT_EQ(sortedLines(dir + "/one/" + file), sortedLines(dir + "/two/" + file)) << file;
    }
    // Sizes and bandwidths went through --set as text, and came back as numbers.
    std::string csv = readText(dir + "/one/results.csv");
    EXPECT_NE(csv.find(",21.32 GB/s,"), std::string::npos);
    EXPECT_EQ(csv.find(",ok,") == std::string::npos, false);
}

bool matplotlibAvailable() {
    return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
}

TEST(SweepCli, PlotsAreWrittenAsPngAndSvg) {
    if (!matplotlibAvailable())
        GTEST_SKIP() << "/usr/bin/python3 has no matplotlib";
    ScratchDir scratch("cli-plot");
    const std::string& dir = scratch.path;
    std::string spec = fakeSweep(dir, R"(grid:
  workload.n: [1, 2, 4, 8]
  target.sram.size: [256 KiB, 1 MiB, 512 KiB]
  plan.strategy: [naive, double-buffer]
objectives: [{minimize: seconds}, {minimize: energy_j.total}]
plots:
  - {kind: lines, x: target.sram.size, y: [traffic_bytes.ddr.read, seconds], group: plan.strategy}
  - {kind: heatmap, x: target.sram.size, y: workload.n, metric: seconds}
  - {kind: pareto, x: seconds, y: energy_j.total, group: plan.strategy}
)");
    CommandResult r = runShell(kTessimBinary + " sweep " + spec + " --plot --out " + dir + "/out", dir);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    for (const char* name : {"lines_traffic_bytes.ddr.read-seconds_vs_target.sram.size_by_plan.strategy",
                             "heatmap_seconds_over_target.sram.size_x_workload.n",
                             "pareto_energy_j.total_vs_seconds_by_plan.strategy"}) {
        for (const char* ext : {".png", ".svg"}) {
            EXPECT_TRUE(exists(dir + "/out/plots/" + name + ext)) << name << ext << "\n" << r.out;
        }
    }
    // Plots that do not mislead: what a plot averages over is in its title (SVG text), a Pareto
    // front's points carry the parameters that tell them apart.
    const std::string plots = dir + "/out/plots/";
    EXPECT_NE(readText(plots + "heatmap_seconds_over_target.sram.size_x_workload.n.svg")
                  .find("mean over plan.strategy (2 values)"),
              std::string::npos);
    EXPECT_NE(
        readText(plots + "lines_traffic_bytes.ddr.read-seconds_vs_target.sram.size_by_plan.strategy.svg")
            .find("mean over workload.n (4 values)"),
        std::string::npos);
    const std::string pareto = readText(plots + "pareto_energy_j.total_vs_seconds_by_plan.strategy.svg");
    EXPECT_TRUE(pareto.find("Pareto front (min, min)") != std::string::npos ||
                pareto.find("best in both") != std::string::npos);
    EXPECT_NE(pareto.find("n="), std::string::npos);
    // 25 lines are refused with the reason, not drawn as a tangle.
    std::string many = "id,workload.n,plan.unroll,cycles,status,message\n";
    for (int i = 0; i < 25; ++i)
        for (int n = 1; n <= 2; ++n)
            many += fmt::format("p{}{},{},{},{},ok,\n", i, n, n, i, 100 + i * n);
    writeText(dir + "/many.csv", many);
    r = runShell(kTessimBinary + " plot " + dir +
                     "/many.csv --kind lines --x workload.n --y cycles --group plan.unroll",
                 dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--group plan.unroll has 25 values"), std::string::npos) << r.err;
    r = runShell(kTessimBinary + " plot " + dir +
                     "/out/results.csv --kind heatmap --x plan.strategy"
                     " --y target.sram.size --metric cycles --out " +
                     dir + "/more",
                 dir);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(exists(dir + "/more/heatmap_cycles_over_plan.strategy_x_target.sram.size.png")) << r.out;
    r = runShell(kTessimBinary + " plot " + dir +
                     "/out/results.csv --kind lines --x workload.n"
                     " --y no.such.column --out " +
                     dir + "/more",
                 dir);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("no.such.column"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace tessim::sweep
