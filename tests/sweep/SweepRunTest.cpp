// Running sweeps (with a stand-in for `tessim run`): failures and hangs are recorded while the
// rest finish, --jobs does not change the rows, and kill -9 + --resume loses and duplicates
// nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <sstream>
#include <thread>

#include "run/sweep/ResultRow.h"
#include "run/sweep/Sweep.h"
#include "tests/sweep/SweepTestSupport.h"

namespace tessim::sweep {
namespace {

using namespace tessim::sweep::testing;

struct Outcome {
    int status = -1;
    std::string out;
    std::string err;
};

Outcome sweep(const std::string& specPath, const std::string& outDir, size_t jobs, bool resume = false,
              double timeout = 0.0) {
    SweepOptions options;
    options.specPath = specPath;
    options.outDir = outDir;
    options.jobs = jobs;
    options.resume = resume;
    if (timeout > 0.0)
        options.timeoutSeconds = timeout;
    options.command = fakeRunCommand();
    options.terminal = false;
    std::ostringstream out;
    std::ostringstream err;
    Outcome o;
    o.status = runSweep(options, out, err);
    o.out = out.str();
    o.err = err.str();
    return o;
}

std::map<std::string, ResultRow> rowsByN(const std::string& dir) {
    std::map<std::string, ResultRow> rows;
    std::istringstream in(readText(dir + "/results.jsonl"));
    for (std::string line; std::getline(in, line);) {
        auto row = parseJsonLine(line);
        EXPECT_TRUE(row) << line;
        if (row)
            rows[row->params.at(0).second] = *row;
    }
    return rows;
}

TEST(SweepRun, FailingAndHangingPointsAreRecordedWhileTheRestFinish) {
    ScratchDir scratch("fail");
    const std::string& dir = scratch.path;
    writeText(dir + "/sweep.yaml", R"(
name: failures
base: {target: minimal, workload: axpy}
grid:
  workload.n: [1, abc, 2, hang, 3, crash, 4]
metrics: [seconds, cycles, energy_j.total, traffic_bytes.ddr.read, stats.dma.bursts, stats.no.such.key]
objectives: [{minimize: seconds}, {minimize: energy_j.total}]
)");
    auto start = std::chrono::steady_clock::now();
    Outcome o = sweep(dir + "/sweep.yaml", dir + "/out", 3, false, 3.0);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(o.status, 1) << o.err;
    EXPECT_LT(seconds, 60.0) << "the hanging point must be killed at its timeout";

    auto rows = rowsByN(dir + "/out");
    ASSERT_EQ(rows.size(), 7u);
    for (const char* n : {"1", "2", "3", "4"}) {
        EXPECT_EQ(rows[n].status, PointStatus::Ok) << n << ": " << rows[n].message;
    }
    const ResultRow& ok = rows["2"];
    ASSERT_EQ(ok.metrics.size(), 6u);
    EXPECT_EQ(ok.metrics[1].second, 13);
    EXPECT_DOUBLE_EQ(ok.metrics[0].second.get<double>(), 13e-9);
    EXPECT_EQ(ok.metrics[3].second, 16);
    EXPECT_EQ(ok.metrics[4].second, 2) << "stats leaves {value, unit} give their value";
    EXPECT_TRUE(ok.metrics[5].second.is_null());

    EXPECT_EQ(rows["abc"].status, PointStatus::Error);
    EXPECT_NE(rows["abc"].message.find("expected an integer, got 'abc'"), std::string::npos)
        << rows["abc"].message;
    EXPECT_EQ(rows["hang"].status, PointStatus::Timeout);
    EXPECT_EQ(rows["crash"].status, PointStatus::Error);
    EXPECT_NE(rows["crash"].message.find("signal 11"), std::string::npos) << rows["crash"].message;

    EXPECT_EQ(countLines(dir + "/out/results.csv"), 8u);
    EXPECT_TRUE(exists(dir + "/out/pareto.csv"));
    EXPECT_NE(o.out.find("4 ok, 2 error, 1 timeout"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("pareto front"), std::string::npos) << o.out;
    EXPECT_NE(o.err.find("sweep: 7/7 done, 3 failed"), std::string::npos) << o.err;
}

TEST(SweepRun, JobsDoNotChangeTheRows) {
    ScratchDir scratch("jobs");
    const std::string& dir = scratch.path;
    writeText(dir + "/sweep.yaml", R"(
base: {target: minimal, workload: axpy, set: {workload.delay: 0.01}}
grid:
  workload.n: {from: 1, to: 12, step: 1}
  plan.variant: [a, b]
objectives: [{minimize: seconds}, {maximize: workload.n}]
)");
    Outcome one = sweep(dir + "/sweep.yaml", dir + "/one", 1);
    Outcome two = sweep(dir + "/sweep.yaml", dir + "/two", 2);
    EXPECT_EQ(one.status, 0) << one.err;
    EXPECT_EQ(two.status, 0) << two.err;
    EXPECT_EQ(countLines(dir + "/one/results.jsonl"), 24u);
    for (const char* file : {"results.csv", "results.jsonl"}) {
        EXPECT_EQ(sortedLines(dir + "/one/" + file), sortedLines(dir + "/two/" + file)) << file;
    }
    EXPECT_EQ(readText(dir + "/one/pareto.csv"), readText(dir + "/two/pareto.csv"));
}

TEST(SweepRun, KillNineThenResumeLosesAndDuplicatesNothing) {
    ScratchDir scratch("resume");
    const std::string& dir = scratch.path;
    writeText(dir + "/sweep.yaml", R"(
base: {target: minimal, workload: axpy, set: {workload.delay: 0.1}}
grid:
  workload.n: {from: 1, to: 24, step: 1}
metrics: [seconds, cycles]
)");
    Outcome reference = sweep(dir + "/sweep.yaml", dir + "/reference", 2);
    ASSERT_EQ(reference.status, 0) << reference.err;

    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        Outcome o = sweep(dir + "/sweep.yaml", dir + "/killed", 2);
        ::_exit(o.status);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (countLines(dir + "/killed/results.jsonl") < 5 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    // A row counts once both files hold it: kill -9 may land between its two writes.
    size_t kept =
        std::min(countLines(dir + "/killed/results.jsonl"), countLines(dir + "/killed/results.csv") - 1);
    ASSERT_GE(kept, 4u);
    ASSERT_LT(kept, 24u) << "the sweep finished before it could be killed";

    // Without --resume the directory is not touched.
    EXPECT_THROW(sweep(dir + "/sweep.yaml", dir + "/killed", 2, false), std::runtime_error);
    Outcome resumed = sweep(dir + "/sweep.yaml", dir + "/killed", 2, true);
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_NE(resumed.out.find(std::to_string(24 - kept) + " run now, " + std::to_string(kept) +
                               " from an earlier run"),
              std::string::npos)
        << resumed.out;
    for (const char* file : {"results.csv", "results.jsonl"}) {
        EXPECT_EQ(sortedLines(dir + "/killed/" + file), sortedLines(dir + "/reference/" + file)) << file;
    }
    // A second resume has nothing left to do.
    Outcome again = sweep(dir + "/sweep.yaml", dir + "/killed", 2, true);
    EXPECT_NE(again.out.find("(0 run now, 24 from an earlier run)"), std::string::npos) << again.out;
}

}  // namespace
}  // namespace tessim::sweep
