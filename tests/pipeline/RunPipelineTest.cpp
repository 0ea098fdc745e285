// End-to-end runs of the tessim executable: the report contract of DESIGN.md, its invariants,
// determinism, schedule round trips, functional checks and error handling.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using test::runTessim;
using Json = nlohmann::json;

std::string tempPath(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("tessim_pipeline_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

Json runJson(const std::string& args) {
    auto r = runTessim("run " + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return Json::parse(r.out);
}

// A quantity of the configuration ("4.6 pJ", "10 mW") in joules or watts.
double quantity(const Json& q) {
    const std::string text = q.get<std::string>();
    std::size_t end = 0;
    const double value = std::stod(text, &end);
    const std::string unit = text.substr(text.find_first_not_of(' ', end));
    static const std::map<std::string, double> scale = {{"fJ", 1e-15}, {"pJ", 1e-12}, {"nJ", 1e-9},
                                                        {"uJ", 1e-6},  {"J", 1.0},    {"uW", 1e-6},
                                                        {"mW", 1e-3},  {"W", 1.0}};
    return value * scale.at(unit);
}

// The energy of a run on the minimal target, recomputed apart from the energy ledger: each
// component's reported event counts × the per-event energies of its configuration (as resolved
// in the report), plus its static power × seconds.
double recomputedEnergy(const Json& r) {
    const Json& target = r["target"]["config"];
    const double seconds = r["seconds"].get<double>();
    double joules = 0.0;
    for (auto& [component, reported] : r["energy_j"]["by_component"].items()) {
        const std::size_t dot = component.find('.');
        const Json& energy =
            dot == std::string::npos
                ? target[component]["energy"]
                : target[component.substr(0, dot)]["units"][component.substr(dot + 1)]["energy"];
        for (auto& [event, count] : reported["events"].items()) {
            // Memories charge bytes at read_energy_per_byte / write_energy_per_byte.
            const std::string key = event == "read_byte"    ? "read_energy_per_byte"
                                    : event == "write_byte" ? "write_energy_per_byte"
                                                            : event;
            EXPECT_TRUE(energy.contains(key)) << component << " " << event;
            if (energy.contains(key))
                joules += count.get<double>() * quantity(energy[key]);
        }
        if (energy.contains("static_power"))
            joules += quantity(energy["static_power"]) * seconds;
    }
    return joules;
}

void expectInvariants(const Json& r) {
    ASSERT_EQ(r["schema"], "tessim.report/1");
    for (const char* key : {"target", "workload", "plan", "cycles", "seconds", "engines", "stall_fraction",
                            "traffic_bytes", "energy_j", "power_w", "bounds", "stats"})
        EXPECT_TRUE(r.contains(key)) << key;
    // Every cycle of every engine is attributed once: the counts span the kernel.
    for (auto& [name, engine] : r["engines"].items()) {
        std::uint64_t cycles = 0;
        for (auto& [reason, count] : engine["cycles"].items())
            cycles += count.get<std::uint64_t>();
        EXPECT_EQ(cycles, r["cycles"].get<std::uint64_t>()) << name;
    }
    double seconds = r["seconds"].get<double>();
    EXPECT_GT(seconds, 0.0);
    EXPECT_GE(seconds, r["bounds"]["compute_s"].get<double>());
    for (auto& [level, bound] : r["bounds"]["bandwidth_s"].items())
        EXPECT_GE(seconds, bound.get<double>()) << level;
    for (auto& [level, bytes] : r["bounds"]["compulsory_bytes"].items()) {
        auto traffic = r["traffic_bytes"][level];
        EXPECT_GE(traffic["read"].get<std::uint64_t>() + traffic["write"].get<std::uint64_t>(),
                  bytes.get<std::uint64_t>())
            << level;
    }
    const double energy = recomputedEnergy(r);
    EXPECT_GT(energy, 0.0);
    EXPECT_NEAR(r["energy_j"]["total"].get<double>(), energy, 1e-9 * energy);
    EXPECT_NEAR(r["power_w"].get<double>() * seconds, energy, 1e-9 * energy);
}

TEST(RunPipeline, AxpyReportHoldsTheContractInvariants) {
    expectInvariants(runJson("--target minimal --workload axpy --set workload.n=100000"));
}

TEST(RunPipeline, DotReportHoldsTheContractInvariants) {
    expectInvariants(runJson("--target minimal --workload dot --set workload.n=30000 --set plan.memory=spm"));
}

TEST(RunPipeline, ScratchpadIsFasterThanDdrForTheSameKernel) {
    Json ddr = runJson("--target minimal --workload axpy --set workload.n=8192");
    Json spm = runJson("--target minimal --workload axpy --set workload.n=8192 --set plan.memory=spm");
    EXPECT_LT(spm["seconds"].get<double>(), ddr["seconds"].get<double>());
    EXPECT_EQ(spm["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(spm["traffic_bytes"]["sram"]["read"].get<std::uint64_t>(), 2u * 8192 * 4);
}

TEST(RunPipeline, TwoRunsGiveByteIdenticalReports) {
    auto a = runTessim("run --target minimal --workload dot --set workload.n=30001");
    auto b = runTessim("run --target minimal --workload dot --set workload.n=30001");
    ASSERT_EQ(a.exitCode, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
    auto c = runTessim("run --target minimal --workload dot --set workload.n=30001 --format md");
    auto d = runTessim("run --target minimal --workload dot --set workload.n=30001 --format md");
    EXPECT_EQ(c.out, d.out);
}

TEST(RunPipeline, EmittedScheduleReplaysToTheSameReport) {
    std::string sched = tempPath("axpy.jsonl");
    auto e = runTessim("emit --target minimal --workload axpy --set workload.n=5003 > " + sched);
    ASSERT_EQ(e.exitCode, 0) << e.err;
    Json generated = runJson("--target minimal --workload axpy --set workload.n=5003 --functional");
    Json replayed =
        runJson("--target minimal --workload axpy --set workload.n=5003 --functional --schedule " + sched);
    for (const char* key :
         {"cycles", "seconds", "engines", "traffic_bytes", "energy_j", "bounds", "functional"})
        EXPECT_EQ(generated[key], replayed[key]) << key;
}

TEST(RunPipeline, NpuLayerListReplaysWithItsLayerMarks) {
    std::string workload = tempPath("small-layers.yaml");
    std::ofstream(workload)
        << "name: small2\nkernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: a, h: 13, w: 11, channels: 5, filters: 7, k: 3, stride: 1, pad: 1}\n"
           "  - {name: b, h: 9, w: 7, channels: 8, filters: 9, k: 1, stride: 2, pad: 0}\n";
    std::string sched = tempPath("small-layers.jsonl");
    std::string args = "--target npu --workload " + workload + " --plan double-buffer";
    auto e = runTessim("emit " + args + " > " + sched);
    ASSERT_EQ(e.exitCode, 0) << e.err;
    Json generated = runJson(args + " --functional");
    Json replayed = runJson(args + " --functional --schedule " + sched);
    ASSERT_TRUE(generated.contains("layers"));
    for (const char* key : {"cycles", "engines", "traffic_bytes", "energy_j", "layers", "functional"})
        EXPECT_EQ(generated[key], replayed[key]) << key;
    EXPECT_EQ(replayed["functional"]["mismatches"].get<int>(), 0);
}

struct FunctionalCase {
    const char* kernel;
    const char* dtype;
    int n;
};

void PrintTo(const FunctionalCase& c, std::ostream* os) {
    *os << c.kernel << '_' << c.dtype << '_' << c.n;
}

class FunctionalRuns : public ::testing::TestWithParam<FunctionalCase> {};

TEST_P(FunctionalRuns, ResultsEqualThePlainReference) {
    const auto& c = GetParam();
    Json r =
        runJson(std::string("--target minimal --workload ") + c.kernel +
                " --functional --set workload.n=" + std::to_string(c.n) + " --set workload.dtype=" + c.dtype);
    ASSERT_TRUE(r.contains("functional"));
    EXPECT_EQ(r["functional"]["mismatches"].get<int>(), 0) << r["functional"].dump();
    EXPECT_EQ(r["functional"]["elements"].get<int>(), std::string(c.kernel) == "axpy" ? c.n : 1);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, FunctionalRuns,
    ::testing::Values(FunctionalCase{"axpy", "f32", 1001}, FunctionalCase{"axpy", "i32", 777},
                      FunctionalCase{"axpy", "f64", 64}, FunctionalCase{"dot", "f32", 12345},
                      FunctionalCase{"dot", "i8", 999}, FunctionalCase{"dot", "f64", 5}));

TEST(RunPipeline, TraceFileIsChromeTraceJson) {
    std::string trace = tempPath("trace.json");
    runJson("--target minimal --workload axpy --set workload.n=20000 --trace " + trace);
    std::ifstream in(trace);
    Json t = Json::parse(in);
    ASSERT_TRUE(t.contains("traceEvents"));
    EXPECT_GT(t["traceEvents"].size(), 1u);
}

TEST(RunPipeline, MarkdownAndCsvFormats) {
    auto md = runTessim("run --target minimal --workload axpy --set workload.n=1000 --format md");
    EXPECT_EQ(md.exitCode, 0);
    EXPECT_NE(md.out.find("| cycles |"), std::string::npos);
    auto csv = runTessim("run --target minimal --workload axpy --set workload.n=1000 --format csv");
    EXPECT_EQ(csv.exitCode, 0);
    EXPECT_EQ(csv.out.rfind("key,value\n", 0), 0u);
    EXPECT_NE(csv.out.find("\ncycles,"), std::string::npos);
}

// A cached target's dirty lines reach the DDR after the kernel: the Markdown report says how many
// bytes and how long, so its DDR traffic and time add up (a k1 memcpy writes all of its 256 KiB
// back after the kernel's 86.6 µs).
TEST(RunPipeline, MarkdownShowsTheWriteBackAfterTheKernel) {
    const std::string run = "run --target k1 --workload memcpy --set workload.bytes=256KiB";
    auto md = runTessim(run + " --format md");
    ASSERT_EQ(md.exitCode, 0) << md.err;
    const Json json = runJson("--target k1 --workload memcpy --set workload.bytes=256KiB");
    ASSERT_GT(json["dirty_at_end_bytes"].get<double>(), 0);
    EXPECT_NE(md.out.find("| written back after the kernel | 256.0 KiB in "), std::string::npos) << md.out;
    auto none = runTessim("run --target minimal --workload axpy --set workload.n=1000 --format md");
    EXPECT_EQ(none.out.find("written back after the kernel"), std::string::npos);
    EXPECT_EQ(none.out.find("kernel window alone"), std::string::npos);
    // Energy and power: the whole run's (with the write-back) and the kernel window's apart.
    EXPECT_NE(md.out.find("| kernel window alone | "), std::string::npos) << md.out;
    const Json& k = json["kernel_window"];
    EXPECT_LT(k["energy_j"].get<double>(), json["energy_j"]["total"].get<double>());
    const double whole = json["seconds"].get<double>() + json["writeback_after_end_s"].get<double>();
    EXPECT_NEAR(json["power_w"].get<double>(), json["energy_j"]["total"].get<double>() / whole,
                1e-9 * json["power_w"].get<double>());
    EXPECT_NEAR(k["power_w"].get<double>(), k["energy_j"].get<double>() / json["seconds"].get<double>(),
                1e-9 * k["power_w"].get<double>());
}

// A roofline per level the bounds name: k1's single-thread fc is DDR-bound at its intensity (1.95
// FLOP per compulsory DDR byte against 10.67 GB/s: 20.8 of the core's 25.6 GFLOP/s), compute-bound
// at L1 and L2; memcpy does no work and has none.
TEST(RunPipeline, RooflinePerLevelNamesTheLimitAndStaysBelowIt) {
    const Json fc = runJson("--target k1 --workload fc --plan single-thread");
    const Json& rf = fc["roofline"];
    for (const char* level : {"l1", "l2", "ddr"})
        ASSERT_TRUE(rf["levels"].contains(level)) << level;
    EXPECT_EQ(rf["levels"]["ddr"]["limit"], "bandwidth");
    EXPECT_EQ(rf["levels"]["l1"]["limit"], "compute");
    const Json& ddr = rf["levels"]["ddr"];
    EXPECT_NEAR(ddr["attainable_work_per_s"].get<double>(),
                ddr["bandwidth_bytes_per_s"].get<double>() * ddr["intensity_work_per_byte"].get<double>(),
                1.0);
    EXPECT_NEAR(ddr["intensity_work_per_byte"].get<double>(),
                rf["work"].get<double>() / fc["bounds"]["compulsory_bytes"]["ddr"].get<double>(), 1e-9);
    EXPECT_LE(ddr["fraction_of_attainable"].get<double>(), 1.0);
    auto md = runTessim("run --target k1 --workload fc --plan single-thread --format md");
    EXPECT_NE(md.out.find("## Roofline (peak 25.60 Gwork/s"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("| ddr | 1.954 | "), std::string::npos) << md.out;
    EXPECT_FALSE(runJson("--target k1 --workload memcpy --set workload.bytes=64KiB").contains("roofline"));
}

TEST(RunPipelineErrors, BadUnitOnTheCommandLineExitsTwoWithTheKey) {
    auto r = runTessim("run --target minimal --workload axpy --set target.spm.size=12ns");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("spm.size"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("<command line>"), std::string::npos) << r.err;
}

TEST(RunPipelineErrors, UnknownKeyInATargetFileNamesFileLineColumnAndSuggestion) {
    std::string path = tempPath("bad-target.yaml");
    std::ifstream src(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/minimal.yaml");
    std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
    text.replace(text.find("  latency: 2 ns"), 14, "  latecny: 2 ns");
    // A copy elsewhere still finds its energy table (a library name).
    std::ofstream(path) << text;
    auto r = runTessim("run --target " + path + " --workload axpy");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("latecny"), std::string::npos) << r.err;
    // Either the unknown key or the missing one is reported, with the other named as the fix.
    EXPECT_NE(r.err.find("latency"), std::string::npos) << r.err;
}

// A shipped target copied anywhere runs as it is: its energy table is a library name.
TEST(RunPipeline, ACopiedTargetFindsItsEnergyTableByName) {
    const std::string path = tempPath("npu-copy.yaml");
    std::ifstream src(std::string(TESSIM_SOURCE_DIR) + "/configs/targets/npu.yaml");
    std::string text((std::istreambuf_iterator<char>(src)), std::istreambuf_iterator<char>());
    std::ofstream(path) << text;
    const auto copy = runTessim("run --target " + path + " --workload resnet18-layer1 --format json");
    ASSERT_EQ(copy.exitCode, 0) << copy.err;
    const auto shipped = runTessim("run --target npu --workload resnet18-layer1 --format json");
    EXPECT_EQ(Json::parse(copy.out)["seconds"], Json::parse(shipped.out)["seconds"]);
    EXPECT_EQ(Json::parse(copy.out)["energy_j"], Json::parse(shipped.out)["energy_j"]);
    text.replace(text.find("energy_table: npu-28nm"), 22, "energy_table: npu-28mm");
    std::ofstream(path) << text;
    const auto r = runTessim("run --target " + path + " --workload resnet18-layer1");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(path + ":4:15: error: energy_table: energy table 'npu-28mm' does not exist"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("library tables: ftm2000-45nm, horowitz-45nm, horowitz-45nm-caches"),
              std::string::npos)
        << r.err;
}

TEST(RunPipelineErrors, UnknownNamesAndMissingFilesExitTwo) {
    EXPECT_EQ(runTessim("run --target nosuchtarget --workload axpy").exitCode, 2);
    EXPECT_EQ(runTessim("run --target minimal --workload /nonexistent/w.yaml").exitCode, 2);
    EXPECT_EQ(runTessim("run --target minimal --workload axpy --set bogus.key=1").exitCode, 2);
    EXPECT_EQ(runTessim("run --target minimal --workload axpy --set workload.n=-5").exitCode, 2);
    EXPECT_EQ(runTessim("run --target minimal --workload axpy --set workload.n=1000000000").exitCode, 2);
}

TEST(RunPipelineErrors, MalformedScheduleNamesTheLine) {
    std::string path = tempPath("bad.jsonl");
    std::ofstream(path)
        << "{\"schema\":\"tessim.schedule/1\"}\n"
           "{\"engine\":\"core\",\"op\":\"fma\",\"vd\":1,\"vs0\":2,\"vs1\":3,\"vs2\":1,\"vl\":8}\n"
        << "{\"engine\":\"core\",\"op\":\"vload\",\"vd\":1,\"vl\":8,\"mem\":\"nowhere\",\"addr\":0}\n";
    auto r = runTessim("run --target minimal --schedule " + path);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(path + ":3:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nowhere"), std::string::npos) << r.err;
}

TEST(RunPipelineErrors, OutOfRangeScheduleAccessIsAnErrorNotACrash) {
    std::string path = tempPath("oob.jsonl");
    std::ofstream(path)
        << "{\"schema\":\"tessim.schedule/1\",\"target\":\"minimal\"}\n"
        << "{\"engine\":\"core\",\"op\":\"vload\",\"vd\":1,\"vl\":8,\"mem\":\"spm\",\"addr\":4294967296}\n";
    auto r = runTessim("run --target minimal --schedule " + path);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("vload"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST(RunPipelineErrors, OutOfRangeScheduleAccessNamesItsLine) {
    std::string path = tempPath("oob-line.jsonl");
    std::ofstream(path)
        << "{\"schema\":\"tessim.schedule/1\",\"target\":\"minimal\"}\n"
        << "{\"engine\":\"core\",\"op\":\"vload\",\"vd\":1,\"vl\":8,\"mem\":\"spm\",\"addr\":0}\n"
        << "{\"engine\":\"core\",\"op\":\"nop\"}\n"
        << "{\"engine\":\"core\",\"op\":\"vstore\",\"vs0\":1,\"vl\":8,\"mem\":\"spm\",\"addr\":262144}\n"
        << "{\"engine\":\"core\",\"op\":\"nop\"}\n";
    auto r = runTessim("run --target minimal --schedule " + path);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(path + ":4: error:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("vstore"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace tessim
