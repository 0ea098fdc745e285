// The k1-ttd reproduction on a small paper file: the 600× reduction is computed and matches, the
// register-blocking claims come from simulated load/store counts, thresholds from simulated
// scaling, speed-ups from a dense and a TT run of the same layer; bad input names file and key.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "analysis/reproduce/TtReproduction.h"
#include "common/DocsBuild.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

namespace fs = std::filesystem;

const char* kPaper = R"(name: toy-ttd
reproduction: tt-layers
target: k1
example: tt-lenet300
example_shape: {in: [2, 2, 2, 7, 14], out: [5, 5, 3, 2, 2]}
register_budget: 8
thread_study: {workload: tt-lenet300, batches: [1, 4], threads: [1, 2]}
thread_flops: [2.0e6, 4.0e6, 8.0e6]
dense_threads: 2
layers:
  - {id: small, name: "small", in: 400, out: 120, tt: {in: [5, 8, 10], out: [6, 5, 4], ranks: [8, 8]}}
claims:
  - {id: dse, quantity: dse_reduction, published: 600, unit: "x", tolerance: 0.0}
  - {id: rb, quantity: rb_optimum, published: 1.0, unit: "ratio", tolerance: 0.0}
  - {id: ls, quantity: rb_ls_reduction, published: [30, 40], unit: "%"}
  - {id: vec, quantity: vectorisation_speedup, published: [1.8, 2.5], unit: "x"}
  - {id: t2, quantity: thread_threshold, threads: 2, published: 2.0e6, unit: FLOP, tolerance: 0.5}
  - {id: speed, quantity: tt_speedup, layer: small, published: [2, 4], unit: "x"}
  - {id: memory, quantity: tt_memory, layer: small, published: [1.7, 3.2], unit: "x"}
)";

TEST(TtReproduction, ClaimsComeFromSimulatedRuns) {
    const fs::path dir = fs::temp_directory_path() / "tessim-tt-repro";
    fs::create_directories(dir);
    const std::string path = (dir / "toy-ttd.yaml").string();
    std::ofstream(path) << kPaper;
    unsigned runs = 0;
    const ReproRunner runner = [&runs](const ReproRun& run) {
        ++runs;
        return runChildSimulation(test::docsTessim(), run);  // release build: DocsBuild.h
    };
    const ReproResult r = reproduceTtPaper(path, runner, 2);
    std::map<std::string, ReproClaim> c;
    for (const auto& claim : r.claims)
        c[claim.id] = claim;
    ASSERT_EQ(c.size(), 7u);
    EXPECT_EQ(c["dse"].simulated, 600.0);
    EXPECT_EQ(c["dse"].verdict, "match");
    // Within 8 registers {4,3,1,1} does not fit: no ratio, and the note says why.
    EXPECT_TRUE(std::isnan(c["rb"].simulated));
    EXPECT_EQ(c["rb"].verdict, "mismatch");
    EXPECT_NE(c["rb"].note.find("over this budget"), std::string::npos) << c["rb"].note;
    EXPECT_GT(c["ls"].simulated, 0.0);  // blocking saves loads and stores
    EXPECT_GT(c["vec"].simulated, 1.0);
    // The TT layer's weights: 400·120 dense against 5·6·8 + 8·8·5·8 + 8·10·4 core elements.
    EXPECT_NEAR(c["memory"].simulated, 48000.0 / (240 + 2560 + 320), 1e-9);
    EXPECT_GT(c["speed"].simulated, 0.0);
    for (const auto& [id, claim] : c)
        EXPECT_TRUE(claim.verdict == "match" || claim.verdict == "mismatch" || claim.verdict == "trend-match")
            << id << " " << claim.verdict;
    EXPECT_GT(runs, 10u);
    fs::remove_all(dir);
}

TEST(TtReproduction, UnknownLayerIsAConfigError) {
    const fs::path dir = fs::temp_directory_path() / "tessim-tt-repro-bad";
    fs::create_directories(dir);
    const std::string path = (dir / "bad.yaml").string();
    std::string text = kPaper;
    text.replace(text.find("layer: small, published: [1.7"), 12, "layer: nope");
    std::ofstream(path) << text;
    try {
        reproduceTtPaper(
            path, [](const ReproRun&) { return nlohmann::json(); }, 1);
        FAIL() << "expected a ConfigError";
    } catch (const config::ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.yaml:19"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("no layer 'nope'"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace tessim
