// An ONNX Softmax becomes a K1 Softmax row where its axis names each pixel's channels: opset 13
// reduces over `axis` alone (C of N×C×H×W, or a tensor's last axis), earlier opsets over all the
// axes from `axis` on (each image's, or row's, contiguous run); where the model's opset is not
// known, only the axes both readings agree on. Any other axis is listed with the reason.
#include <string>

#include <gtest/gtest.h>

#include "onnx/InMemoryOnnxGraph.h"
#include "sim/config/Node.h"
#include "workloads/onnx/OnnxLayers.h"

namespace tessim {
namespace {

struct Mapped {
    std::string h, w, channels, reason;
};

// A model of one Conv (a layer to run) and a Softmax over `dims` with `axis` (none: the default).
Mapped softmax(std::int64_t opset, std::vector<std::int64_t> dims, std::vector<std::int64_t> axis) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.g.opset = opset;
    m.tensor("x", {1, 4, 6, 6});
    m.tensor("c", {8, 4, 3, 3});
    m.tensor("z", {1, 8, 4, 4});
    m.g.nodes.push_back(OnnxNode{"Conv", "conv", {"x", "c"}, {"z"}, {}, {}, {}});
    m.tensor("s", dims);
    m.tensor("p", dims);
    OnnxNode n{"Softmax", "softmax", {"s"}, {"p"}, {}, {}, {}};
    if (!axis.empty())
        n.ints["axis"] = axis;
    m.g.nodes.push_back(n);
    const config::Node tree = onnxWorkloadTree(m.g);
    Mapped r;
    for (const auto& l : tree.find("layers")->items())
        if (l.find("name")->scalar() == "softmax") {
            r.h = l.find("h")->scalar();
            r.w = l.find("w")->scalar();
            r.channels = l.find("channels")->scalar();
        }
    for (const auto& l : tree.find("not_simulated")->items())
        if (l.find("node")->scalar() == "softmax")
            r.reason = l.find("reason")->scalar();
    return r;
}

TEST(OnnxSoftmax, Opset13ReducesOverTheChannelsOfEachPixelOrTheLastAxis) {
    const Mapped nchw = softmax(13, {2, 8, 5, 6}, {1});
    EXPECT_EQ(nchw.h, "10");  // N·H rows of W pixels, C channels each
    EXPECT_EQ(nchw.w, "6");
    EXPECT_EQ(nchw.channels, "8");
    const Mapped last = softmax(13, {2, 3, 4}, {});
    EXPECT_EQ(last.h, "6");
    EXPECT_EQ(last.channels, "4");
    EXPECT_NE(softmax(13, {2, 3, 4}, {1}).reason.find("over axis 1 of a rank-3 tensor (opset 13)"),
              std::string::npos);
    EXPECT_NE(softmax(13, {2, 8, 5, 6}, {3}).reason.find("(opset 13)"), std::string::npos);  // W: strided
}

TEST(OnnxSoftmax, EarlierOpsetsReduceOverEachRowsRunFromTheAxisOn) {
    const Mapped image = softmax(11, {2, 8, 5, 6}, {});  // default axis 1: each image's 240 elements
    EXPECT_EQ(image.h, "2");
    EXPECT_EQ(image.w, "1");
    EXPECT_EQ(image.channels, "240");
    const Mapped rows = softmax(11, {2, 3, 4}, {1});
    EXPECT_EQ(rows.h, "2");
    EXPECT_EQ(rows.channels, "12");
    EXPECT_NE(softmax(11, {2, 8, 5, 6}, {2}).reason.find("(opset 11)"),
              std::string::npos);  // H·W: not a run in NHWC
    EXPECT_NE(softmax(11, {1, 300, 16, 16}, {1}).reason.find("above the vector layers' 65535 channels"),
              std::string::npos);
}

TEST(OnnxSoftmax, WithoutAnOpsetOnlyTheAxesBothReadingsAgreeOnRun) {
    EXPECT_EQ(softmax(0, {64, 32}, {}).channels, "32");
    EXPECT_EQ(softmax(0, {2, 3, 4}, {-1}).channels, "4");
    EXPECT_EQ(softmax(0, {5, 10, 1, 1}, {1}).h, "5");
    EXPECT_NE(softmax(0, {2, 8, 5, 6}, {1}).reason.find("opset is not known"), std::string::npos);
    EXPECT_NE(softmax(0, {2, 3, 4}, {}).reason.find("opset is not known"), std::string::npos);
}

}  // namespace
}  // namespace tessim
