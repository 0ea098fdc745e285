// Threads on the K1's cores: pthreads and OpenMP programs print what they print under
// qemu-riscv64, each thread on a core of its own through the shared L2s and the DDR; their
// results do not depend on the quantum; a deadlock stops with exit 2 naming the waiting threads.
#include <fstream>
#include <map>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "riscv/RiscvPrograms.h"

namespace tessim::test {
namespace {

using Json = nlohmann::json;

std::string buildThreaded(const std::string& source, bool openmp = false) {
    return buildProgram(source, openmp ? "-O2 -static -fopenmp" : "-O2 -static -pthread");
}

Json reportOf(const std::string& path) {
    return Json::parse(readWholeFile(path));
}

// Busy cycles (all but idle) of each engine of a report.
std::map<std::string, std::uint64_t> busyCycles(const Json& report) {
    std::map<std::string, std::uint64_t> busy;
    for (const auto& [engine, e] : report["engines"].items())
        for (const auto& [reason, cycles] : e["cycles"].items())
            if (reason != "idle")
                busy[engine] += cycles.get<std::uint64_t>();
    return busy;
}

TEST(ThreadedProgram, PthreadsReductionIsQemusOnFourMoreCores) {
    const std::string program = buildThreaded("threads_reduce.c");
    const ProcessResult want = runQemu(program);
    const std::string report = scratchDirectory() + "/reduce.json";
    const ProcessResult got = runProgram(program, "", report);
    ASSERT_EQ(got.exitCode, 0) << got.err;
    EXPECT_EQ(got.out, want.out);
    EXPECT_NE(got.out.find("(ok)"), std::string::npos) << got.out;
    const Json r = reportOf(report);
    EXPECT_EQ(r["stats"]["workload"]["threads"]["value"], 5);
    // The main thread on core0, the four it starts on core1…core4 (core4 in the second cluster);
    // core5…core7 stay idle.
    const auto busy = busyCycles(r);
    for (const char* core : {"core0", "core1", "core2", "core3", "core4"})
        EXPECT_GT(busy.at(core), 0u) << core;
    for (const char* core : {"core5", "core6", "core7"})
        EXPECT_EQ(busy.at(core), 0u) << core;
    EXPECT_GT(r["traffic_bytes"]["l2"]["read"].get<double>(), 0);
    // One profile per thread: each worker's time is in sum(), its waits in the futex calls.
    std::map<int, std::uint64_t> instructionsByThread;
    bool workerSum = false;
    for (const auto& row : r["profile"]) {
        instructionsByThread[row["thread"].get<int>()] += row["instructions"].get<std::uint64_t>();
        workerSum = workerSum || (row["thread"].get<int>() > 0 && row["function"] == "sum");
    }
    EXPECT_TRUE(workerSum);
    EXPECT_EQ(instructionsByThread.size(), 5u);
    std::uint64_t all = 0;
    for (const auto& [thread, n] : instructionsByThread)
        all += n;
    EXPECT_EQ(all, r["stats"]["workload"]["instructions"]["value"].get<std::uint64_t>());
}

TEST(ThreadedProgram, OpenMpParallelForIsQemus) {
    const std::string program = buildThreaded("omp_for.c", true);
    const ProcessResult want = runQemu(program);
    const std::string report = scratchDirectory() + "/omp.json";
    const ProcessResult got = runProgram(program, "", report);
    ASSERT_EQ(got.exitCode, 0) << got.err;
    EXPECT_EQ(got.out, want.out);
    EXPECT_NE(got.out.find("threads 4"), std::string::npos) << got.out;
    EXPECT_EQ(reportOf(report)["stats"]["workload"]["threads"]["value"], 4);
}

// libgomp sizes its team by sched_getaffinity: the cores the run gives the program.
TEST(ThreadedProgram, AffinityAnswersWithTheRunsCores) {
    const std::string source = scratchDirectory() + "/cpus.c";
    std::ofstream(source) << "#include <omp.h>\n#include <stdio.h>\nint main(void) { int n = 0;\n"
                             "#pragma omp parallel\n{\n#pragma omp atomic\n++n;\n}\n"
                             "printf(\"%d %d\\n\", omp_get_num_procs(), n); return 0; }\n";
    const std::string program = buildThreaded(source, true);
    const ProcessResult all = runProgram(program);
    ASSERT_EQ(all.exitCode, 0) << all.err;
    EXPECT_EQ(all.out, "8 8\n");
    const std::string report = scratchDirectory() + "/three.json";
    const ProcessResult three = runProgram(program, "", report, "--cores core4,core0,core5");
    ASSERT_EQ(three.exitCode, 0) << three.err;
    EXPECT_EQ(three.out, "3 3\n");
    const Json r = reportOf(report);
    EXPECT_EQ(r["plan"]["config"]["engine"], "core4");  // the main thread's
    const auto busy = busyCycles(r);
    EXPECT_GT(busy.at("core0"), 0u);
    EXPECT_GT(busy.at("core5"), 0u);
    EXPECT_EQ(busy.at("core1"), 0u);
}

TEST(ThreadedProgram, MatrixMultiplyIsQemusAndTheQuantumDoesNotMoveIt) {
    const std::string program = buildThreaded("threads_matmul.c");
    const ProcessResult want = runQemu(program, "4");
    std::map<std::string, Json> reports;
    for (const char* quantum : {"1us", "100ns", "10ns"}) {
        const std::string report = scratchDirectory() + "/matmul-" + quantum + ".json";
        const ProcessResult got =
            runProgram(program, "4", report, std::string("--set target.quantum=") + quantum);
        ASSERT_EQ(got.exitCode, 0) << got.err;
        EXPECT_EQ(got.out, want.out) << quantum;
        reports[quantum] = reportOf(report);
    }
    const double cycles = reports["1us"]["cycles"].get<double>();
    for (const char* quantum : {"100ns", "10ns"}) {
        EXPECT_EQ(reports[quantum]["cycles"].get<double>(), cycles) << quantum;  // exactly (issue 25)
        EXPECT_NEAR(reports[quantum]["stats"]["workload"]["instructions"]["value"].get<double>(),
                    reports["1us"]["stats"]["workload"]["instructions"]["value"].get<double>(),
                    0.01 * reports["1us"]["stats"]["workload"]["instructions"]["value"].get<double>())
            << quantum;
    }
    // Four threads take less time than one (the same program and rows).
    const std::string single = scratchDirectory() + "/matmul-single.json";
    ASSERT_EQ(runProgram(program, "1", single).exitCode, 0);
    EXPECT_LT(cycles, 0.8 * reportOf(single)["cycles"].get<double>());
}

TEST(ThreadedProgram, SameBinaryAndArgumentsGiveTheSameReport) {
    const std::string program = buildThreaded("omp_for.c", true);
    const std::string a = scratchDirectory() + "/omp-a.json", b = scratchDirectory() + "/omp-b.json";
    ASSERT_EQ(runProgram(program, "", a).exitCode, 0);
    ASSERT_EQ(runProgram(program, "", b).exitCode, 0);
    EXPECT_EQ(readWholeFile(a), readWholeFile(b));
}

TEST(ThreadedProgram, DeadlockStopsNamingTheWaitingThreads) {
    const std::string program = buildThreaded("threads_deadlock.c");
    const ProcessResult r = runProgram(program, "", "", "--max-cycles 100000000");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("deadlock"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("thread 0 (tid 1000, on core0)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("thread 1 (tid 1001, on core1)"), std::string::npos) << r.err;
}

TEST(ThreadedProgram, MoreThreadsThanCoresIsRefused) {
    const std::string program = buildThreaded("threads_matmul.c");
    const ProcessResult r = runProgram(program, "4", "", "--cores core0,core1");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("all 2 cores"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--cores"), std::string::npos) << r.err;
}

TEST(ThreadedProgram, CoresOptionNamesWhatIsWrong) {
    const std::string program = buildThreaded("threads_matmul.c");
    for (const auto& [cores, says] : std::vector<std::pair<std::string, std::string>>{
             {"core0,core9", "no engine 'core9'"}, {"core0,core0", "named twice"}}) {
        const ProcessResult r = runProgram(program, "1", "", "--cores " + cores);
        EXPECT_EQ(r.exitCode, 2) << cores << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    }
}

}  // namespace
}  // namespace tessim::test
