// Windows that differ between H and W in ONNX models. A pool's strides per axis become its layer's
// stride_h and stride_w. The `axes` model (tests/onnx/make_models.py) — 1×7 and
// 7×1 Convs (Inception's factorised layers), a Conv at strides [2, 1], a MaxPool 3×2 at strides
// [1, 2], a Conv dilated [2, 3] at strides [2, 2] — runs on every chip with every Conv, pool and
// element-wise node simulated and checked, each output map the one ONNX's shape inference gives;
// on ftm2000 also with every Conv by the shuffle.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/ProcessRunner.h"
#include "onnx/InMemoryOnnxGraph.h"
#include "workloads/onnx/OnnxGraph.h"
#include "workloads/onnx/OnnxLayers.h"

namespace tessim {
namespace {

using Json = nlohmann::json;

std::string axesModel() {
    return std::string(TESSIM_ONNX_MODELS) + "/axes.onnx";
}

// A pool's strides per axis become its layer's stride_h and stride_w (one stride where they agree).
TEST(OnnxLayers, PoolStridesPerAxisBecomeTheLayersStrideHAndStrideW) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {1, 4, 9, 9});
    m.tensor("c", {8, 4, 3, 3});
    m.tensor("z", {1, 8, 7, 7});
    m.g.nodes.push_back(OnnxNode{"Conv", "conv", {"x", "c"}, {"z"}, {}, {}, {}});  // a MAC layer to run
    m.tensor("y", {1, 8, 3, 6});
    m.node("MaxPool", "tall", {{"kernel_shape", {3, 2}}, {"strides", {2, 1}}});
    m.node("AveragePool", "even", {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}});
    m.tensor("v", {1, 8, 3, 3});
    m.g.nodes.back().outputs = {"v"};
    for (std::size_t i = 1; i < m.g.nodes.size(); ++i)
        m.g.nodes[i].inputs = {"z"};
    const config::Node tree = onnxWorkloadTree(m.g);
    const auto& layers = tree.find("layers")->items();
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[1].find("stride_h")->scalar(), "2");
    EXPECT_EQ(layers[1].find("stride_w")->scalar(), "1");
    EXPECT_EQ(layers[1].find("stride"), nullptr);
    EXPECT_EQ(layers[2].find("stride")->scalar(), "2");
    EXPECT_EQ(layers[2].find("stride_h"), nullptr);
}

TEST(OnnxAxesModel, EveryLayerRunsCheckedOnEveryChipWithOnnxsOutputShapes) {
    if (!onnxReaderAvailable())
        GTEST_SKIP() << "tessim was built without ONNX (libonnx-dev, libprotobuf-dev)";
    if (!std::filesystem::exists(axesModel()))
        GTEST_SKIP() << "no ONNX test models in " << TESSIM_ONNX_MODELS << " (needs python3-onnx)";
    // Output elements by ONNX's shape inference (axes.shapes.json and the pools' arithmetic):
    // conv1x7, relu1x7, conv7x1 16×17×17 each; tall 24×9×17; pool 24×7×8 ((9 − 3)/1 + 1 rows,
    // (17 − 2)/2 + 1 columns); dilated 16×4×4; avgpool 16; fc 10.
    const std::uint64_t outputs = 3 * 16 * 17 * 17 + 24 * 9 * 17 + 24 * 7 * 8 + 16 * 4 * 4 + 16 + 10;
    // ftm2000 twice: each Conv by the lowering its estimate picks, then by the shuffle alone.
    for (const std::string target : {"k1", "ftm2000", "ftm2000 --plan shuffle", "npu"}) {
        SCOPED_TRACE(target);
        const auto r = test::runTessim("run --target " + target + " --workload " + axesModel() +
                                       " --functional --format json");
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const Json j = Json::parse(r.out);
        EXPECT_EQ(j["functional"]["mismatches"], 0) << j["functional"];
        EXPECT_EQ(j["functional"]["elements"], outputs);
        // Only the Flatten (a view) is left out.
        ASSERT_EQ(j["not_simulated"].size(), 1u) << j["not_simulated"];
        EXPECT_EQ(j["not_simulated"][0]["op"], "Flatten");
        std::map<std::string, Json> layers;
        for (const auto& l : j["layers"]) {
            layers[l["name"].get<std::string>()] = l;
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        }
        // The strided Conv, the pool and the dilated Conv's phases (1 in H: dilation 2 and stride 2
        // share their factor; 2 in W) keep a stride per axis; the 1×7 kernel its shape.
        for (const auto& [name, h, w] :
             {std::tuple{"tall", 2, 1}, std::tuple{"pool", 1, 2}, std::tuple{"dilated.phase0", 1, 2},
              std::tuple{"dilated.phase1", 1, 2}}) {
            ASSERT_EQ(layers.count(name), 1u) << name;
            EXPECT_EQ(layers[name]["stride_h"], h) << name;
            EXPECT_EQ(layers[name]["stride_w"], w) << name;
        }
        EXPECT_EQ(layers["conv1x7"]["kh"], 1);
        EXPECT_EQ(layers["conv1x7"]["kw"], 7);
        if (target == "ftm2000 --plan shuffle") {
            for (const char* conv : {"conv1x7", "conv7x1", "tall", "dilated.phase0"})
                EXPECT_EQ(layers[conv]["strategy"], "shuffle") << conv;
        }
    }
}

}  // namespace
}  // namespace tessim
