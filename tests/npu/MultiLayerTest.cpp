// conv2d layer lists (workloads/library/resnet18.yaml, alexnet.yaml, or any `layers:` list): each
// layer planned on its own and run after the previous one has finished; the report's `layers`
// array gives per-layer cycles, seconds, stall fraction, DDR bytes and tiles. One simulation per
// test process.
//
// Invariant of the per-layer windows: a layer ends (its mark) when every op and DMA of it has
// completed, and the next layer starts there, so the windows tile [0, total): per-layer cycles
// and seconds sum to the totals exactly. DDR sees only the layers' DMAs, so per-layer DDR bytes
// sum to the measured DDR traffic exactly.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/UsefulBytes.h"
#include "run/pipeline/Simulation.h"
#include "run/report/Report.h"
#include "sim/config/ConfigError.h"

namespace tessim {
namespace {

using Json = nlohmann::ordered_json;

Json run(const std::string& workload, const std::string& plan, std::vector<std::string> sets = {},
         bool functional = false) {
    RunRequest r;
    r.target = "npu";
    r.workload = workload;
    r.plan = plan;
    r.sets = std::move(sets);
    r.functional = functional;
    return runSimulation(r);
}

// Reduced list for functional runs: odd sizes, stride 2 with padding, a 1×1 stride-2 layer.
std::string smallList() {
    auto path = std::filesystem::temp_directory_path() /
                ("tessim-multilayer-" + std::to_string(::getpid()) + ".yaml");
    std::ofstream out(path);
    out << "name: small3\nkernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: odd3x3, h: 13, w: 11, channels: 5, filters: 7, k: 3, stride: 1, pad: 1}\n"
           "  - {name: stride2, h: 15, w: 9, channels: 6, filters: 5, k: 3, stride: 2, pad: 1}\n"
           "  - {name: down1x1, h: 9, w: 7, channels: 8, filters: 9, k: 1, stride: 2, pad: 0}\n";
    return path.string();
}

void expectWindowsTileTheRun(const Json& r) {
    ASSERT_TRUE(r.contains("layers")) << "no layers array";
    std::uint64_t cycles = 0, next = 0;
    double seconds = 0.0;
    for (const auto& l : r["layers"]) {
        EXPECT_EQ(l["start_cycle"].get<std::uint64_t>(), next) << l["name"];
        next = l["end_cycle"].get<std::uint64_t>();
        cycles += l["cycles"].get<std::uint64_t>();
        seconds += l["seconds"].get<double>();
    }
    EXPECT_EQ(cycles, r["cycles"].get<std::uint64_t>());
    EXPECT_NEAR(seconds, r["seconds"].get<double>(), 1e-12 * r["seconds"].get<double>() + 1e-15);
}

TEST(MultiLayer, ResNet18HasTwentyConvLayers) {
    Json r = run("resnet18", "double-buffer");
    ASSERT_EQ(r["layers"].size(), 20u);
    std::uint64_t macs = 0, oneByOne = 0;
    for (const auto& l : r["layers"]) {
        macs += l["macs"].get<std::uint64_t>();
        oneByOne += l["k"].get<unsigned>() == 1;
    }
    EXPECT_EQ(oneByOne, 3u);       // the downsample projections of conv3_x, conv4_x, conv5_x
    EXPECT_EQ(macs, 1813561344u);  // 1.8 GMAC: He et al., Table 1 ("1.8×10^9 FLOPs", multiply-adds)
    EXPECT_EQ(r["layers"][0]["out_h"].get<unsigned>(), 112u);
    EXPECT_EQ(r["layers"][19]["out_h"].get<unsigned>(), 7u);
}

TEST(MultiLayer, LayerCyclesAndSecondsSumToTheTotal) {
    expectWindowsTileTheRun(run("resnet18", "double-buffer"));
}

TEST(MultiLayer, LayerCyclesSumToTheTotalWithStaticSingle) {
    expectWindowsTileTheRun(run("alexnet", "static-single"));
}

TEST(MultiLayer, LayerDdrBytesSumToTheMeasuredTraffic) {
    Json r = run("resnet18", "double-buffer");
    std::uint64_t read = 0, write = 0, compulsory = 0;
    for (const auto& l : r["layers"]) {
        read += l["ddr_read_bytes"].get<std::uint64_t>();
        write += l["ddr_write_bytes"].get<std::uint64_t>();
        compulsory += l["compulsory_bytes"].get<std::uint64_t>();
        EXPECT_GE(l["ddr_read_bytes"].get<std::uint64_t>() + l["ddr_write_bytes"].get<std::uint64_t>(),
                  l["compulsory_bytes"].get<std::uint64_t>())
            << l["name"];
    }
    // Layers count the bytes their DMA transfers request; the bus moves whole bursts.
    EXPECT_EQ(read, test::usefulBytes(r, "ddr", "read"));
    EXPECT_EQ(write, test::usefulBytes(r, "ddr", "write"));
    EXPECT_GE(r["traffic_bytes"]["ddr"]["read"].get<std::uint64_t>(), read);
    EXPECT_EQ(compulsory, r["bounds"]["compulsory_bytes"]["ddr"].get<std::uint64_t>());
}

TEST(MultiLayer, EveryLayerRespectsItsComputeBound) {
    Json r = run("resnet18", "double-buffer");
    double bound = 0.0;
    for (const auto& l : r["layers"]) {
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        EXPECT_GE(l["stall_fraction"].get<double>(), 0.0);
        EXPECT_LT(l["stall_fraction"].get<double>(), 1.0);
        bound += l["compute_bound_s"].get<double>();
    }
    EXPECT_NEAR(bound, r["bounds"]["compute_s"].get<double>(), 1e-9 * bound);
}

TEST(MultiLayer, SmallSramReplansEveryLayer) {
    Json r = run("alexnet", "double-buffer", {"target.sram.size=64KiB"});
    expectWindowsTileTheRun(r);
    for (const auto& l : r["layers"])
        EXPECT_LE(l["tiles"]["sram_bytes_used"].get<std::uint64_t>(), 64u * 1024) << l["name"];
}

TEST(MultiLayer, SetIndexesTheLayerList) {
    Json r = run("resnet18", "double-buffer", {"workload.layers[2].h=28", "workload.layers[2].stride=2"});
    const auto& l = r["layers"];
    EXPECT_EQ(l[2]["h"].get<unsigned>(), 28u);
    EXPECT_EQ(l[2]["out_h"].get<unsigned>(), 14u);  // (28 + 2 − 3) / 2 + 1
    EXPECT_EQ(l[2]["out_w"].get<unsigned>(), 28u);  // (56 + 2 − 3) / 2 + 1
    EXPECT_EQ(l[1]["h"].get<unsigned>(), 56u);
    EXPECT_EQ(l[3]["h"].get<unsigned>(), 56u);
}

TEST(MultiLayer, UnknownLayerKeyIsAnError) {
    EXPECT_THROW(run("resnet18", "double-buffer", {"workload.layers[1].kk=3"}), config::ConfigError);
}

TEST(MultiLayer, MarkdownAndCsvShowTheLayers) {
    Json r = run("alexnet", "double-buffer");
    std::string md = reportToMarkdown(r);
    EXPECT_NE(md.find("## Layers"), std::string::npos) << md;
    EXPECT_NE(md.find("| 4 | conv5 | 384×13×13 → 256, 3/1/1 |"), std::string::npos) << md;
    // Times and bytes in units a person reads (issue 29): µs and KiB, never 6.39812e-06 or raw bytes.
    const std::string table = md.substr(md.find("## Layers"));
    EXPECT_NE(table.find("| time | stall fraction | DDR read | DDR write |"), std::string::npos) << table;
    EXPECT_NE(table.find(" µs |"), std::string::npos) << table;
    EXPECT_NE(table.find(" KiB |"), std::string::npos) << table;
    EXPECT_EQ(table.find("e-0"), std::string::npos) << table;
    std::string csv = reportToCsv(r);
    EXPECT_NE(csv.find("layers[4].name,conv5"), std::string::npos);
    EXPECT_NE(csv.find("layers[0].tiles.tile_h,"), std::string::npos);
    EXPECT_NE(csv.find("layers[2].ddr_read_bytes,"), std::string::npos);
}

struct LayerCase {
    const char* name;
    const char* plan;
    std::vector<std::string> sets;
};

class MultiLayerFunctional : public ::testing::TestWithParam<LayerCase> {};

TEST_P(MultiLayerFunctional, EveryLayerMatchesDirectConvolution) {
    const LayerCase& c = GetParam();
    std::string path = smallList();
    Json r = run(path, c.plan, c.sets, true);
    std::filesystem::remove(path);
    ASSERT_TRUE(r.contains("functional")) << r.dump();
    const auto& f = r["functional"];
    std::uint64_t outputs = 0;
    for (const auto& l : r["layers"])
        outputs += std::uint64_t{l["filters"].get<unsigned>()} * l["out_h"].get<unsigned>() *
                   l["out_w"].get<unsigned>();
    EXPECT_EQ(f["elements"].get<std::uint64_t>(), outputs);
    EXPECT_EQ(outputs, 7u * 13 * 11 + 5u * 8 * 5 + 9u * 5 * 4);
    EXPECT_EQ(f["mismatches"].get<std::uint64_t>(), 0u) << f.dump();
    expectWindowsTileTheRun(r);
}

const LayerCase kLayerCases[] = {
    {"naive", "naive", {}},
    {"static_single", "static-single", {"plan.tile_h=3"}},
    {"double_buffer", "double-buffer", {"plan.tile_h=2", "plan.tile_w=3"}},
    {"double_channel_split", "double-buffer", {"plan.tile_h=3", "plan.tile_c=2", "plan.tile_f=4"}},
    {"double_auto_small_sram", "double-buffer", {"target.sram.size=2KiB"}},
};

INSTANTIATE_TEST_SUITE_P(Npu, MultiLayerFunctional, ::testing::ValuesIn(kLayerCases),
                         [](const ::testing::TestParamInfo<LayerCase>& i) {
                             return std::string(i.param.name);
                         });

}  // namespace
}  // namespace tessim
