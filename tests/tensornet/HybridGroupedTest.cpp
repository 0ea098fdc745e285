// `tessim tn hybrid` on models with grouped convolutions: a grouped layer is not factorised, runs dense
// in every variant (the grouped conv itself: on k1 conv2d's on one core), and is
// counted in every total; runs of equal description are simulated once.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/tensornet/HybridPlan.h"
#include "analysis/tensornet/TnRuns.h"
#include "common/ProcessRunner.h"

namespace tessim {
namespace {

namespace fs = std::filesystem;
using test::runTessim;
using Json = nlohmann::json;

std::string tempDir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("tessim_tng_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

// A 3×3 conv and a depthwise 3×3 conv of 8 channels on an 8×8 input.
std::string writeModel(const std::string& dir) {
    std::ofstream(dir + "/dw.yaml")
        << "name: dw\nkernel: conv2d\ndtype: i8\nlayers:\n"
           "  - {name: a, h: 8, w: 8, channels: 8, filters: 16, k: 3, stride: 1, pad: 1}\n"
           "  - {name: dw, h: 8, w: 8, channels: 8, filters: 8, k: 3, stride: 1, pad: 1, groups: 8}\n";
    return dir + "/dw.yaml";
}

double seconds(const std::string& args) {
    auto r = runTessim("run " + args + " --format json");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return Json::parse(r.out)["seconds"].get<double>();
}

void expectDenseInEveryVariant(const Json& j, double groupedSeconds) {
    ASSERT_EQ(j["layers"].size(), 2u);
    const Json& a = j["layers"][0];
    const Json& dw = j["layers"][1];
    EXPECT_EQ(dw["factorised"], false);
    EXPECT_EQ(dw["groups"], 8);
    EXPECT_EQ(dw["rule"], "dense");
    EXPECT_FALSE(dw.contains("tt"));
    EXPECT_EQ(dw["weight"], Json::parse("[8, 1, 3, 3]"));
    EXPECT_EQ(dw["rows"], 64);
    EXPECT_EQ(dw["dense"]["parameters"], 8 * 9);
    EXPECT_EQ(dw["dense"]["flops"], 2 * 64 * 8 * 9);
    EXPECT_DOUBLE_EQ(dw["dense"]["seconds"].get<double>(), groupedSeconds);
    const Json& v = j["variants"];
    EXPECT_EQ(v["dense"]["parameters"], 16 * 8 * 9 + 8 * 9);
    EXPECT_EQ(v["dense"]["flops"], 2 * 64 * (16 * 8 * 9 + 8 * 9));
    for (const char* form : {"tt", "tr"}) {
        const std::string variant = std::string("all-") + (form[1] == 't' ? "TT" : "TR");
        EXPECT_EQ(v[variant]["parameters"], a[form]["parameters"].get<std::uint64_t>() + 8 * 9) << variant;
        EXPECT_EQ(v[variant]["flops"], a[form]["flops"].get<std::uint64_t>() + 2 * 64 * 8 * 9) << variant;
        EXPECT_DOUBLE_EQ(v[variant]["seconds"].get<double>(),
                         a[form]["seconds"].get<double>() + groupedSeconds)
            << variant;
    }
    EXPECT_DOUBLE_EQ(v["dense"]["seconds"].get<double>(),
                     a["dense"]["seconds"].get<double>() + groupedSeconds);
    // The grouped layer is never a TR layer.
    EXPECT_EQ(v["all-TR"]["tr_layers"], 1);
}

TEST(TnHybridGrouped, DepthwiseRunsDenseInEveryVariantOnTheNpu) {
    const std::string dir = tempDir("npu");
    auto r = runTessim("tn hybrid --model " + writeModel(dir) +
                       " --target npu --tt-rank 2 --tr-rank 2 --out " + dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("| dw | [8,1,3,3] groups 8 | – | dense |"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 grouped layers (72 parameters) are not factorised"), std::string::npos) << r.out;
    // The grouped conv itself, simulated once.
    const double dw =
        seconds("--target npu --workload resnet18 --set 'workload.layers=[{name: dw, h: 8, w: 8, "
                "channels: 8, filters: 8, k: 3, stride: 1, pad: 1, groups: 8}]'");
    std::ifstream in(dir + "/hybrid.json");
    expectDenseInEveryVariant(Json::parse(in), dw);
    fs::remove_all(dir);
}

TEST(TnHybridGrouped, DepthwiseOnK1IsTheGroupedConvOnOneCore) {
    const std::string dir = tempDir("k1");
    auto r = runTessim("tn hybrid --model " + writeModel(dir) +
                       " --target k1 --tt-rank 2 --tr-rank 2 --out " + dir);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("1 grouped layers (72 parameters) are not factorised"), std::string::npos) << r.out;
    // conv2d's depthwise layer (its direct loop, f32) on one core, as the chains run.
    const double dw =
        seconds("--target k1 --workload resnet18 --set 'workload.layers=[{name: dw, h: 8, w: 8, "
                "channels: 8, filters: 8, k: 3, stride: 1, pad: 1, groups: 8}]' --set plan.threads=1");
    std::ifstream in(dir + "/hybrid.json");
    const Json j = Json::parse(in);
    EXPECT_EQ(j["layers"][1]["dense"]["simulated_as"], "the grouped conv");
    expectDenseInEveryVariant(j, dw);
    fs::remove_all(dir);
}

TEST(TnHybridGrouped, GroupsThatDoNotDivideAreRefused) {
    const std::string dir = tempDir("bad");
    std::ofstream(dir + "/bad.yaml")
        << "kernel: conv2d\nlayers:\n"
           "  - {name: x, h: 8, w: 8, channels: 8, filters: 12, k: 3, groups: 8}\n";
    auto r = runTessim("tn hybrid --model " + dir + "/bad.yaml --target npu");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("groups 8 must divide both channels (8) and filters (12)"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("bad.yaml:3:59: error: layers[0].groups"), std::string::npos) << r.err;
    fs::remove_all(dir);
}

TEST(TnHybridGrouped, MobileNetV2IsTheWholeLayerList) {
    const auto convs =
        tn::readConvLayers(std::string(TESSIM_SOURCE_DIR) + "/workloads/library/mobilenetv2.yaml");
    ASSERT_EQ(convs.size(), 53u);  // 52 convolutions and the classifier
    unsigned grouped = 0;
    std::uint64_t groupedParameters = 0, parameters = 0;
    for (const auto& c : convs) {
        const tn::HybridLayer l = tn::decomposeConv(c, tn::HybridOptions{});
        EXPECT_EQ(l.factorised, c.groups == 1) << c.name;
        parameters += l.denseParameters;
        if (!l.factorised) {
            ++grouped;
            EXPECT_EQ(c.groups, c.channels) << c.name;  // depthwise
            groupedParameters += l.denseParameters;
        }
    }
    EXPECT_EQ(grouped, 17u);
    // Σ 9·C over the depthwise layers: 9 · (32 + 96 + 2·144 + 3·192 + 4·384 + 3·576 + 3·960).
    EXPECT_EQ(groupedParameters, 9u * (32 + 96 + 2 * 144 + 3 * 192 + 4 * 384 + 3 * 576 + 3 * 960));
    EXPECT_EQ(parameters, 3469760u);
}

TEST(TnRuns, RunsOfEqualDescriptionAreSimulatedOnce) {
    auto fc = [](const char* name, const char* target, const char* in) {
        ReproRun run;
        run.name = name;
        run.target = target;
        run.workload = "fc";
        run.sets = {std::string("workload.in=") + in};
        return run;
    };
    std::vector<ReproRun> runs = {fc("a", "k1", "9"), fc("b", "k1", "9"), fc("c", "k1", "10"),
                                  fc("d", "npu", "9")};
    std::vector<std::string> simulated;
    auto runner = [&](const ReproRun& run) {
        simulated.push_back(run.name);
        return Json{{"seconds", run.sets[0] == "workload.in=9" ? 1.0 : 2.0},
                    {"cycles", run.target == "k1" ? 3 : 4},
                    {"energy_j", {{"total", 5.0}}}};
    };
    const auto m = tn::runMeasured(runs, runner, 1);
    EXPECT_EQ(simulated, (std::vector<std::string>{"a", "c", "d"}));
    ASSERT_EQ(m.size(), 4u);
    EXPECT_EQ(m.at("b").seconds, 1.0);
    EXPECT_EQ(m.at("b").cycles, 3u);
    EXPECT_EQ(m.at("c").seconds, 2.0);
    EXPECT_EQ(m.at("d").cycles, 4u);
}

}  // namespace
}  // namespace tessim
