// Command-line values that cannot make sense are refused at the flag, and a result that cannot be
// written is a failure: exit 2, a message naming the flag or the stream, nothing that looks done.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hardening/CliRun.h"

namespace {

using tessim::test::runTessim;

void expectArgsRefused(const std::string& args, const std::string& message) {
    SCOPED_TRACE(args);
    const auto r = runTessim(args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

TEST(CommandLineLimits, AReportThatCannotBeWrittenFailsTheRun) {
    const auto r = runTessim("run --target minimal --workload axpy --set workload.n=64 > /dev/full");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.err.find("error: cannot write to standard output"), std::string::npos) << r.err;
    // The same run to a file is fine.
    const std::string file = std::filesystem::temp_directory_path() / "tessim-full-check.json";
    EXPECT_EQ(runTessim("run --target minimal --workload axpy --set workload.n=64 > " + file).status, 0);
    std::filesystem::remove(file);
}

TEST(CommandLineLimits, ImpossibleFlagValuesAreRefusedAtTheFlag) {
    expectArgsRefused("run --target minimal --workload axpy --out ''",
                      "--out: a directory, not an empty path");
    expectArgsRefused("run --target k1 --workload fc --plot ''", "--plot: a PNG file, not an empty path");
    expectArgsRefused("compare --workload resnet18-layer1 --targets k1 --plot ''",
                      "--plot: a PNG file, not an empty path");
    expectArgsRefused("bench --case fma-independent --ops 0", "--ops");
    for (const char* rate : {"nan", "inf", "1e-9", "1e13", "0", "-5"})
        expectArgsRefused(std::string("probe ddr --target k1 --pattern seq --rate ") + rate, "--rate");
    expectArgsRefused("sweep vector-lmul --jobs 0", "--jobs");
    // In range: accepted.
    EXPECT_EQ(runTessim("probe ddr --target k1 --pattern seq --rate 1e8 --requests 100").status, 0);
}

}  // namespace
