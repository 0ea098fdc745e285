// The shipped NPU sweep (configs/sweeps/npu-sram-tiling.yaml) as users run it: its plan axis gives
// the runs `tessim run --plan P` gives, `--set plan.strategy=P` gives them too, its 1 MiB points
// are the conv1080p table of docs/targets/npu.md, and energy has a minimum then rises with the SRAM size.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/DocsBuild.h"
#include "tests/sweep/SweepTestSupport.h"

namespace tessim::sweep {
namespace {

using namespace tessim::sweep::testing;
using Json = nlohmann::json;

// The docs' figures come from the build the docs' commands run (common/DocsBuild.h): 21 sweep
// points and six conv1080p runs, a minute sanitized.
const std::string kTessim = test::docsTessim();
const char* const kPlans[] = {"naive", "static-single", "double-buffer"};

// results.jsonl rows by "<size>/<plan>".
std::map<std::string, Json> sweepRows(const std::string& dir) {
    std::map<std::string, Json> rows;
    std::istringstream in(readText(dir + "/results.jsonl"));
    for (std::string line; std::getline(in, line);) {
        Json row = Json::parse(line);
        rows[row["params"]["target.sram.size"].get<std::string>() + "/" +
             row["params"]["plan"].get<std::string>()] = row;
    }
    return rows;
}

// The conv1080p table row (docs/targets/npu.md) of `plan`:
// "| plan | tile | R + W MB (bus) | requested | stall | T ms | P W | … |".
std::vector<std::string> readmeRow(const std::string& plan) {
    std::istringstream in(readText(sourceDir() + "/docs/targets/npu.md"));
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("| " + plan + " | ", 0) != 0 || line.find(" MB | ") == std::string::npos)
            continue;
        std::vector<std::string> cells;
        std::istringstream row(line.substr(1));
        for (std::string cell; std::getline(row, cell, '|');)
            cells.push_back(std::regex_replace(cell, std::regex("^ +| +$"), ""));
        return cells;
    }
    return {};
}

TEST(NpuSramSweep, PlanAxisRunsAsPlanReproducesTheDocsTableAndEnergyRisesAgain) {
    ScratchDir scratch("npu-sweep");
    const std::string& dir = scratch.path;
    CommandResult sweep = runShell(kTessim + " sweep " + sourceDir() +
                                       "/configs/sweeps/npu-sram-tiling.yaml --jobs 2 --out " + dir + "/out",
                                   dir);
    ASSERT_EQ(sweep.status, 0) << sweep.out << sweep.err;
    auto rows = sweepRows(dir + "/out");
    ASSERT_EQ(rows.size(), 21u);
    for (const char* plan : kPlans) {
        SCOPED_TRACE(plan);
        const Json& row = rows.at(std::string("1 MiB/") + plan)["metrics"];
        CommandResult byName =
            runShell(kTessim + " run --target npu --workload conv1080p --plan " + plan, dir);
        CommandResult byKey =
            runShell(kTessim + " run --target npu --workload conv1080p --set plan.strategy=" + plan, dir);
        ASSERT_EQ(byName.status, 0) << byName.err;
        EXPECT_EQ(byKey.out, byName.out);  // the same run, report byte for byte
        const Json report = Json::parse(byName.out);
        EXPECT_EQ(row["seconds"], report["seconds"]);
        EXPECT_EQ(row["energy_j.total"], report["energy_j"]["total"]);
        EXPECT_EQ(row["area_mm2.total"], report["area_mm2"]["total"]);
        EXPECT_EQ(row["traffic_bytes.ddr.read"], report["traffic_bytes"]["ddr"]["read"]);
        EXPECT_EQ(row["traffic_bytes.ddr.write"], report["traffic_bytes"]["ddr"]["write"]);
        // The docs table, in the units and digits it prints.
        const auto cells = readmeRow(plan);
        ASSERT_GE(cells.size(), 7u) << "no conv1080p row for " << plan << " in docs/targets/npu.md";
        const double mb = 1e6;
        EXPECT_EQ(cells[2],
                  fmt::format("{:.2f} + {:.2f} MB", row["traffic_bytes.ddr.read"].get<double>() / mb,
                              row["traffic_bytes.ddr.write"].get<double>() / mb));
        EXPECT_EQ(cells[5], fmt::format("{:.2f} ms", row["seconds"].get<double>() * 1e3));
        EXPECT_EQ(cells[6], fmt::format("{:.3g} W",
                                        row["energy_j.total"].get<double>() / row["seconds"].get<double>()));
    }
    // SRAM energy per access and leakage grow with the size: double buffering's energy falls while
    // DDR traffic does, has its minimum at neither end of the axis, then rises at every step.
    const char* const sizes[] = {"256 KiB", "512 KiB", "1 MiB", "2 MiB", "4 MiB", "8 MiB", "16 MiB"};
    auto energy = [&](const char* size) {
        return rows.at(std::string(size) + "/double-buffer")["metrics"]["energy_j.total"].get<double>();
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < std::size(sizes); ++i)
        if (energy(sizes[i]) < energy(sizes[best]))
            best = i;
    EXPECT_GT(best, 0u) << "energy is lowest at the smallest SRAM";
    EXPECT_LT(best, std::size(sizes) - 2) << "energy does not rise again at large SRAM";
    for (std::size_t i = best + 1; i < std::size(sizes); ++i)
        EXPECT_LT(energy(sizes[i - 1]), energy(sizes[i])) << sizes[i];
}

}  // namespace
}  // namespace tessim::sweep
