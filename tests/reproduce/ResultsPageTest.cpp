// docs/results.md is what docs/results.sh gives with this build: a change that moves a headline
// run or a reproduction must regenerate the page, so its figures cannot drift from the simulator.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

TEST(ResultsPage, IsWhatTheScriptGivesWithThisBuild) {
    const std::string source = TESSIM_SOURCE_DIR;
    // TESSIM_README_BUILD: the build whose `tessim` the docs' commands run (CI: the release one).
    const char* docsBuild = std::getenv("TESSIM_README_BUILD");
    const std::string binary =
        docsBuild && *docsBuild ? std::string(docsBuild) + "/tessim" : std::string(TESSIM_BINARY);
    const test::ProcessResult r = test::runCommand("bash '" + source + "/docs/results.sh' '" + binary + "'");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string page = test::readWholeFile(source + "/docs/results.md");
    ASSERT_FALSE(page.empty()) << "docs/results.md is missing";
    EXPECT_EQ(r.out, page)
        << "docs/results.md is stale: regenerate it with bash docs/results.sh build/tessim > "
           "docs/results.md, and say in the commit why its figures moved";
    // Every headline run is within its analytical bound's reach: time / bound ≥ 1.
    std::size_t rows = 0;
    for (std::size_t at = r.out.find("| `--target"); at != std::string::npos;
         at = r.out.find("| `--target", at + 1)) {
        ++rows;
        std::vector<std::string> cells;
        std::size_t from = at + 1;
        for (std::size_t bar = r.out.find('|', from); bar != std::string::npos && r.out[from] != '\n';
             from = bar + 1, bar = r.out.find('|', from))
            cells.push_back(r.out.substr(from, bar - from));
        ASSERT_GE(cells.size(), 5u) << r.out.substr(at, 200);
        EXPECT_GE(std::stod(cells[4]), 1.0) << "faster than its bound: " << cells[0];
    }
    EXPECT_EQ(rows, 7u);
}

}  // namespace
}  // namespace tessim
