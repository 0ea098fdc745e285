// Shapes and attributes a broken or hostile model can declare (found by fuzzing the reader,
// tests/fuzz/OnnxFuzz.cpp): each MAC node is listed as not simulated with its reason, never turned
// into a layer the conv2d kernel would refuse later, never a division by zero or a wrapped count.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "onnx/InMemoryOnnxGraph.h"
#include "sim/config/ConfigError.h"
#include "workloads/onnx/OnnxGraph.h"
#include "workloads/onnx/OnnxLayers.h"

namespace tessim {
namespace {

constexpr std::int64_t kHuge = std::int64_t{1} << 62;

struct Model : test::InMemoryOnnxGraph {
    Model() : InMemoryOnnxGraph("bad.onnx") {}
    // A node named after its op and place.
    void node(const std::string& op, std::map<std::string, std::vector<std::int64_t>> ints = {},
              const std::string& autoPad = "") {
        InMemoryOnnxGraph::node(op, op + std::to_string(g.nodes.size()), std::move(ints), autoPad);
    }
    // The reason the only node is not simulated; "" if it became a layer.
    std::string reason() const {
        try {
            onnxWorkloadTree(g);
            return "";
        } catch (const config::ConfigError& e) {
            return e.detail();
        }
    }
};

Model conv(std::vector<std::int64_t> x, std::vector<std::int64_t> w, std::vector<std::int64_t> y = {}) {
    Model m;
    m.tensor("x", std::move(x));
    m.tensor("w", std::move(w));
    if (!y.empty())
        m.tensor("y", std::move(y));
    return m;
}

TEST(OnnxLayersBadShapes, AValidConvStillBecomesALayer) {
    Model m = conv({1, 4, 8, 8}, {8, 4, 3, 3});
    m.node("Conv", {{"pads", {1, 1, 1, 1}}});
    EXPECT_EQ(m.reason(), "");
}

// A factorised 1×7 convolution (Inception's) padded only left and right becomes a layer with its
// own kernel rows and columns and padding per dimension; SAME padding is worked out per dimension.
TEST(OnnxLayersBadShapes, RectangularKernelsBecomeLayers) {
    auto layerOf = [](Model& m) {
        const config::Node tree = onnxWorkloadTree(m.g);
        EXPECT_EQ(tree.find("layers")->items().size(), 1u);
        std::map<std::string, std::string> keys;
        for (const char* key : {"k", "kh", "kw", "pad", "pad_h", "pad_w", "stride"})
            if (const config::Node* v = tree.find("layers")->items()[0].find(key))
                keys[key] = v->scalar();
        return keys;
    };
    Model explicitPads = conv({1, 4, 17, 17}, {8, 4, 1, 7});
    explicitPads.node("Conv", {{"pads", {0, 3, 0, 3}}});
    std::map<std::string, std::string> want = {
        {"kh", "1"}, {"kw", "7"}, {"pad_h", "0"}, {"pad_w", "3"}, {"stride", "1"}};
    EXPECT_EQ(layerOf(explicitPads), want);
    Model same = conv({1, 4, 17, 17}, {8, 4, 7, 1});
    same.node("Conv", {}, "SAME_UPPER");
    want = {{"kh", "7"}, {"kw", "1"}, {"pad_h", "3"}, {"pad_w", "0"}, {"stride", "1"}};
    EXPECT_EQ(layerOf(same), want);
    Model square = conv({1, 4, 8, 8}, {8, 4, 3, 3});
    square.node("Conv", {{"pads", {1, 1, 1, 1}}});
    want = {{"k", "3"}, {"pad", "1"}, {"stride", "1"}};
    EXPECT_EQ(layerOf(square), want);
    // A dimension padded more on one side: its input grown by the difference, the smaller padding
    // on both sides (17 + 3 + 2 − 7 + 1 = 16 columns out either way).
    Model lopsided = conv({1, 4, 17, 17}, {8, 4, 1, 7});
    lopsided.node("Conv", {{"pads", {0, 3, 0, 2}}});
    want = {{"kh", "1"}, {"kw", "7"}, {"pad_h", "0"}, {"pad_w", "2"}, {"stride", "1"}};
    EXPECT_EQ(layerOf(lopsided), want);
    EXPECT_EQ(onnxWorkloadTree(lopsided.g).find("layers")->items()[0].find("w")->scalar(), "18");
    // TensorFlow's SAME at stride 2 on an even map pads 0 before and 1 after.
    Model tfSame = conv({1, 4, 8, 8}, {8, 4, 3, 3});
    tfSame.node("Conv", {{"strides", {2, 2}}}, "SAME_UPPER");
    want = {{"k", "3"}, {"pad", "0"}, {"stride", "2"}};
    EXPECT_EQ(layerOf(tfSame), want);
    EXPECT_EQ(onnxWorkloadTree(tfSame.g).find("layers")->items()[0].find("h")->scalar(), "9");
    Model negative = conv({1, 4, 8, 8}, {8, 4, 3, 3});
    negative.node("Conv", {{"pads", {1, -1, 1, 1}}});
    EXPECT_NE(negative.reason().find("negative padding 1, -1, 1, 1"), std::string::npos) << negative.reason();
}

// A dilated convolution runs as its phases: for dilation 2×3 on a 9×10 map, padded 2 and 3, a 3×3
// kernel gives 9×10 outputs in 2·3 phases of ⌈9/2⌉ or ⌊9/2⌋ rows by ⌈10/3⌉ … columns, each an
// undilated 3×3 convolution of the subsampled padded input (padding 0), the same MACs in all; SAME
// padding counts the dilated kernel's span.
TEST(OnnxLayersBadShapes, DilatedConvolutionsRunAsTheirPhases) {
    Model m = conv({1, 4, 9, 10}, {8, 4, 3, 3});
    m.node("Conv", {{"dilations", {2, 3}}, {"pads", {2, 3, 2, 3}}});
    const config::Node tree = onnxWorkloadTree(m.g);
    const auto& layers = tree.find("layers")->items();
    ASSERT_EQ(layers.size(), 6u);
    std::uint64_t outputs = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const config::Node& l = layers[i];
        EXPECT_EQ(l.find("name")->scalar(), "Conv0.phase" + std::to_string(i));
        EXPECT_EQ(l.find("k")->scalar(), "3");
        EXPECT_EQ(l.find("pad")->scalar(), "0");
        const std::uint64_t h = std::stoull(l.find("h")->scalar()), w = std::stoull(l.find("w")->scalar());
        outputs += (h - 2) * (w - 2);
    }
    EXPECT_EQ(layers[0].find("h")->scalar(), "7");  // output rows 0, 2, 4, 6, 8: 5 + 2
    EXPECT_EQ(layers[3].find("h")->scalar(), "6");  // rows 1, 3, 5, 7: 4 + 2
    EXPECT_EQ(layers[0].find("w")->scalar(), "6");  // columns 0, 3, 6, 9: 4 + 2
    EXPECT_EQ(layers[2].find("w")->scalar(), "5");  // columns 2, 5, 8: 3 + 2
    EXPECT_EQ(outputs, 9u * 10u);
    Model same = conv({1, 4, 9, 10}, {8, 4, 3, 3});
    same.node("Conv", {{"dilations", {2, 2}}}, "SAME_UPPER");
    EXPECT_EQ(onnxWorkloadTree(same.g).find("layers")->items().size(), 4u);
    // Beside a stride s, the phases are the output classes mod d / gcd(s, d), at stride s / gcd:
    // dilation 2, stride 2 on 9×10 (3×3 outputs) is one phase, the input subsampled by 2 (5×5) at
    // stride 1; dilation 3, stride 2 (2×2 outputs) four phases of one output each, a 3×3 input at
    // stride 2.
    const auto outputsOf = [](const config::Node& tree) {
        std::uint64_t n = 0;
        for (const config::Node& l : tree.find("layers")->items()) {
            const auto stride = [&](const char* axis) {
                return std::stoull((l.find(axis) ? l.find(axis) : l.find("stride"))->scalar());
            };
            n += ((std::stoull(l.find("h")->scalar()) - 3) / stride("stride_h") + 1) *
                 ((std::stoull(l.find("w")->scalar()) - 3) / stride("stride_w") + 1);
        }
        return n;
    };
    Model strided = conv({1, 4, 9, 10}, {8, 4, 3, 3});
    strided.node("Conv", {{"dilations", {2, 2}}, {"strides", {2, 2}}});
    const config::Node one = onnxWorkloadTree(strided.g);
    ASSERT_EQ(one.find("layers")->items().size(), 1u);
    EXPECT_EQ(one.find("layers")->items()[0].find("h")->scalar(), "5");
    EXPECT_EQ(one.find("layers")->items()[0].find("stride")->scalar(), "1");
    EXPECT_EQ(outputsOf(one), 3u * 3u);
    Model coprime = conv({1, 4, 9, 10}, {8, 4, 3, 3});
    coprime.node("Conv", {{"dilations", {3, 3}}, {"strides", {2, 2}}});
    const config::Node four = onnxWorkloadTree(coprime.g);
    ASSERT_EQ(four.find("layers")->items().size(), 4u);
    EXPECT_EQ(four.find("layers")->items()[0].find("stride")->scalar(), "2");
    EXPECT_EQ(outputsOf(four), 2u * 2u);
    // Dilation 2 × 3 at stride 2 (3 × 2 outputs): the phases' strides differ, 1 in H (one class of
    // rows, the input subsampled by 2) and 2 in W (three classes of columns, two with outputs).
    Model mixed = conv({1, 4, 9, 10}, {8, 4, 3, 3});
    mixed.node("Conv", {{"dilations", {2, 3}}, {"strides", {2, 2}}});
    const config::Node two = onnxWorkloadTree(mixed.g);
    ASSERT_EQ(two.find("layers")->items().size(), 2u) << mixed.reason();
    for (const config::Node& l : two.find("layers")->items()) {
        EXPECT_EQ(l.find("stride_h")->scalar(), "1");
        EXPECT_EQ(l.find("stride_w")->scalar(), "2");
    }
    EXPECT_EQ(outputsOf(two), 3u * 2u);
}

TEST(OnnxLayersBadShapes, StrideZeroOrNegativeIsNotDividedBy) {
    for (std::int64_t s : {std::int64_t{0}, std::int64_t{-3}}) {
        for (const char* autoPad : {"", "SAME_UPPER", "SAME_LOWER"}) {
            Model m = conv({1, 4, 8, 8}, {8, 4, 3, 3});
            m.node("Conv", {{"strides", {s, s}}}, autoPad);
            EXPECT_NE(m.reason().find(fmt::format("strides {}×{}", s, s)), std::string::npos) << m.reason();
        }
    }
}

TEST(OnnxLayersBadShapes, GroupsMustMatchTheWeights) {
    for (std::int64_t group : {std::int64_t{0}, std::int64_t{-4}, std::int64_t{3}, kHuge}) {
        Model m = conv({1, 4, 8, 8}, {4, 1, 3, 3});
        m.node("Conv", {{"group", {group}}});
        EXPECT_NE(m.reason().find("do not match group"), std::string::npos) << group << ": " << m.reason();
    }
    Model ungrouped = conv({1, 4, 8, 8}, {4, 1, 3, 3});  // depthwise weights, group left at 1
    ungrouped.node("Conv");
    EXPECT_NE(ungrouped.reason().find("do not match group 1"), std::string::npos) << ungrouped.reason();
}

TEST(OnnxLayersBadShapes, EmptyZeroAndNegativeSizesAreRefused) {
    Model empty = conv({1, 0, 8, 8}, {4, 0, 3, 3});
    empty.node("Conv");
    EXPECT_NE(empty.reason().find("an empty tensor"), std::string::npos) << empty.reason();
    Model kernel = conv({1, 4, 8, 8}, {4, 4, 0, 0});
    kernel.node("Conv");
    EXPECT_NE(kernel.reason().find("kernel 0"), std::string::npos) << kernel.reason();
    Model pads = conv({1, 4, 8, 8}, {4, 4, 3, 3});
    pads.node("Conv", {{"pads", {-1, -1, -1, -1}}});
    EXPECT_NE(pads.reason().find("negative padding"), std::string::npos) << pads.reason();
    Model negative = conv({1, -4, 8, 8}, {4, -4, 3, 3});  // an unknown dimension
    negative.node("Conv");
    EXPECT_NE(negative.reason().find("known shapes"), std::string::npos) << negative.reason();
}

TEST(OnnxLayersBadShapes, AttributesMustDescribeTheWeightsKernel) {
    Model length = conv({1, 4, 8, 8}, {4, 4, 3, 3});
    length.node("Conv", {{"dilations", {1}}});
    EXPECT_NE(length.reason().find("kernel_shape"), std::string::npos) << length.reason();
    Model kernel = conv({1, 4, 8, 8}, {4, 4, 3, 3});
    kernel.node("Conv", {{"kernel_shape", {3, 3, 3}}});
    EXPECT_NE(kernel.reason().find("kernel_shape"), std::string::npos) << kernel.reason();
}

// Huge dims: no signed overflow on the way, and the not-simulated FLOPs saturate instead of
// wrapping to a small number.
TEST(OnnxLayersBadShapes, HugeDimsSaturateTheirCounts) {
    Model m = conv({1, kHuge, kHuge, kHuge}, {kHuge, kHuge, 3, 3}, {1, kHuge, kHuge, kHuge});
    m.node("Conv", {}, "SAME_UPPER");
    m.node("Relu");  // a second node that is not simulated, so the tree is built: add a layer
    m.tensor("a", {4, 8});
    m.tensor("b", {8, 2});
    OnnxNode mm;
    mm.op = "MatMul";
    mm.name = "mm";
    mm.inputs = {"a", "b"};
    mm.outputs = {"ab"};
    m.g.nodes.push_back(mm);
    const config::Node tree = onnxWorkloadTree(m.g);
    const auto& left = tree.find("not_simulated")->items();
    ASSERT_EQ(left.size(), 2u);
    EXPECT_EQ(left[0].find("flops")->scalar(), std::to_string(std::numeric_limits<std::uint64_t>::max()));
    EXPECT_EQ(left[0].find("bytes")->scalar(), std::to_string(std::numeric_limits<std::uint64_t>::max()));
    EXPECT_NE(left[0].find("reason")->scalar().find("above 65536"), std::string::npos);
    ASSERT_EQ(tree.find("layers")->items().size(), 1u);
}

TEST(OnnxLayersBadShapes, MatrixProductsNeedEqualInnerDimensions) {
    Model gemm;
    gemm.tensor("x", {4, 8});
    gemm.tensor("w", {9, 2});
    gemm.node("Gemm");
    EXPECT_NE(gemm.reason().find("inner dimensions differ (8 and 9)"), std::string::npos) << gemm.reason();
    Model matmul;
    matmul.tensor("x", {2, 4, 8});
    matmul.tensor("w", {7, 2});
    matmul.node("MatMul");
    EXPECT_NE(matmul.reason().find("inner dimensions differ (8 and 7)"), std::string::npos)
        << matmul.reason();
    Model empty;
    empty.tensor("x", {0, 8});
    empty.tensor("w", {8, 2});
    empty.node("Gemm");
    EXPECT_NE(empty.reason().find("an empty tensor"), std::string::npos) << empty.reason();
}

TEST(OnnxLayersBadShapes, SaturatingProductStopsAtTheCeiling) {
    const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
    EXPECT_EQ(saturatingProduct(0, max), 0u);
    EXPECT_EQ(saturatingProduct(3, 5), 15u);
    EXPECT_EQ(saturatingProduct(std::uint64_t{1} << 32, std::uint64_t{1} << 32), max);
    EXPECT_EQ(saturatingProduct(max, 1), max);
}

}  // namespace
}  // namespace tessim
