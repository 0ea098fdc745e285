// --resume keeps only rows made from the same inputs: a target file edited since the rows were
// written changes the results' identity, and the sweep refuses to mix the two.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hardening/CliRun.h"

namespace {

namespace fs = std::filesystem;
using tessim::test::runTessim;

TEST(SweepResume, AChangedTargetFileIsNotResumed) {
    const fs::path dir = fs::temp_directory_path() / ("tessim-resume-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string minimal = std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal.yaml";
    auto writeTarget = [&](const std::string& spmSize) {
        std::ofstream(dir / "t.yaml") << "include: " << minimal << "\nspm:\n  size: " << spmSize << "\n";
    };
    writeTarget("256 KiB");
    std::ofstream(dir / "s.yaml") << "name: resume\nbase: {target: " << (dir / "t.yaml").string()
                                  << ", workload: axpy}\ngrid:\n  workload.n: [64, 128]\n";
    const std::string sweep =
        "sweep " + (dir / "s.yaml").string() + " --jobs 1 --out " + (dir / "out").string();
    auto r = runTessim(sweep);
    ASSERT_EQ(r.status, 0) << r.output;
    // Unchanged inputs: everything is done already.
    r = runTessim(sweep + " --resume");
    EXPECT_EQ(r.status, 0) << r.output;
    writeTarget("128 KiB");
    r = runTessim(sweep + " --resume");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("cannot resume"), std::string::npos) << r.output;
    fs::remove_all(dir);
}

}  // namespace
