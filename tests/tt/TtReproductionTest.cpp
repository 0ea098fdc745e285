// The k1-ttd reproduction on a small paper file: the 600× reduction is computed and matches, the
// register-blocking claims come from simulated load/store counts, thresholds from simulated
// scaling, speed-ups from a dense and a TT run of the same layer; bad input names file and key.
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#include "analysis/dse/TtDesignSpace.h"
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
networks:
  - {id: lenet5, workload: lenet5, fc_layers: [fc1, fc2, fc3], tt: {fc1: small}}
claims:
  - {id: dse, quantity: dse_reduction, published: 600, unit: "x", tolerance: 0.0}
  - {id: rb, quantity: rb_optimum, published: 1.0, unit: "ratio", tolerance: 0.0}
  - {id: ls, quantity: rb_ls_reduction, published: [30, 40], unit: "%"}
  - {id: vec, quantity: vectorisation_speedup, published: [1.8, 2.5], unit: "x"}
  - {id: t2, quantity: thread_threshold, threads: 2, published: 2.0e6, unit: FLOP, tolerance: 0.5}
  - {id: speed, quantity: tt_speedup, layer: small, published: [2, 4], unit: "x"}
  - {id: memory, quantity: tt_memory, layer: small, published: [1.7, 3.2], unit: "x"}
  - {id: share, quantity: fc_share, network: lenet5, published: [30, 60], unit: "%"}
  - {id: e2e, quantity: end_to_end_speedup, network: lenet5, published: [2.1, 3.7], unit: "x"}
  - {id: model, quantity: model_memory, network: lenet5, published: [1.7, 3.2], unit: "x"}
  - {id: over, quantity: tt_over_compiled, baseline: plain, published: 3, unit: "x"}
  - {id: space, quantity: dse_space, step: pruned, published: [100, 999], unit: solutions}
compiled_baselines:
  program: fc_dense
  layers: [small]
  compilers:
    - {id: plain, what: "gcc at -O2", command: [riscv64-linux-gnu-gcc, -march=rv64gc, -O2, -static, -pthread]}
)";

