// SCALE-Sim compatibility: .cfg and topology CSV inputs, SCALE-Sim's golden run
// (../shared/data/scalesim: scale_ws.cfg on alexnet_part.csv → 112,283 cycles, 0 stalls, the
// COMPUTE_REPORT.csv row), GEMM topologies, multi-layer results and converter errors.
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

}  // namespace

TEST(ScaleSimGolden, AlexnetPartComputeReportEqualsGolden) {
    std::string out = tempDir("golden");
    auto r =
        runTessim("run --target " + kWs + " --workload " + kAlexPart + " --format scalesim --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* f : {"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"})
        EXPECT_TRUE(fs::is_regular_file(fs::path(out) / f)) << f;
    auto got = lines(tessim::test::readWholeFile(out + "/COMPUTE_REPORT.csv"));
    auto want = lines(tessim::test::readWholeFile(kData + "/golden/COMPUTE_REPORT.csv"));
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(want.size(), 2u);
    EXPECT_EQ(splitCsv(got[0]), splitCsv(want[0]));  // SCALE-Sim's columns
    auto g = splitCsv(got[1]), w = splitCsv(want[1]);
    ASSERT_EQ(g.size(), w.size());
    for (std::size_t i = 0; i < w.size(); ++i)
        EXPECT_NEAR(std::stod(g[i]), std::stod(w[i]), precisionOf(w[i])) << "column " << splitCsv(want[0])[i];
    EXPECT_EQ(g[1], "112283");
    EXPECT_EQ(g[2], "0");
    // stdout carries the compute report too.
    EXPECT_EQ(lines(r.out), got);
    // Bandwidth and access reports: SCALE-Sim's columns; SRAM counts are SCALE-Sim's exactly.
    auto bw = lines(tessim::test::readWholeFile(out + "/BANDWIDTH_REPORT.csv"));
    auto bwGold = lines(tessim::test::readWholeFile(kData + "/golden/BANDWIDTH_REPORT.csv"));
    EXPECT_EQ(splitCsv(bw[0]), splitCsv(bwGold[0]));
    for (int i = 1; i <= 3; ++i)
        EXPECT_NEAR(std::stod(splitCsv(bw[1])[i]), std::stod(splitCsv(bwGold[1])[i]), 1e-9);
    auto da = lines(tessim::test::readWholeFile(out + "/DETAILED_ACCESS_REPORT.csv"));
    auto daGold = lines(tessim::test::readWholeFile(kData + "/golden/DETAILED_ACCESS_REPORT.csv"));
    EXPECT_EQ(splitCsv(da[0]), splitCsv(daGold[0]));
    auto d = splitCsv(da[1]), dg = splitCsv(daGold[1]);
    for (int i : {3, 6, 9, 15})
        EXPECT_EQ(d[i], dg[i]) << splitCsv(daGold[0])[i];  // SRAM counts, filter DRAM reads
    // DRAM ifmap reads (distinct addresses per fold) within 1 % of SCALE-Sim's.
    EXPECT_NEAR(std::stod(d[12]), std::stod(dg[12]), 0.01 * std::stod(dg[12]));
    fs::remove_all(out);
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
    // The whole run (prefetch before the first fold and the last write-back included) is longer.
    EXPECT_GT(j["cycles"].get<std::uint64_t>(), 112283u);
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
                           " --set target.dma.channels=" + std::to_string(channels) + " --format json");
        ASSERT_EQ(r.exitCode, 0) << r.err;
        auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["layers"][0]["compute_cycles"].get<std::int64_t>(), 112283) << channels;
        EXPECT_EQ(j["layers"][0]["total_cycles"].get<std::int64_t>(),
                  112283 + j["layers"][0]["stall_cycles"].get<std::int64_t>());
    }
}
