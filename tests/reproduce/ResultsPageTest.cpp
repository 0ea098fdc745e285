// docs/results.md is what docs/results.sh gives with this build: a change that moves a headline
// run or a reproduction must regenerate the page, so its figures cannot drift from the simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
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

// The cells of a Markdown table row ("| a | b |" → {"a", "b"}), trimmed.
std::vector<std::string> rowCells(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string cell;
    std::getline(in, cell, '|');  // before the first bar
    while (std::getline(in, cell, '|')) {
        const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
    }
    if (!cells.empty() && cells.back().empty())
        cells.pop_back();
    return cells;
}

// docs/scalesim.md's table of seed 001's claims is written by hand: each simulated value and
// verdict must be docs/results.md's, to the digits the page shows.
TEST(ResultsPage, TheHandWrittenNpuTilingTableIsTheReproductions) {
    const std::string source = TESSIM_SOURCE_DIR;
    std::map<std::string, std::vector<std::string>> results;  // claim id → its row's cells
    std::stringstream page(test::readWholeFile(source + "/docs/results.md"));
    for (std::string line; std::getline(page, line);) {
        const auto cells = rowCells(line);
        if (cells.size() == 7 && line.rfind("| ", 0) == 0)
            results[cells[0].substr(0, cells[0].find(' '))] = cells;
    }
    const std::map<std::string, std::string> quantity{
        {"DDR traffic", "ddr"}, {"MAC stall", "stall"}, {"layer time", "time"}, {"power", "power"}};
    std::stringstream doc(test::readWholeFile(source + "/docs/scalesim.md"));
    std::size_t rows = 0;
    bool inTable = false;
    for (std::string line; std::getline(doc, line);) {
        if (line == "| claim | published | simulated | verdict |") {
            inTable = true;
            continue;
        }
        if (!inTable || line.rfind("|---", 0) == 0)
            continue;
        if (line.rfind("| ", 0) != 0)
            break;
        const auto cells = rowCells(line);
        ASSERT_EQ(cells.size(), 4u) << line;
        const std::string strategy = cells[0].substr(0, cells[0].find(' '));
        const std::string id = strategy + "-" + quantity.at(cells[0].substr(strategy.size() + 1));
        ASSERT_TRUE(results.count(id)) << id << " is not in docs/results.md";
        const std::string& simulated = results[id][2];
        // The page's value rounded to the digits the table shows.
        const std::string shown = cells[2].substr(0, cells[2].find(' '));
        const auto dot = shown.find('.');
        const double digits = dot == std::string::npos ? 0.0 : static_cast<double>(shown.size() - dot - 1);
        EXPECT_LE(std::fabs(std::stod(shown) - std::stod(simulated)), 0.5 * std::pow(10.0, -digits) + 1e-9)
            << id << ": docs/scalesim.md says " << cells[2] << ", docs/results.md " << simulated;
        EXPECT_EQ(cells[2].substr(cells[2].find(' ')), simulated.substr(simulated.find(' '))) << id;
        EXPECT_EQ(cells[3].substr(0, cells[3].find(' ')), results[id][6]) << id;
        ++rows;
    }
    EXPECT_EQ(rows, 12u);
}

}  // namespace
}  // namespace tessim