TEST(TtReproduction, ClaimsComeFromSimulatedRuns) {
    const fs::path dir = fs::temp_directory_path() / "tessim-tt-repro";
    fs::create_directories(dir);
    const std::string path = (dir / "toy-ttd.yaml").string();
    std::ofstream(path) << kPaper;
    std::atomic<unsigned> runs{0};
    nlohmann::json network;  // the LeNet-5 run, to recompute the FC share from its layers
    std::map<std::string, nlohmann::json> layerRuns;  // the small layer's TT and compiled runs
    std::mutex lock;
    const ReproRunner runner = [&](const ReproRun& run) {
        ++runs;
        nlohmann::json report = runChildSimulation(test::docsTessim(), run);  // release build: DocsBuild.h
        std::lock_guard<std::mutex> g(lock);
        if (run.name == "net-lenet5")
            network = report;
        if (run.name == "tt-small" || run.name == "compiled-plain-small")
            layerRuns[run.name] = report;
        return report;
    };
    const ReproResult r = reproduceTtPaper(path, runner, 2);
    std::map<std::string, ReproClaim> c;
    for (const auto& claim : r.claims)
        c[claim.id] = claim;
    ASSERT_EQ(c.size(), 12u);
    EXPECT_EQ(c["dse"].simulated, 600.0);
    EXPECT_EQ(c["dse"].verdict, "match");
    // The example layer's space as `tessim dse` counts it (784 → 300, 2–5 cores, ranks 4–16).
    TtSpaceOptions space;
    space.in = 784;
    space.out = 300;
    EXPECT_EQ(c["space"].simulated, exploreTtSpace(space).steps.back().count);
    EXPECT_NE(c["space"].note.find("factorisations x ranks 817216"), std::string::npos) << c["space"].note;
    // Within 8 registers {4,3,1,1} does not fit: no ratio, and the note says why.
    EXPECT_TRUE(std::isnan(c["rb"].simulated));
    EXPECT_EQ(c["rb"].verdict, "mismatch");
    EXPECT_NE(c["rb"].note.find("over this budget"), std::string::npos) << c["rb"].note;
    EXPECT_GT(c["ls"].simulated, 0.0);  // blocking saves loads and stores
    EXPECT_GT(c["vec"].simulated, 1.0);
    // The TT layer's weights: 400·120 dense against 5·6·8 + 8·8·5·8 + 8·10·4 core elements.
    EXPECT_NEAR(c["memory"].simulated, 48000.0 / (240 + 2560 + 320), 1e-9);
    EXPECT_GT(c["speed"].simulated, 0.0);
    // LeNet-5's FC share from its own layers; the TT layer's speed-up applied to FC1 alone gives at
    // most what removing FC1 would (Amdahl), and more than nothing when TT is faster.
    ASSERT_FALSE(network.is_null());
    EXPECT_EQ(network["plan"]["config"]["threads"], 2);  // dense_threads
    double fc = 0.0, fc1 = 0.0;
    for (const auto& l : network["layers"]) {
        const std::string name = l["name"];
        if (name == "fc1" || name == "fc2" || name == "fc3")
            fc += l["seconds"].get<double>();
        if (name == "fc1")
            fc1 = l["seconds"].get<double>();
    }
    const double total = network["seconds"].get<double>();
    EXPECT_NEAR(c["share"].simulated, 100.0 * fc / total, 1e-9);
    EXPECT_GT(c["share"].simulated, 0.0);
    EXPECT_LT(c["share"].simulated, 100.0);
    const double gain = 1.0 - 1.0 / c["speed"].simulated;  // of FC1's time
    EXPECT_NEAR(c["e2e"].simulated, total / (total - fc1 * gain), 1e-9);
    EXPECT_LT(c["e2e"].simulated, total / (total - fc1));
    // Weights: 6·25 + 16·6·25 + 400·120 + 120·84 + 84·10 dense; FC1 replaced by the 3,120 core elements.
    const double dense = 150 + 2400 + 48000 + 10080 + 840;
    EXPECT_NEAR(c["model"].simulated, dense / (dense - 48000 + 3120), 1e-9);
    // The compiled baseline: fc_dense.c built by gcc, run as a program on the dense baseline's 2
    // threads; its own count of the layer's cycles over the TT run's time.
    const nlohmann::json& compiled = layerRuns["compiled-plain-small"];
    ASSERT_TRUE(compiled.contains("program_stderr")) << compiled.dump().substr(0, 300);
    EXPECT_EQ(compiled["program_stdout"].get<std::string>().rfind("fc 400x120x1 on 2 threads: checksum", 0),
              0u)
        << compiled["program_stdout"];
    const std::string err = compiled["program_stderr"];
    const double layerCycles = std::stod(err.substr(err.find("fc_cycles ") + 10));
    EXPECT_GT(layerCycles, 0.0);
    EXPECT_LT(layerCycles, compiled["cycles"].get<double>());  // the set-up is not timed
    const double layerSeconds =
        layerCycles * compiled["seconds"].get<double>() / compiled["cycles"].get<double>();
    EXPECT_NEAR(c["over"].simulated, layerSeconds / layerRuns["tt-small"]["seconds"].get<double>(), 1e-12);
    EXPECT_NE(
        c["over"].note.find("`riscv64-linux-gnu-gcc -march=rv64gc -O2 -static -pthread -o fc_dense-plain "
                            "workloads/programs/fc_dense.c`"),
        std::string::npos)
        << c["over"].note;
    EXPECT_EQ(
        r.commands.at("compiled-plain-small"),
        "tessim run --target k1 --program fc_dense-plain --report compiled-plain-small.json -- 400 120 1 2");
    for (const auto& [id, claim] : c)
        EXPECT_TRUE(claim.verdict == "match" || claim.verdict == "mismatch" || claim.verdict == "trend-match")
            << id << " " << claim.verdict;
    EXPECT_GT(runs, 10u);
    fs::remove_all(dir);
}

