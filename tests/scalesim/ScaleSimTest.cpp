// SCALE-Sim compatibility: .cfg and topology CSV inputs, SCALE-Sim's golden runs
// (../shared/data/scalesim: scale_ws.cfg on alexnet_part.csv → 112,283 cycles, 0 stalls;
// golden-calc/: alexnet and Resnet18 in os, ws and is with InterfaceBandwidth CALC), the ideal
// interface's buffer estimate, GEMM topologies, multi-layer results and converter errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "sim/config/ConfigError.h"
#include "workloads/scalesim/ScaleSimConfig.h"
#include "workloads/scalesim/ScaleSimDemand.h"
#include "workloads/scalesim/ScaleSimIdealInterface.h"
#include "workloads/scalesim/ScaleSimTopology.h"

namespace fs = std::filesystem;
using tessim::test::runTessim;

namespace {

const std::string kData = std::string(TESSIM_SOURCE_DIR) + "/../shared/data/scalesim";
const std::string kWs = kData + "/configs/scale_ws.cfg";
const std::string kOs = kData + "/configs/scale.cfg";
const std::string kAlexPart = kData + "/topologies/alexnet_part.csv";

std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
        auto b = cell.find_first_not_of(" \t\r");
        auto e = cell.find_last_not_of(" \t\r");
        out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    while (!out.empty() && out.back().empty())
        out.pop_back();
    return out;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l))
        if (!l.empty())
            out.push_back(l);
    return out;
}

std::string tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("tessim_scalesim_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

std::string writeFile(const std::string& dir, const std::string& name, const std::string& text) {
    std::string p = (fs::path(dir) / name).string();
    std::ofstream(p) << text;
    return p;
}

// Half a unit in the last printed digit of the golden value.
double precisionOf(const std::string& text) {
    auto dot = text.find('.');
    if (dot == std::string::npos)
        return 0.5;
    return 0.5 * std::pow(10.0, -static_cast<double>(text.size() - dot - 1));
}

// Every row and column of report `got` against `want`: integers (cycles, counts) exactly, floats
// within half a unit of the golden's last printed digit; `looseColumn` (if ≥ 0) within `loose`.
void expectReportEquals(const std::string& got, const std::string& want, const std::string& what,
                        int looseColumn = -1, double loose = 0) {
    auto g = lines(got), w = lines(want);
    ASSERT_EQ(g.size(), w.size()) << what;
    ASSERT_FALSE(w.empty()) << what;
    EXPECT_EQ(splitCsv(g[0]), splitCsv(w[0])) << what;  // SCALE-Sim's header
    const auto header = splitCsv(w[0]);
    for (std::size_t row = 1; row < w.size(); ++row) {
        auto gc = splitCsv(g[row]), wc = splitCsv(w[row]);
        ASSERT_EQ(gc.size(), wc.size()) << what << " row " << row;
        for (std::size_t i = 0; i < wc.size(); ++i) {
            const std::string where = what + " layer " + wc[0] + " column '" + header[i] + "'";
            const bool integer = wc[i].find_first_of(".eE") == std::string::npos;
            if (integer)
                EXPECT_EQ(gc[i], wc[i]) << where;
            else if (static_cast<int>(i) == looseColumn)
                EXPECT_NEAR(std::stod(gc[i]), std::stod(wc[i]), loose) << where;
            else
                EXPECT_NEAR(std::stod(gc[i]), std::stod(wc[i]), precisionOf(wc[i])) << where;
        }
    }
}

}  // namespace

