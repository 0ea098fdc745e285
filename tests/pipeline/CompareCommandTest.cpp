// `tessim compare`: one model on several chips. Each chip's totals are those of its own `tessim
// run`; layers line up by name with the fastest chip named; a TARGET: set reaches that chip
// only; a chip that cannot run the model says why, and none running it is exit 2.
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"

namespace tessim {
namespace {

using Json = nlohmann::json;

struct CompareNetwork {
    CompareNetwork() : path("/tmp/tessim-compare-net-" + std::to_string(::getpid()) + ".yaml") {
        std::ofstream(path)
            << "kernel: conv2d\ndtype: i8\nlayers:\n"
               "  - {name: stem, h: 16, w: 16, channels: 3, filters: 8, k: 3, stride: 2, pad: 1}\n"
               "  - {name: head, h: 8, w: 8, channels: 8, filters: 16, k: 1}\n";
    }
    ~CompareNetwork() { std::remove(path.c_str()); }
    std::string path;
};

Json runCompareJson(const std::string& args) {
    const auto r = test::runTessim(args);
    EXPECT_EQ(r.exitCode, 0) << args << ": " << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json();
}

TEST(CompareCommand, EachChipsTotalsAreItsOwnRunsAndTheBestIsTheFastest) {
    const CompareNetwork net;
    const Json c =
        runCompareJson("compare --workload " + net.path + " --targets k1,ftm2000,npu --jobs 2 --format json");
    ASSERT_FALSE(c.is_null());
    EXPECT_EQ(c["schema"], "tessim.compare/1");
    std::string best;
    double least = 1e9;
    for (const std::string t : {"k1", "ftm2000", "npu"}) {
        const Json r = runCompareJson("run --target " + t + " --workload " + net.path + " --format json");
        ASSERT_FALSE(r.is_null());
        const Json& chip = c["chips"][t];
        EXPECT_EQ(chip["seconds"], r["seconds"]) << t;
        EXPECT_EQ(chip["energy_j"], r["energy_j"]["total"]) << t;
        EXPECT_EQ(chip["compute_bound_s"], r["bounds"]["compute_s"]) << t;
        EXPECT_GE(chip["seconds"].get<double>(), chip["compute_bound_s"].get<double>()) << t;
        if (r["seconds"].get<double>() < least) {
            least = r["seconds"].get<double>();
            best = t;
        }
        for (std::size_t i = 0; i < 2; ++i)
            EXPECT_EQ(c["layers"][i]["chips"][t]["seconds"], r["layers"][i]["seconds"])
                << t << " layer " << i;
    }
    EXPECT_EQ(c["best"], best);
    ASSERT_EQ(c["layers"].size(), 2u);
    EXPECT_EQ(c["layers"][0]["name"], "stem");
    for (const auto& l : c["layers"]) {
        std::string fastest;
        double s = 1e9;
        for (auto it = l["chips"].begin(); it != l["chips"].end(); ++it)
            if (it.value()["seconds"].get<double>() < s) {
                s = it.value()["seconds"].get<double>();
                fastest = it.key();
            }
        EXPECT_EQ(l["best"], fastest) << l["name"];
    }
    // Markdown and CSV carry the same chips.
    const auto md = test::runTessim("compare --workload " + net.path + " --targets k1,npu");
    EXPECT_EQ(md.exitCode, 0) << md.err;
    EXPECT_NE(md.out.find("| k1 | rvv-im2col |"), std::string::npos) << md.out;
    EXPECT_NE(md.out.find("| stem |"), std::string::npos) << md.out;
    const auto csv = test::runTessim("compare --workload " + net.path + " --targets k1,npu --format csv");
    EXPECT_EQ(csv.exitCode, 0) << csv.err;
    EXPECT_EQ(csv.out.rfind("layer,chip,seconds,", 0), 0u) << csv.out;
    EXPECT_NE(csv.out.find("\nstem,npu,"), std::string::npos) << csv.out;
}

TEST(CompareCommand, PlotIsAPngOrExitTwoWithNothingOnStdout) {
    if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no matplotlib for /usr/bin/python3";
    const CompareNetwork net;
    const std::string png = "/tmp/tessim-compare-" + std::to_string(::getpid()) + ".png";
    const auto drawn = test::runTessim("compare --workload " + net.path + " --targets k1,npu --plot " + png);
    EXPECT_EQ(drawn.exitCode, 0) << drawn.err;
    EXPECT_FALSE(drawn.out.empty());
    std::ifstream in(png, std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    std::remove(png.c_str());
    const auto refused =
        test::runTessim("compare --workload " + net.path + " --targets k1,npu --plot /nonexistent-dir/x.png");
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.out.empty()) << refused.out;
    EXPECT_NE(refused.err.find("cannot write /nonexistent-dir/x.png"), std::string::npos) << refused.err;
}

TEST(CompareCommand, APrefixedSetReachesThatChipOnly) {
    const CompareNetwork net;
    const Json c = runCompareJson("compare --workload " + net.path +
                                  " --targets k1,npu --set k1:plan.threads=1 --format json");
    const Json one =
        runCompareJson("run --target k1 --workload " + net.path + " --set plan.threads=1 --format json");
    const Json npu = runCompareJson("run --target npu --workload " + net.path + " --format json");
    ASSERT_FALSE(c.is_null());
    EXPECT_EQ(c["chips"]["k1"]["seconds"], one["seconds"]);
    EXPECT_EQ(c["chips"]["npu"]["seconds"], npu["seconds"]);
}

// Each chip says the types its layers ran in: the k1 runs this INT8 network in f32 unless its
// plan says i8; the npu runs it in i8.
TEST(CompareCommand, EachChipSaysTheTypeItsLayersRanIn) {
    const CompareNetwork net;
    const Json f32 = runCompareJson("compare --workload " + net.path + " --targets k1,npu --format json");
    const Json i8 = runCompareJson("compare --workload " + net.path +
                                   " --targets k1,npu --set k1:plan.dtype=i8 --format json");
    ASSERT_FALSE(f32.is_null());
    ASSERT_FALSE(i8.is_null());
    EXPECT_EQ(f32["chips"]["k1"]["dtypes"], Json::array({"f32"}));
    EXPECT_EQ(i8["chips"]["k1"]["dtypes"], Json::array({"i8"}));
    EXPECT_EQ(i8["chips"]["npu"]["dtypes"], Json::array({"i8"}));
    const auto md =
        test::runTessim("compare --workload " + net.path + " --targets k1,npu --set k1:plan.dtype=i8");
    EXPECT_NE(md.out.find(" | rvv-im2col | i8 | "), std::string::npos) << md.out;
}

TEST(CompareCommand, AChipThatCannotRunItSaysWhyAndNoneRunningItIsExitTwo) {
    const auto some =
        test::runTessim("compare --workload resnet18-layer1 --targets npu,minimal --format json");
    ASSERT_EQ(some.exitCode, 0) << some.err;
    const Json c = Json::parse(some.out);
    EXPECT_NE(c["chips"]["minimal"]["error"].get<std::string>().find("conv2d cannot run on target 'minimal'"),
              std::string::npos)
        << c["chips"]["minimal"];
    EXPECT_EQ(c["best"], "npu");
    // One layer: a report of layers on one chip (ftm2000 runs it as a network of one) and none on
    // another is no per-layer table, only the totals.
    const Json single =
        runCompareJson("compare --workload resnet18-layer1 --targets k1,ftm2000 --set workload.h=14 --set "
                       "workload.w=14 --format json");
    ASSERT_FALSE(single.is_null());
    EXPECT_TRUE(single["layers"].empty()) << single["layers"];
    EXPECT_TRUE(single["chips"]["k1"].contains("seconds"));
    EXPECT_TRUE(single["chips"]["ftm2000"].contains("seconds"));
    const auto none = test::runTessim("compare --workload resnet18-layer1 --targets minimal,minimal-8core");
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_TRUE(none.out.empty()) << none.out;
    EXPECT_NE(none.err.find("no chip runs the workload"), std::string::npos) << none.err;
    EXPECT_NE(none.err.find("minimal-8core: "), std::string::npos) << none.err;
}

}  // namespace
}  // namespace tessim