// The ConfigError of the toy paper with `from` (its first occurrence) replaced by `to`, reproduced
// with a runner that fails if anything runs; "no error" when it is accepted.
std::string configErrorOf(const std::string& from, const std::string& to) {
    const fs::path dir = fs::temp_directory_path() / "tessim-tt-repro-bad";
    fs::create_directories(dir);
    const std::string path = (dir / "bad.yaml").string();
    std::string text = kPaper;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos)
        return "not in the paper: " + from;
    text.replace(at, from.size(), to);
    std::ofstream(path) << text;
    std::string error = "no error";
    try {
        reproduceTtPaper(
            path, [](const ReproRun&) -> nlohmann::json { throw std::runtime_error("ran"); }, 1);
    } catch (const config::ConfigError& e) {
        error = e.what();
    }
    fs::remove_all(dir);
    return error;
}

TEST(TtReproduction, UnknownLayerIsAConfigError) {
    const std::string e = configErrorOf("layer: small, published: [1.7", "layer: nope, published: [1.7");
    EXPECT_NE(e.find("bad.yaml:21"), std::string::npos) << e;
    EXPECT_NE(e.find("no layer 'nope'"), std::string::npos) << e;
}

// A network's TT layer must be one of its FC layers, of the same size: refused before any run.
TEST(TtReproduction, ANetworkLayerTheTtLayerDoesNotFitIsAConfigError) {
    const std::string e = configErrorOf("tt: {fc1: small}", "tt: {fc2: small}");
    EXPECT_NE(e.find("bad.yaml:13"), std::string::npos) << e;
    EXPECT_NE(e.find("networks[0].tt.fc2"), std::string::npos) << e;
    EXPECT_NE(e.find("fc2's 10080 weights are not the 48000 of small"), std::string::npos) << e;
}

// A tt_over_compiled claim names a compiler of compiled_baselines; the program is a C file of
// workloads/programs/. Both refused before anything is compiled or run.
TEST(TtReproduction, AnUnknownCompiledBaselineIsAConfigError) {
    std::string e = configErrorOf("baseline: plain", "baseline: nope");
    EXPECT_NE(e.find("bad.yaml:25"), std::string::npos) << e;
    EXPECT_NE(e.find("claims[10].baseline"), std::string::npos) << e;
    EXPECT_NE(e.find("no compiler 'nope'"), std::string::npos) << e;
    e = configErrorOf("program: fc_dense", "program: fc_sparse");
    EXPECT_NE(e.find("bad.yaml:28"), std::string::npos) << e;
    EXPECT_NE(e.find("compiled_baselines.program"), std::string::npos) << e;
    EXPECT_NE(e.find("no program 'fc_sparse'"), std::string::npos) << e;
}

// A compiler that cannot run stops the reproduction before any simulation, naming the command
// and where the compilers come from.
TEST(TtReproduction, AMissingCompilerIsAnErrorNamingItsCommand) {
    const fs::path dir = fs::temp_directory_path() / "tessim-tt-repro-compiler";
    fs::create_directories(dir);
    const std::string path = (dir / "bad.yaml").string();
    std::string text = kPaper;
    text.replace(text.find("riscv64-linux-gnu-gcc"), 21, "no-such-compiler-tessim");
    std::ofstream(path) << text;
    try {
        reproduceTtPaper(
            path, [](const ReproRun&) -> nlohmann::json { throw std::runtime_error("ran"); }, 1);
        FAIL() << "expected an error";
    } catch (const config::ConfigError& e) {
        FAIL() << e.what();
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        EXPECT_NE(
            m.find(
                "compiled baseline 'plain': `no-such-compiler-tessim -march=rv64gc -O2 -static -pthread -o "
                "fc_dense-plain workloads/programs/fc_dense.c` failed"),
            std::string::npos)
            << m;
        EXPECT_NE(m.find("bash .ci/setup installs"), std::string::npos) << m;
        EXPECT_EQ(m.find("ran"), std::string::npos) << m;
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace tessim