TEST(ScaleSimGolden, AlexnetPartComputeReportEqualsGolden) {
    std::string out = tempDir("golden");
    auto r =
        runTessim("run --target " + kWs + " --workload " + kAlexPart + " --format scalesim --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* f : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
        EXPECT_TRUE(fs::is_regular_file(fs::path(out) / f)) << f;
    const std::string got = tessim::test::readWholeFile(out + "/COMPUTE_REPORT.csv");
    // This golden was written by a Python (3.12 or later) whose sum() of floats compensates
    // rounding: its Compute Util % (column 5) is 90.78000992063492 where SCALE-Sim's plain
    // fold-by-fold sum, golden-calc/'s and tessim's, gives 90.78000992063485.
    expectReportEquals(got, tessim::test::readWholeFile(kData + "/golden/COMPUTE_REPORT.csv"), "compute", 5,
                       1e-12);
    auto g = splitCsv(lines(got)[1]);
    EXPECT_EQ(g[1], "112283");
    EXPECT_EQ(g[2], "0");
    // stdout carries the compute report too.
    EXPECT_EQ(lines(r.out), lines(got));
    // Bandwidth and access reports: every column is SCALE-Sim's (CALC: the ideal interface's).
    expectReportEquals(tessim::test::readWholeFile(out + "/BANDWIDTH_REPORT.csv"),
                       tessim::test::readWholeFile(kData + "/golden/BANDWIDTH_REPORT.csv"), "bandwidth");
    expectReportEquals(tessim::test::readWholeFile(out + "/DETAILED_ACCESS_REPORT.csv"),
                       tessim::test::readWholeFile(kData + "/golden/DETAILED_ACCESS_REPORT.csv"), "access");
    fs::remove_all(out);
}

// InterfaceBandwidth CALC: SCALE-Sim's three reports for every layer of alexnet.csv and
// Resnet18.csv in os, ws and is (golden-calc/<topology>_<dataflow>/, written by SCALE-Sim v2).
// Integers exactly, floats to the golden's printed precision.
class ScaleSimCalcGolden : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ScaleSimCalcGolden, ReportsEqualScaleSimsForEveryLayer) {
    const auto& [topology, dataflow] = GetParam();
    const std::string run = topology + "_" + dataflow;
    const std::string out = tempDir("calc_" + run);
    auto r =
        runTessim("run --target " + kData + "/golden-calc/configs/calc_" + dataflow + ".cfg --workload " +
                  kData + "/topologies/" + topology + ".csv --format scalesim --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* report : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
        expectReportEquals(tessim::test::readWholeFile(out + "/" + report),
                           tessim::test::readWholeFile(kData + "/golden-calc/" + run + "/" + report),
                           run + " " + report);
    fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(AlexnetAndResnet18, ScaleSimCalcGolden,
                         ::testing::Combine(::testing::Values("alexnet", "Resnet18"),
                                            ::testing::Values("os", "ws", "is")),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// The same on layers and arrays golden-calc/ does not have: a 16×8 array with 8 kB and 64 kB
// buffers, and GEMM topologies (tests/scalesim/data/, written by SCALE-Sim v2).
class ScaleSimCalcMoreGolden
    : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string>> {};

TEST_P(ScaleSimCalcMoreGolden, ReportsEqualScaleSimsForEveryLayer) {
    const auto& [topology, array, dataflow] = GetParam();
    const std::string data = std::string(TESSIM_SOURCE_DIR) + "/tests/scalesim/data";
    const std::string run = topology + "_" + array + "_" + dataflow;
    const std::string out = tempDir("calc_" + run);
    auto r = runTessim("run --target " + data + "/calc_" + array + "_" + dataflow + ".cfg --workload " +
                       data + "/" + topology + ".csv --format scalesim --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* report : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
        expectReportEquals(tessim::test::readWholeFile(out + "/" + report),
                           tessim::test::readWholeFile(data + "/golden/" + run + "/" + report),
                           run + " " + report);
    fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(OddArrayAndGemm, ScaleSimCalcMoreGolden,
                         ::testing::Values(std::make_tuple("inception_3x3", "16x8", "os"),
                                           std::make_tuple("inception_3x3", "16x8", "ws"),
                                           std::make_tuple("inception_3x3", "16x8", "is"),
                                           std::make_tuple("gemm_small", "32x32", "os"),
                                           std::make_tuple("gemm_small", "32x32", "ws"),
                                           std::make_tuple("gemm_small", "32x32", "is")),
                         [](const auto& info) {
                             return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" +
                                    std::get<2>(info.param);
                         });

// The ideal interface: no DMA, no DRAM traffic in the run, folds back to back (the run lasts
// exactly the folds' cycles), no stall; `--set workload.interface=memory` runs tessim's memory
// models on the same .cfg, and a USER .cfg defaults to them.
TEST(ScaleSimCalc, IdealInterfaceRunsFoldsBackToBack) {
    const std::string alex = kData + "/topologies/alexnet.csv";
    auto r = runTessim("run --target " + kOs + " --workload " + alex + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["workload"]["config"]["interface"], "ideal");
    std::uint64_t foldCycles = 0;
    for (const auto& l : j["workload"]["config"]["layers"])
        foldCycles += l["row_folds"].get<std::uint64_t>() * l["col_folds"].get<std::uint64_t>() *
                      l["cycles_per_fold"].get<std::uint64_t>();
    EXPECT_EQ(j["cycles"].get<std::uint64_t>(), foldCycles);
    // No DRAM access is simulated; the interface's traffic is counted untimed (see below).
    EXPECT_EQ(j["stats"][j["target"]["name"].get<std::string>()]["ddr"]["reads"]["value"].get<double>(), 0.0);
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["stall_cycles"].get<std::int64_t>(), 0);
        EXPECT_EQ(l["total_cycles"], l["compute_cycles"]);
    }
    // AlexNet conv2, os: every fold uses T = 5·5·96 = 2400 of its 2400 + 32 + 32 − 2 cycles.
    EXPECT_NEAR(j["layers"][1]["compute_util_pct"].get<double>(), 94.79380704353242, 1e-12);

    auto mem = runTessim("run --target " + kOs + " --workload " + alex +
                         " --set workload.interface=memory --format json");
    ASSERT_EQ(mem.exitCode, 0) << mem.err;
    auto m = nlohmann::json::parse(mem.out);
    EXPECT_EQ(m["workload"]["config"]["interface"], "memory");
    EXPECT_GT(m["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), 0u);
    EXPECT_GT(m["cycles"].get<std::uint64_t>(), foldCycles);
    // Compute cycles and utilisation are the array's, whatever the interface.
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(m["layers"][i]["compute_cycles"], j["layers"][i]["compute_cycles"]);
        EXPECT_EQ(m["layers"][i]["compute_util_pct"], j["layers"][i]["compute_util_pct"]);
    }

    auto bad = runTessim("run --target " + kOs + " --workload " + alex + " --set workload.interface=calc");
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.err.find("interface"), std::string::npos) << bad.err;
}

// The read buffer's set bookkeeping in closed form: a 1000-word buffer holds 100 sets of 10
// words, 50 of them the active window (500 words).
TEST(ScaleSimCalc, ReadEstimateFetchesNewWordsOncePerWindow) {
    {  // 25 distinct words, each read twice: one batch before the layer, 3 sets at 10 words/cycle.
        tessim::ScaleSimReadEstimate b(1000, 100);
        for (std::uint64_t i = 0; i < 50; ++i)
            b.read(7 + i, i % 25);
        auto w = b.finish();
        EXPECT_EQ(w.count, 25u);
        EXPECT_EQ(w.stop, -1);   // ends one cycle before cycle 0 less the port's latency, answered 1 later
        EXPECT_EQ(w.start, -3);  // 3 cycles
    }
    {  // 600 distinct words from cycle 5, then word 0 again after the window moved on.
        tessim::ScaleSimReadEstimate b(1000, 1000);
        for (std::uint64_t i = 0; i < 600; ++i)
            b.read(5 + i, i);
        b.read(605, 0);  // its set left the window at the move (cycle 504): fetched again
        auto w = b.finish();
        EXPECT_EQ(w.count, 601u);
        // First window: 50 sets ending at cycle 5 − 2, 500 words at 10/cycle → from −46 (+1 latency).
        EXPECT_EQ(w.start, -45);
        // The rest over the interval from there to the move at cycle 504 (+1 latency).
        EXPECT_EQ(w.stop, 505);
    }
}

// The write buffer: a 64-word buffer, 4-word lines; once more than 32 words are held, up to 8
// lines drain one per cycle; the rest drains from the last cycle on.
TEST(ScaleSimCalc, WriteEstimateDrainsHalfBufferBatches) {
    {
        tessim::ScaleSimWriteEstimate b(64, 4);
        for (std::uint64_t c = 0; c < 10; ++c)
            b.write(c);
        auto w = b.finish(9);  // lines 4, 4, 2 from cycle 9: 3 lines, 2 unused words
        EXPECT_EQ(w.count, 10u);
        EXPECT_EQ(w.start, 9);
        EXPECT_EQ(w.stop, 11);
    }
    {
        tessim::ScaleSimWriteEstimate b(64, 4);
        for (std::uint64_t c = 0; c <= 32; ++c)
            b.write(c);         // the 33rd word (cycle 32): 8 full lines drain at cycles 32…39
        auto w = b.finish(40);  // its own line (1 word) at cycle 40
        EXPECT_EQ(w.count, 33u);
        EXPECT_EQ(w.start, 32);
        EXPECT_EQ(w.stop, 40);
    }
}

TEST(ScaleSimGolden, JsonReportHasLayers) {
    auto r = runTessim("run --target " + kWs + " --workload " + kAlexPart + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["layers"].size(), 1u);
    EXPECT_EQ(j["layers"][0]["total_cycles"].get<std::int64_t>(), 112283);
    EXPECT_EQ(j["layers"][0]["stall_cycles"].get<std::int64_t>(), 0);
    EXPECT_EQ(j["layers"][0]["name"], "Conv1");
    EXPECT_EQ(j["target"]["config"]["npu"]["units"]["mac"]["rows"], 32);
    EXPECT_EQ(j["workload"]["config"]["layers"][0]["ofmap_h"], 55);  // SCALE-Sim's ceil
    // CALC: an ideal interface, the run is the folds back to back (cycles 0…112,283).
    EXPECT_EQ(j["cycles"].get<std::uint64_t>(), 112284u);
    // With tessim's memory models the whole run (prefetch before the first fold and the last
    // write-back included) is longer.
    auto mem = runTessim("run --target " + kWs + " --workload " + kAlexPart +
                         " --set workload.interface=memory --format json");
    ASSERT_EQ(mem.exitCode, 0) << mem.err;
    EXPECT_GT(nlohmann::json::parse(mem.out)["cycles"].get<std::uint64_t>(), 112284u);
}

TEST(ScaleSimGolden, MultiLayerMatchesSingleLayers) {
    const std::string alex = kData + "/topologies/alexnet.csv";
    auto all = runTessim("run --target " + kWs + " --workload " + alex + " --format json");
    ASSERT_EQ(all.exitCode, 0) << all.err;
    auto j = nlohmann::json::parse(all.out);
    ASSERT_EQ(j["layers"].size(), 5u);
    EXPECT_EQ(j["layers"][0]["total_cycles"].get<std::int64_t>(), 112283);
    std::int64_t computeSum = 0;
    for (const auto& l : j["layers"]) {
        computeSum += l["compute_cycles"].get<std::int64_t>();
        EXPECT_EQ(l["total_cycles"].get<std::int64_t>(),
                  l["compute_cycles"].get<std::int64_t>() + l["stall_cycles"].get<std::int64_t>());
    }
    EXPECT_GE(j["cycles"].get<std::int64_t>(), computeSum);
    // Layer 2 alone has the same compute cycles as within the topology.
    auto one =
        runTessim("run --target " + kWs + " --workload " + alex + " --set workload.layer=2 --format json");
    ASSERT_EQ(one.exitCode, 0) << one.err;
    auto k = nlohmann::json::parse(one.out);
    ASSERT_EQ(k["layers"].size(), 1u);
    EXPECT_EQ(k["layers"][0]["compute_cycles"], j["layers"][2]["compute_cycles"]);
    EXPECT_EQ(k["layers"][0]["layer_id"], 2);
}

TEST(ScaleSimGemm, GemmRowsMapAsScaleSim) {
    // QKT: M=1024, N=1024, K=64 → ifmap 1024×64, filter 1×64, 1 channel, 1024 filters.
    // WS 32×32: Sr = K = 64 (2 folds), Sc = N = 1024 (32 folds), T = E = 1024; per fold 64+32+1024−2.
    auto r = runTessim("run --target " + kWs + " --workload " + kData +
                       "/topologies/gpt2_gemm.csv --set workload.layer=0 --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& l = j["workload"]["config"]["layers"][0];
    EXPECT_EQ(l["name"], "QKT");
    EXPECT_EQ(l["sr"], 64);
    EXPECT_EQ(l["sc"], 1024);
    EXPECT_EQ(l["t"], 1024);
    EXPECT_EQ(j["layers"][0]["compute_cycles"].get<std::int64_t>(), 64 * (64 + 32 + 1024 - 2) - 1);
    EXPECT_EQ(j["workload"]["config"]["form"], "gemm");
}

TEST(ScaleSimMemory, LowUserBandwidthStalls) {
    std::string dir = tempDir("user");
    std::string cfg = tessim::test::readWholeFile(kWs);
    auto pos = cfg.find("CALC");
    ASSERT_NE(pos, std::string::npos);
    cfg.replace(pos, 4, "USER");
    pos = cfg.find("Bandwidth : 10");
    ASSERT_NE(pos, std::string::npos);
    cfg.replace(pos, 14, "Bandwidth : 4");
    std::string path = writeFile(dir, "user.cfg", cfg);
    auto r = runTessim("run --target " + path + " --workload " + kAlexPart + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    // ~47 B/cycle of operand traffic through a 4 B/cycle interface: memory-bound.
    EXPECT_GT(j["layers"][0]["stall_cycles"].get<std::int64_t>(), 112283);
    EXPECT_EQ(j["layers"][0]["total_cycles"].get<std::int64_t>(),
              112283 + j["layers"][0]["stall_cycles"].get<std::int64_t>());
    fs::remove_all(dir);
}

TEST(ScaleSimErrors, ConfigErrorsNameFileLineColumn) {
    std::string dir = tempDir("errors");
    std::string cfg = tessim::test::readWholeFile(kWs);
    auto pos = cfg.find("Dataflow : ws");
    ASSERT_NE(pos, std::string::npos);
    cfg.replace(pos, 13, "Dataflow : xs");
    std::string path = writeFile(dir, "bad.cfg", cfg);
    auto r = runTessim("run --target " + path + " --workload " + kAlexPart);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(path + ":14:12"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("expected os, ws or is"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());

    std::string csv =
        writeFile(dir, "bad.csv",
                  "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num "
                  "Filter, Strides,\nConv1,  224, 224,    11, 11,    three,      96,     4,\n");
    r = runTessim("run --target " + kWs + " --workload " + csv);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(csv + ":2:33"), std::string::npos) << r.err;

    std::string missing = writeFile(dir, "missing.cfg", "[architecture_presets]\nArrayHeight: 8\n");
    r = runTessim("run --target " + missing + " --workload " + kAlexPart);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find(missing + ":1:1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ArrayWidth"), std::string::npos) << r.err;

    r = runTessim("run --target npu --workload conv1080p --format scalesim");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("SCALE-Sim topology"), std::string::npos) << r.err;
    fs::remove_all(dir);
}

TEST(ScaleSimConverters, ConfigAndTopologyTrees) {
    auto arch = tessim::parseScaleSimConfig(kOs);
    EXPECT_EQ(arch.rows, 32u);
    EXPECT_EQ(arch.cols, 32u);
    EXPECT_EQ(arch.dataflow, "os");
    EXPECT_EQ(arch.ifmapKiB, 64u);
    EXPECT_EQ(arch.interfaceBandwidth, "CALC");
    auto topo = tessim::loadScaleSimTopology(kData + "/topologies/Resnet18.csv");
    EXPECT_EQ(topo.find("kernel")->scalar(), "scalesim");
    const auto& layers = topo.find("layers")->items();
    ASSERT_GT(layers.size(), 10u);
    EXPECT_EQ(layers[0].find("name")->scalar(), "Conv1");
    EXPECT_EQ(layers[0].find("filter_h")->scalar(), "7");
    EXPECT_EQ(layers[0].find("stride")->scalar(), "2");
    EXPECT_EQ(layers[0].find("filter_h")->location().line, 2);
    tessim::ScaleSimLayer l{"Conv1", 224, 224, 11, 11, 3, 96, 4, 4};
    EXPECT_EQ(l.ofmapH(), 55u);  // ceil((224 − 11 + 4) / 4)
    auto m = tessim::scaleSimMapping(l, 32, 32, "ws");
    EXPECT_EQ(m.computeCycles(), 112283u);
}

// A target made from a SCALE-Sim .cfg has a 3-channel DMA: the conv2d kernel shares channels
// (bit-exact), and the SCALE-Sim schedule runs on fewer channels with the same compute cycles.
TEST(ScaleSimDmaChannels, ConvAndFoldsRunOnTheChannelsTheTargetHas) {
    auto conv = runTessim("run --target " + kWs +
                          " --workload conv1080p --set workload.h=16 --set workload.w=32 --functional");
    ASSERT_EQ(conv.exitCode, 0) << conv.err;
    auto c = nlohmann::json::parse(conv.out);
    EXPECT_EQ(c["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    for (int channels : {1, 2}) {
        auto r = runTessim("run --target " + kWs + " --workload " + kAlexPart +
                           " --set workload.interface=memory --set target.dma.channels=" +
                           std::to_string(channels) + " --format json");
        ASSERT_EQ(r.exitCode, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["layers"][0]["compute_cycles"].get<std::int64_t>(), 112283) << channels;
        EXPECT_EQ(j["layers"][0]["total_cycles"].get<std::int64_t>(),
                  112283 + j["layers"][0]["stall_cycles"].get<std::int64_t>());
    }
}

namespace {

// Sum of column `column` of a SCALE-Sim report over its layers.
std::uint64_t columnSum(const std::string& csv, std::size_t column) {
    std::uint64_t sum = 0;
    auto rows = lines(csv);
    for (std::size_t i = 1; i < rows.size(); ++i)
        sum += std::stoull(splitCsv(rows[i]).at(column));
    return sum;
}

std::string readText(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

// With the ideal interface the DRAM words of SCALE-Sim's estimate (its DETAILED_ACCESS_REPORT's
// DRAM reads and writes, 1 B each) are the run's DDR traffic and charge the DDR's 31 pJ/B, with
// no DRAM access simulated; the plan says so.
class ScaleSimIdealTraffic : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaleSimIdealTraffic, DramWordsCountInTrafficAndEnergy) {
    const std::string df = GetParam();
    const std::string golden = readText(kData + "/golden-calc/alexnet_" + df + "/DETAILED_ACCESS_REPORT.csv");
    ASSERT_FALSE(golden.empty());
    const std::uint64_t reads = columnSum(golden, 12) + columnSum(golden, 15);  // DRAM IFMAP, Filter Reads
    const std::uint64_t writes = columnSum(golden, 18);                         // DRAM OFMAP Writes
    ASSERT_GT(reads, 0u);
    auto r = runTessim("run --target " + kData + "/golden-calc/configs/calc_" + df + ".cfg --workload " +
                       kData + "/topologies/alexnet.csv --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), reads);
    EXPECT_EQ(j["traffic_bytes"]["ddr"]["write"].get<std::uint64_t>(), writes);
    const double joules = j["energy_j"]["by_component"]["ddr"]["dynamic"].get<double>();
    EXPECT_NEAR(joules, double(reads + writes) * 31e-12, 1e-9 * joules);
    EXPECT_EQ(j["stats"][j["target"]["name"].get<std::string>()]["ddr"]["untimed_bytes_read"]["value"]
                  .get<double>(),
              double(reads));
    EXPECT_EQ(j["stats"][j["target"]["name"].get<std::string>()]["ddr"]["reads"]["value"].get<double>(),
              0.0);  // none simulated
    const auto& ideal = j["plan"]["config"]["ideal_interface"];
    EXPECT_EQ(ideal["timed"], false);
    EXPECT_EQ(ideal["memory"], "ddr");
    EXPECT_EQ(ideal["read_bytes"].get<std::uint64_t>(), reads);
    EXPECT_EQ(ideal["write_bytes"].get<std::uint64_t>(), writes);
    // The compulsory traffic bound stays below what the interface moves.
    EXPECT_LE(j["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>(), reads + writes);
    // With tessim's memory model the plan has no ideal interface: the DMA's accesses are timed.
    auto mem =
        runTessim("run --target " + kData + "/golden-calc/configs/calc_" + df + ".cfg --workload " + kData +
                  "/topologies/alexnet.csv --set workload.layer=4 --set workload.interface=memory "
                  "--format json");
    ASSERT_EQ(mem.exitCode, 0) << mem.err;
    auto m = nlohmann::json::parse(mem.out);
    EXPECT_FALSE(m["plan"]["config"].contains("ideal_interface"));
    EXPECT_FALSE(m["stats"][m["target"]["name"].get<std::string>()]["ddr"].contains("untimed_bytes_read"));
}

INSTANTIATE_TEST_SUITE_P(Alexnet, ScaleSimIdealTraffic, ::testing::Values("os", "ws", "is"));

namespace {

// The ideal interface word by word: every demanded word through the read buffers, every output
// through the write buffer (the reference the block-wise walk must equal).
tessim::ScaleSimIdealAccess wordByWord(const tessim::ScaleSimLayer& l, unsigned rows, unsigned cols,
                                       const std::string& df, std::uint64_t ifBuf, std::uint64_t fBuf,
                                       std::uint64_t oBuf) {
    using namespace tessim;
    const ScaleSimMapping m = scaleSimMapping(l, rows, cols, df);
    ScaleSimIdealAccess a;
    auto span = [](ScaleSimWindow& w, bool& seen, std::int64_t c) {
        if (!seen)
            w.start = c;
        seen = true;
        w.stop = c;
        ++w.count;
    };
    auto readStream = [&](ScaleSimOperand op, std::uint64_t buf, ScaleSimWindow& sram, ScaleSimWindow& dram) {
        ScaleSimReadEstimate b(buf, scaleSimAddressSpace(l, op));
        bool seen = false;
        forEachScaleSimAccess(l, m, rows, cols, df, op, [&](std::uint64_t c, std::uint64_t addr) {
            span(sram, seen, static_cast<std::int64_t>(c) + 1);
            b.read(c, addr);
        });
        dram = b.finish();
    };
    readStream(ScaleSimOperand::Ifmap, ifBuf, a.sramIfmap, a.dramIfmap);
    readStream(ScaleSimOperand::Filter, fBuf, a.sramFilter, a.dramFilter);
    ScaleSimWriteEstimate out(oBuf, cols);
    bool seen = false;
    forEachScaleSimAccess(l, m, rows, cols, df, ScaleSimOperand::Ofmap, [&](std::uint64_t c, std::uint64_t) {
        span(a.sramOfmap, seen, static_cast<std::int64_t>(c));
        out.write(c);
    });
    a.dramOfmap = out.finish(m.folds() * m.cyclesPerFold - 1);
    return a;
}

void expectWindow(const tessim::ScaleSimWindow& got, const tessim::ScaleSimWindow& want,
                  const std::string& what) {
    EXPECT_EQ(got.start, want.start) << what;
    EXPECT_EQ(got.stop, want.stop) << what;
    EXPECT_EQ(got.count, want.count) << what;
}

}  // namespace

// The block-wise walk (GEMMs, 1×1 and non-overlapping convolutions, every filter) and the batched
// output writes equal the word-by-word interface on small layers whose buffers move their
// windows many times, on arrays of several shapes; overlapping convolutions go word by word.
TEST(ScaleSimCalc, BlockwiseWalkEqualsWordByWord) {
    using tessim::ScaleSimLayer;
    std::vector<ScaleSimLayer> layers;
    auto gemm = [](std::uint64_t m, std::uint64_t n, std::uint64_t k) {
        ScaleSimLayer l;
        l.name = "gemm";
        l.ifmapH = m, l.ifmapW = k, l.filterH = 1, l.filterW = k, l.channels = 1, l.filters = n;
        return l;
    };
    auto conv = [](std::uint64_t h, std::uint64_t w, std::uint64_t r, std::uint64_t c, std::uint64_t n,
                   std::uint64_t s) {
        ScaleSimLayer l;
        l.name = "conv";
        l.ifmapH = h, l.ifmapW = w, l.filterH = r, l.filterW = r, l.channels = c, l.filters = n;
        l.strideH = l.strideW = s;
        return l;
    };
    layers.push_back(gemm(37, 45, 29));
    layers.push_back(gemm(64, 8, 100));
    layers.push_back(gemm(5, 70, 3));
    layers.push_back(conv(13, 13, 1, 24, 20, 1));  // 1×1
    layers.push_back(conv(14, 14, 1, 16, 9, 2));   // 1×1, stride 2
    layers.push_back(conv(12, 12, 2, 5, 11, 2));   // non-overlapping 2×2 windows
    layers.push_back(conv(11, 11, 3, 4, 10, 2));   // overlapping, past the edge: word by word
    const std::pair<unsigned, unsigned> arrays[] = {{8, 8}, {5, 3}, {16, 4}};
    const std::uint64_t buffers[][3] = {
        {1000, 1000, 1000}, {300, 2200, 128}, {99, 150, 64}, {64000, 64000, 64000}};
    int checked = 0;
    for (const auto& l : layers)
        for (auto [rows, cols] : arrays)
            for (const char* df : {"os", "ws", "is"})
                for (const auto& b : buffers) {
                    const auto m = tessim::scaleSimMapping(l, rows, cols, df);
                    const auto fast = tessim::scaleSimIdealAccess(l, m, rows, cols, df, b[0], b[1], b[2]);
                    const auto ref = wordByWord(l, rows, cols, df, b[0], b[1], b[2]);
                    const std::string what = l.name + " " + std::to_string(l.ifmapH) + " " + df + " " +
                                             std::to_string(rows) + "x" + std::to_string(cols) + " buffer " +
                                             std::to_string(b[0]) + "/" + std::to_string(b[1]) + "/" +
                                             std::to_string(b[2]);
                    expectWindow(fast.sramIfmap, ref.sramIfmap, what + " sram ifmap");
                    expectWindow(fast.sramFilter, ref.sramFilter, what + " sram filter");
                    expectWindow(fast.sramOfmap, ref.sramOfmap, what + " sram ofmap");
                    expectWindow(fast.dramIfmap, ref.dramIfmap, what + " dram ifmap");
                    expectWindow(fast.dramFilter, ref.dramFilter, what + " dram filter");
                    expectWindow(fast.dramOfmap, ref.dramOfmap, what + " dram ofmap");
                    // The SRAM windows from the first and last folds alone.
                    const auto w = tessim::scaleSimSramWindows(l, m, rows, cols, df);
                    EXPECT_EQ(w.ifmap.start, ref.sramIfmap.start) << what;
                    EXPECT_EQ(w.ifmap.stop, ref.sramIfmap.stop) << what;
                    EXPECT_EQ(w.filter.start, ref.sramFilter.start) << what;
                    EXPECT_EQ(w.filter.stop, ref.sramFilter.stop) << what;
                    EXPECT_EQ(w.ofmap.start, ref.sramOfmap.start) << what;
                    EXPECT_EQ(w.ofmap.stop, ref.sramOfmap.stop) << what;
                    ++checked;
                }
    EXPECT_EQ(checked, 7 * 3 * 3 * 4);
}

// Outputs written a cycle's worth at a time drain exactly as written one by one.
TEST(ScaleSimCalc, WriteEstimateBatchesEqualSingleWrites) {
    for (std::uint64_t buffer : {64u, 100u, 1000u})
        for (unsigned line : {1u, 3u, 8u}) {
            tessim::ScaleSimWriteEstimate batched(buffer, line), single(buffer, line);
            std::uint64_t cycle = 0;
            for (std::uint64_t i = 0; i < 400; ++i, ++cycle) {
                const std::uint64_t words = (i * 7 + 3) % 11;  // 0…10 outputs per cycle
                batched.write(cycle, words);
                for (std::uint64_t k = 0; k < words; ++k)
                    single.write(cycle);
            }
            expectWindow(batched.finish(cycle), single.finish(cycle),
                         "buffer " + std::to_string(buffer) + " line " + std::to_string(line));
        }
}

// With tessim's memory model (USER), the SRAM windows are where the simulation asked for the
// operands: the ideal interface's first cycle, and its last one moved by the stall cycles before
// the last fold (all of a layer's stalls: the array waits only between folds).
class ScaleSimUserSram : public ::testing::TestWithParam<std::string> {};

TEST_P(ScaleSimUserSram, WindowsFollowTheSimulatedFolds) {
    const std::string df = GetParam();
    const std::string cfg = kData + "/golden-calc/configs/calc_" + df + ".cfg";
    const std::string alex = kData + "/topologies/alexnet.csv";
    auto calc = runTessim("run --target " + cfg + " --workload " + alex + " --format json");
    ASSERT_EQ(calc.exitCode, 0) << calc.err;
    auto user = runTessim("run --target " + cfg + " --workload " + alex +
                          " --set workload.interface=memory --set target.ddr.bandwidth=8GB/s --format json");
    ASSERT_EQ(user.exitCode, 0) << user.err;
    auto c = nlohmann::json::parse(calc.out), u = nlohmann::json::parse(user.out);
    ASSERT_EQ(c["layers"].size(), 5u);
    ASSERT_EQ(u["layers"].size(), 5u);
    std::int64_t stalls = 0;
    int lastFoldStops = 0;
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& ideal = c["layers"][i]["sram"];
        const auto& got = u["layers"][i]["sram"];
        const auto& backToBack = u["workload"]["config"]["layers"][i]["sram_windows_back_to_back"];
        const std::int64_t stall = u["layers"][i]["stall_cycles"].get<std::int64_t>();
        stalls += stall;
        for (const char* op : {"ifmap", "filter", "ofmap"}) {
            const std::string what = "layer " + std::to_string(i) + " " + op;
            EXPECT_EQ(backToBack[op]["start"], ideal[op]["start"]) << what;
            EXPECT_EQ(backToBack[op]["stop"], ideal[op]["stop"]) << what;
            EXPECT_EQ(got[op]["start"], ideal[op]["start"]) << what;
            // The last demand's fold is the last fold but where all its windows are past the edge.
            const std::uint64_t folds =
                u["workload"]["config"]["layers"][i]["row_folds"].get<std::uint64_t>() *
                u["workload"]["config"]["layers"][i]["col_folds"].get<std::uint64_t>();
            const std::int64_t idealStop = ideal[op]["stop"].get<std::int64_t>();
            if (backToBack[op]["stop_fold"].get<std::uint64_t>() + 1 == folds) {
                EXPECT_EQ(got[op]["stop"].get<std::int64_t>(), idealStop + stall) << what;
                ++lastFoldStops;
            } else {
                EXPECT_GE(got[op]["stop"].get<std::int64_t>(), idealStop) << what;
                EXPECT_LE(got[op]["stop"].get<std::int64_t>(), idealStop + stall) << what;
            }
            EXPECT_LE(got[op]["stop"].get<std::int64_t>(), u["layers"][i]["total_cycles"].get<std::int64_t>())
                << what;
        }
    }
    EXPECT_GT(stalls, 0);  // 8 GB/s leaves the array waiting
    EXPECT_GE(lastFoldStops, 10);
}

INSTANTIATE_TEST_SUITE_P(Alexnet, ScaleSimUserSram, ::testing::Values("os", "ws", "is"));
