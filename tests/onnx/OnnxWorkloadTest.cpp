// ONNX models as workloads (`tessim run --target npu --workload model.onnx`): the models are made
// by tests/onnx/make_models.py at build time (build/onnx-models/), each with the shapes ONNX's own
// shape inference gives its Conv, Gemm and MatMul nodes (<model>.shapes.json). Layers must equal
// those shapes; operators the MAC array does not run are listed under `not_simulated` with their
// FLOPs and bytes; a broken file is refused with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "common/ArrayOnlyNpu.h"
#include "common/DocsBuild.h"
#include "common/ProcessRunner.h"
#include "onnx/InMemoryOnnxGraph.h"
#include "sim/config/ConfigError.h"
#include "workloads/conv/RvvVectorLayers.h"
#include "workloads/onnx/OnnxGraph.h"
#include "workloads/onnx/OnnxLayers.h"

namespace tessim {
namespace {

using Json = nlohmann::json;

std::string model(const std::string& name) {
    return std::string(TESSIM_ONNX_MODELS) + "/" + name;
}

#define REQUIRE_ONNX_MODELS()                                                                                \
    do {                                                                                                     \
        if (!onnxReaderAvailable())                                                                          \
            GTEST_SKIP() << "tessim was built without ONNX (libonnx-dev, libprotobuf-dev)";                  \
        if (!std::filesystem::exists(model("small.onnx")))                                                   \
            GTEST_SKIP() << "no ONNX test models in " << TESSIM_ONNX_MODELS << " (needs python3-onnx)";      \
    } while (0)

Json runJson(const std::string& args) {
    const auto r = test::runTessim(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? Json::parse(r.out) : Json::object();
}

Json readJson(const std::string& path) {
    std::ifstream in(path);
    return Json::parse(in);
}

std::uint64_t product(const Json& dims, std::size_t from, std::size_t to) {
    std::uint64_t n = 1;
    for (std::size_t i = from; i < to; ++i)
        n *= dims[i].get<std::uint64_t>();
    return n;
}

bool macLayer(const Json& l) {
    const std::string op = l.value("op", std::string());
    return op == "Conv" || op == "Gemm" || op == "MatMul";
}

// Every Conv, Gemm and MatMul the model has is a layer with its shapes; a dilated Conv (of
// `small`) runs as its dilation's phases, `<node>.phase<i>`, undilated convolutions of the
// subsampled input whose MACs add up to the node's.
void expectLayersEqualModel(const std::string& name) {
    const Json report = runJson("run --target npu --workload " + model(name + ".onnx"));
    const Json shapes = readJson(model(name + ".shapes.json"));
    std::map<std::string, Json> layers;
    std::map<std::string, std::vector<Json>> phases;  // by node
    for (const auto& l : report["workload"]["config"]["layers"]) {
        if (!macLayer(l))
            continue;
        const std::string layer = l["name"].get<std::string>();
        if (const auto at = layer.find(".phase"); at != std::string::npos)
            phases[layer.substr(0, at)].push_back(l);
        else
            layers[layer] = l;
    }
    std::size_t simulated = 0;
    for (const auto& s : shapes) {
        const std::string node = s["name"].get<std::string>();
        const Json& dilations = s["dilations"];
        const bool dilated = dilations != Json::array({1, 1});
        ASSERT_EQ(layers.count(node), dilated ? 0u : 1u) << name << ": " << node;
        if (dilated) {
            const auto& out = s["output"];
            ASSERT_EQ(phases[node].size(), dilations[0].get<std::size_t>() * dilations[1].get<std::size_t>());
            std::uint64_t macs = 0;
            for (const auto& p : phases[node]) {
                EXPECT_EQ(p["k"], s["weight"][2]);
                EXPECT_EQ(p["pad"], 0);
                macs += p["macs"].get<std::uint64_t>();
            }
            EXPECT_EQ(macs, out[1].get<std::uint64_t>() * out[2].get<std::uint64_t>() *
                                out[3].get<std::uint64_t>() * s["weight"][1].get<std::uint64_t>() *
                                s["weight"][2].get<std::uint64_t>() * s["weight"][3].get<std::uint64_t>());
            continue;
        }
        ++simulated;
        const Json& l = layers[node];
        const Json &in = s["input"], &w = s["weight"], &out = s["output"];
        const std::string op = s["op"].get<std::string>();
        EXPECT_EQ(l["op"], op) << node;
        if (op == "Conv") {
            EXPECT_EQ(l["channels"], in[1]) << node;
            EXPECT_EQ(l["h"], in[2]) << node;
            EXPECT_EQ(l["w"], in[3]) << node;
            EXPECT_EQ(l["filters"], w[0]) << node;
            EXPECT_EQ(l["k"], w[2]) << node;
            EXPECT_EQ(l["filters"], out[1]) << node;
            EXPECT_EQ(l["out_h"], out[2]) << node;
            EXPECT_EQ(l["out_w"], out[3]) << node;
            EXPECT_EQ(l.value("groups", 1), s["group"].get<int>()) << node;
            EXPECT_EQ(l["channels"].get<std::uint64_t>(),
                      w[1].get<std::uint64_t>() * s["group"].get<std::uint64_t>());
        } else {  // Gemm (weights N×K, transB) or MatMul (weights K×N): M rows of K → N
            const std::uint64_t k = in[in.size() - 1].get<std::uint64_t>();
            EXPECT_EQ(l["channels"].get<std::uint64_t>(), k) << node;
            EXPECT_EQ(l["h"].get<std::uint64_t>(), product(in, 0, in.size() - 1)) << node;
            EXPECT_EQ(l["out_h"].get<std::uint64_t>(), product(out, 0, out.size() - 1)) << node;
            EXPECT_EQ(l["filters"], out[out.size() - 1]) << node;
            EXPECT_EQ(l["macs"].get<std::uint64_t>(),
                      product(in, 0, in.size()) * out[out.size() - 1].get<std::uint64_t>());
        }
    }
    EXPECT_EQ(layers.size(), simulated);
    EXPECT_GE(report["seconds"].get<double>(), report["bounds"]["compute_s"].get<double>());
}

TEST(OnnxWorkload, ResNet18LayerShapesEqualTheModels) {
    REQUIRE_ONNX_MODELS();
    expectLayersEqualModel("resnet18");
}

TEST(OnnxWorkload, MobileNetV2LayerShapesEqualTheModels) {
    REQUIRE_ONNX_MODELS();
    expectLayersEqualModel("mobilenetv2");
}

TEST(OnnxWorkload, SmallModelLayerShapesEqualTheModels) {
    REQUIRE_ONNX_MODELS();
    expectLayersEqualModel("small");
}

// The ONNX ResNet-18's 20 convolutions are the library's resnet18 list, shape for shape.
TEST(OnnxWorkload, ResNet18ConvolutionsEqualTheLibraryList) {
    REQUIRE_ONNX_MODELS();
    const Json onnx = runJson("run --target npu --workload " + model("resnet18.onnx"));
    const Json yaml = runJson("run --target npu --workload resnet18");
    const auto& b = yaml["workload"]["config"]["layers"];
    Json a = Json::array();  // the model's MAC layers; its element-wise and pooling layers run too
    for (const auto& l : onnx["workload"]["config"]["layers"])
        if (macLayer(l))
            a.push_back(l);
    ASSERT_EQ(a.size(), b.size() + 1);  // + the fc Gemm
    std::map<std::string, Json> byName;
    for (const auto& l : a)
        byName[l["name"].get<std::string>()] = l;
    for (const auto& l : b) {
        const Json& o = byName[l["name"].get<std::string>()];
        for (const char* key :
             {"h", "w", "channels", "filters", "k", "stride", "pad", "out_h", "out_w", "macs"})
            EXPECT_EQ(o[key], l[key]) << l["name"] << " " << key;
    }
    EXPECT_EQ(byName["fc"]["macs"].get<std::uint64_t>(), 512u * 1000u);
}

TEST(OnnxWorkload, UnsupportedOpsStillRunAndAreListedWithFlopsAndBytes) {
    REQUIRE_ONNX_MODELS();
    const Json r = runJson("run --target npu --workload " + model("small.onnx"));
    ASSERT_TRUE(r.contains("not_simulated")) << r.dump();
    std::map<std::string, Json> left;
    for (const auto& n : r["not_simulated"])
        left[n["node"].get<std::string>()] = n;
    ASSERT_EQ(left.size(), 2u) << r["not_simulated"].dump();
    // relu runs on the npu's vector processor: 16×16×16 outputs, one op each, in INT8.
    const Json& relu = r["layers"][1];
    EXPECT_EQ(relu["op"], "Relu");
    EXPECT_EQ(relu["flops"].get<std::uint64_t>(), 4096u);
    EXPECT_EQ(relu["dtype"], "i8");
    EXPECT_EQ(relu["ddr_read_bytes"].get<std::uint64_t>(), 4096u);
    EXPECT_EQ(relu["ddr_write_bytes"].get<std::uint64_t>(), 4096u);
    EXPECT_EQ(left["reshape"]["flops"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(left["reshape"]["bytes"].get<std::uint64_t>(), 0u);  // a view: no data moves
    EXPECT_EQ(left["softmax"]["flops"].get<std::uint64_t>(), 3u * 64 * 32);
    // The Markdown report has a section for them, the CSV a row per field.
    const auto md = test::runTessim("run --target npu --workload " + model("small.onnx") + " --format md");
    EXPECT_NE(md.out.find("## Not simulated"), std::string::npos);
    EXPECT_NE(md.out.find("| Softmax | softmax | 6144 |"), std::string::npos) << md.out;
    const auto csv = test::runTessim("run --target npu --workload " + model("small.onnx") + " --format csv");
    EXPECT_NE(csv.out.find("].op,Softmax\n"), std::string::npos);
}

// On the npu the array runs the convolutions and the fc Gemm, its vector processor (vpu) the
// Relus, Adds and pools — in INT8 where integer arithmetic is the op (max, add), in f16 where it
// takes a fraction (the average); only the Flatten (a view) is left out. Every layer at or above
// its bound, the layers summing to the run, the vector layers' DDR bytes counted.
TEST(OnnxWorkload, ResNet18RunsWholeOnTheNpuWithItsVectorProcessor) {
    REQUIRE_ONNX_MODELS();
    const Json r = runJson("run --target npu --workload " + model("resnet18.onnx"));
    ASSERT_EQ(r["not_simulated"].size(), 1u) << r["not_simulated"].dump();
    EXPECT_EQ(r["not_simulated"][0]["op"], "Flatten");
    std::map<std::string, int> count;
    double sum = 0.0;
    for (const auto& l : r["layers"]) {
        const std::string op = l["op"].get<std::string>();
        ++count[op];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        sum += l["seconds"].get<double>();
        if (op == "GlobalAveragePool") {
            EXPECT_EQ(l["flops"].get<std::uint64_t>(), 512u * 7 * 7);
            EXPECT_EQ(l["dtype"], "f16");
            EXPECT_EQ(l["model_dtype"], "i8");
        }
        if (op == "MaxPool") {  // 64×56×56 outputs, a 3×3 window each
            EXPECT_EQ(l["flops"].get<std::uint64_t>(), 9u * 64 * 56 * 56);
            EXPECT_EQ(l["dtype"], "i8");
            // The input once, and the halo rows of its blocks of output rows again.
            EXPECT_GE(l["ddr_read_bytes"].get<std::uint64_t>(), 64u * 112 * 112);
            EXPECT_LE(l["ddr_read_bytes"].get<std::uint64_t>(), 64u * 112 * 112 * 105 / 100);
        }
        if (op == "Relu" || op == "Add") {
            EXPECT_EQ(l["dtype"], "i8");
        }
    }
    EXPECT_EQ(count["Relu"], 17);
    EXPECT_EQ(count["Add"], 8);
    EXPECT_EQ(count["MaxPool"], 1);
    EXPECT_EQ(count["GlobalAveragePool"], 1);
    EXPECT_EQ(count["Conv"] + count["Gemm"], 21);
    EXPECT_NEAR(sum, r["seconds"].get<double>(), 1e-9);
    EXPECT_GT(r["engines"]["vpu"]["work"].get<double>(), 0.0);
}

// An INT8 model as quantisation tools write it (QuantizeLinear, QLinearConv, a depthwise
// QLinearConv, a QDQ Conv, QLinearMatMul, DequantizeLinear) runs on every chip: its four MAC nodes
// as layers with the model's shapes, each checked against its reference, in INT8 on the npu's
// array and in f32 for an i8 model on the K1 and ftm2000; the quantise and dequantise nodes listed with their
// cost and why.
TEST(OnnxWorkload, QuantisedModelRunsOnEveryChip) {
    REQUIRE_ONNX_MODELS();
    const std::vector<std::pair<std::string, std::uint64_t>> macs = {{"QLinearConv", 16u * 16 * 16 * 8 * 9},
                                                                     {"QLinearConv", 8u * 8 * 16 * 9},
                                                                     {"Conv", 8u * 8 * 16 * 16},
                                                                     {"QLinearMatMul", 64u * 16 * 32}};
    for (const std::string target : {"npu", "k1", "ftm2000"}) {
        SCOPED_TRACE(target);
        const Json r =
            runJson("run --target " + target + " --workload " + model("qsmall.onnx") + " --functional");
        ASSERT_TRUE(r.contains("layers")) << r.dump();
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
        if (target != "ftm2000") {  // which reports the model's type per layer
            EXPECT_EQ(r["workload"]["config"]["dtype"], "i8");
        }
        ASSERT_EQ(r["layers"].size(), macs.size());
        for (std::size_t i = 0; i < macs.size(); ++i) {
            const Json& l = r["layers"][i];
            EXPECT_EQ(l["op"], macs[i].first) << l["name"];
            EXPECT_EQ(l["macs"].get<std::uint64_t>(), macs[i].second) << l["name"];
            EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
            if (target == "npu") {
                EXPECT_EQ(l["dtype"], "i8") << l["name"];
            }
            if (target != "npu") {
                EXPECT_EQ(l["dtype"], "f32") << l["name"];
                EXPECT_EQ(l["model_dtype"], "i8") << l["name"];
            }
        }
        std::map<std::string, int> left;
        for (const auto& n : r["not_simulated"]) {
            ++left[n["op"].get<std::string>()];
            if (n["op"] != "Reshape") {
                EXPECT_NE(n["reason"].get<std::string>().find("a quantisation boundary"), std::string::npos);
            }
        }
        EXPECT_EQ(left["QuantizeLinear"], 2);
        EXPECT_EQ(left["DequantizeLinear"], 3);
        EXPECT_EQ(left["Reshape"], 1);
    }
}

// Gated activations (tests/onnx/make_models.py "gates": Conv, SiLU as Sigmoid and Mul, Tanh, Div
// by a constant): every chip simulates every node but the Flatten view, bit-exact (the K1 with its
// vector divider; ftm2000 and the npu by Newton–Raphson from a reciprocal estimate).
TEST(OnnxWorkload, GatedActivationsRunOnEveryChip) {
    REQUIRE_ONNX_MODELS();
    for (const std::string target : {"k1", "ftm2000", "npu"}) {
        SCOPED_TRACE(target);
        const Json r =
            runJson("run --target " + target + " --workload " + model("gates.onnx") + " --functional");
        ASSERT_TRUE(r.contains("layers")) << r.dump();
        EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
        std::set<std::string> ran, left;
        for (const auto& l : r["layers"])
            ran.insert(l.value("op", std::string()));
        for (const auto& n : r["not_simulated"])
            left.insert(n["op"].get<std::string>());
        for (const std::string op : {"Sigmoid", "Tanh", "Div", "Mul"})
            EXPECT_EQ(ran.count(op), 1u) << op;
        EXPECT_EQ(left, std::set<std::string>{"Flatten"}) << r["not_simulated"].dump();
    }
}

// An INT8 model in INT8 on the K1 (plan.dtype i8): every layer i8, requantised with the workload's
// scale (multiplier / 2^shift, as the NPU reads them), bit-exact. In a model with element-wise ops
// whose results depend on quantisation scales (a Sigmoid, a Div, an average), those are listed as
// not simulated with the reason; the convolutions still run in i8.
TEST(OnnxWorkload, AnInt8ModelRunsInInt8OnTheK1AndScaleDependentOpsAreListed) {
    REQUIRE_ONNX_MODELS();
    const Json r = runJson("run --target k1 --workload " + model("qsmall.onnx") +
                           " --set plan.dtype=i8 --set workload.requant_shift=40 "
                           "--set workload.requant_multiplier=1518500250 --functional --format json");
    ASSERT_TRUE(r.contains("layers")) << r.dump();
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
    EXPECT_GT(r["functional"]["elements"].get<std::uint64_t>(), 0u);
    for (const auto& l : r["layers"]) {
        EXPECT_EQ(l["dtype"], "i8") << l["name"];
        EXPECT_EQ(l["output_dtype"], "i8") << l["name"];
        EXPECT_DOUBLE_EQ(l["requant_scale"].get<double>(),
                         static_cast<double>(static_cast<float>(1518500250.0 / 1099511627776.0)));
    }
    const Json gates =
        runJson("run --target k1 --workload " + model("gates.onnx") + " --set plan.dtype=i8 --functional");
    ASSERT_TRUE(gates.contains("layers")) << gates.dump();
    EXPECT_EQ(gates["functional"]["mismatches"].get<std::uint64_t>(), 0u);
    std::set<std::string> ran, left;
    for (const auto& l : gates["layers"])
        ran.insert(l.value("op", std::string("Conv")));
    for (const auto& n : gates["not_simulated"]) {
        left.insert(n["op"].get<std::string>());
        if (n["op"] != "Flatten") {
            EXPECT_NE(n["reason"].get<std::string>().find(n["op"].get<std::string>() + " in i8"),
                      std::string::npos)
                << n;
        }
    }
    EXPECT_EQ(left, (std::set<std::string>{"Flatten", "Sigmoid", "Mul", "Tanh", "Div", "GlobalAveragePool"}));
    EXPECT_EQ(ran.count("Sigmoid"), 0u);
}

TEST(OnnxWorkload, SmallModelRunsFunctionallyBitExact) {
    REQUIRE_ONNX_MODELS();
    const Json r = runJson("run --target npu --workload " + model("small.onnx") + " --functional");
    EXPECT_EQ(r["functional"]["mismatches"].get<std::uint64_t>(), 0u) << r["functional"].dump();
    EXPECT_GT(r["functional"]["elements"].get<std::uint64_t>(), 0u);
}

// On the K1 the same model's layers run as im2col + RVV GEMM (conv2d/rvv) in f32: the same layers,
// each output equal to the GEMM-order reference, the same operators left out.
TEST(OnnxWorkload, SmallModelRunsOnTheK1WithTheSameLayers) {
    REQUIRE_ONNX_MODELS();
    const Json k1 = runJson("run --target k1 --workload " + model("small.onnx") + " --functional");
    const Json npu = runJson("run --target npu --workload " + model("small.onnx"));
    EXPECT_EQ(k1["functional"]["mismatches"].get<std::uint64_t>(), 0u) << k1["functional"].dump();
    EXPECT_GT(k1["functional"]["elements"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(k1["plan"]["config"]["strategy"], "rvv-im2col");
    // Both run the Relu as well: the K1 as an RVV stream, the npu on its vector processor; the K1
    // runs the Softmax too (over each of the 64 rows' 32 channels), which the npu lists.
    ASSERT_EQ(k1["layers"].size(), npu["layers"].size() + 1);
    EXPECT_EQ(k1["layers"].back()["op"], "Softmax");
    EXPECT_EQ(k1["layers"].back()["h"], 64);
    EXPECT_EQ(k1["layers"].back()["channels"], 32);
    for (std::size_t i = 0; i < npu["layers"].size(); ++i) {
        const Json& l = k1["layers"][i];
        EXPECT_EQ(l["dtype"], "f32");
        if (l["op"] == "Relu") {
            EXPECT_EQ(l["lowering"], "RVV element-wise stream");
        }
        EXPECT_EQ(l["op"], npu["layers"][i]["op"]);
        EXPECT_EQ(l["macs"], npu["layers"][i]["macs"]);
    }
    // The nodes left out, their bytes in the type each chip's layers ran in (the npu runs the f32
    // model in INT8: a quarter of the model's f32 bytes), the model's own beside them, and a total
    // of each: both leave out the Reshape (a view, no bytes), the npu the Softmax as well.
    ASSERT_EQ(k1["not_simulated"].size(), 1u);
    ASSERT_EQ(npu["not_simulated"].size(), 2u);
    for (const Json* r : {&k1, &npu}) {
        const Json& a = (*r)["not_simulated"][0];
        EXPECT_EQ(a["node"], "reshape");
        EXPECT_EQ(a["bytes"], 0);
    }
    const Json& softmax = npu["not_simulated"][1];
    EXPECT_EQ(softmax["node"], "softmax");
    EXPECT_EQ(softmax["dtype"], "i8");
    EXPECT_EQ(4 * softmax["bytes"].get<std::uint64_t>(), softmax["model_bytes"].get<std::uint64_t>());
    EXPECT_GT(softmax["bytes"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(k1["not_simulated_total"]["bytes"], 0);
    EXPECT_EQ(npu["not_simulated_total"]["bytes"], softmax["bytes"]);
    EXPECT_EQ(npu["not_simulated_total"]["nodes"], npu["not_simulated"].size());
    EXPECT_EQ(npu["not_simulated_total"]["dtype"], "i8");
}

// On ftm2000 the model's depthwise Conv (group 16) runs as a convolution per channel, the channels
// spread over the four cores, and its Relu as a vector stream; every layer is simulated and checked
// against its reference.
TEST(OnnxWorkload, SmallModelRunsOnTheDspWithItsDepthwiseLayer) {
    REQUIRE_ONNX_MODELS();
    const Json dsp = runJson("run --target ftm2000 --workload " + model("small.onnx") + " --functional");
    const Json npu = runJson("run --target npu --workload " + model("small.onnx"));
    EXPECT_EQ(dsp["functional"]["mismatches"].get<std::uint64_t>(), 0u) << dsp["functional"].dump();
    // The DSP runs the Relu as a vector stream, as the npu's vector processor does.
    ASSERT_EQ(dsp["layers"].size(), npu["layers"].size());
    for (const auto& n : dsp["not_simulated"])
        EXPECT_NE(n["op"], "Relu");
    bool depthwise = false;
    for (std::size_t i = 0; i < dsp["layers"].size(); ++i) {
        const Json& l = dsp["layers"][i];
        EXPECT_EQ(l["macs"], npu["layers"][i]["macs"]) << l["name"];
        if (l["op"] == "Relu") {
            EXPECT_EQ(l["strategy"], "vector");
            continue;
        }
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        if (!l.contains("groups"))
            continue;
        depthwise = true;
        EXPECT_EQ(l["groups"], l["channels"]);
        EXPECT_EQ(l["lowering"], "a convolution per group, groups side by side on the cores");
    }
    EXPECT_TRUE(depthwise);
    EXPECT_EQ(dsp["plan"]["config"]["cores"], 4);
}

// MobileNetV2 on ftm2000 whole (the release build, as the docs' figures): every Conv, Gemm, pool
// and element-wise node simulated — its depthwise layers per channel, its Clip, Add and
// GlobalAveragePool as vector layers — only the Flatten (a view) left out, every layer at or
// above its compute bound, the layers summing to the run.
TEST(OnnxWorkload, MobileNetV2RunsWholeOnTheDsp) {
    REQUIRE_ONNX_MODELS();
    const auto r = test::runCommand(test::docsTessim() + " run --target ftm2000 --workload " +
                                    model("mobilenetv2.onnx") + " --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const Json j = Json::parse(r.out);
    ASSERT_EQ(j["not_simulated"].size(), 1u) << j["not_simulated"].dump();
    EXPECT_EQ(j["not_simulated"][0]["op"], "Flatten");
    std::map<std::string, int> ops;
    double sum = 0.0;
    for (const auto& l : j["layers"]) {
        ++ops[l["op"].get<std::string>()];
        EXPECT_GE(l["seconds"].get<double>(), l["compute_bound_s"].get<double>()) << l["name"];
        sum += l["seconds"].get<double>();
    }
    EXPECT_EQ(ops["Clip"], 35);
    EXPECT_EQ(ops["Add"], 10);
    EXPECT_EQ(ops["GlobalAveragePool"], 1);
    EXPECT_EQ(ops["Conv"] + ops["Gemm"], 53);
    EXPECT_NEAR(sum, j["seconds"].get<double>(), 1e-9);
}

// `compare` lines the chips' layers up by name: the Relu only the K1 runs has no best chip and
// names the chip that left it out, and the Markdown says the totals are not like for like.
TEST(OnnxWorkload, CompareNamesTheLayersAChipLeavesOut) {
    REQUIRE_ONNX_MODELS();
    // The npu without the vector processor beside its array: the array alone runs no Relu (and no
    // npu runs the Softmax, which the K1 does).
    const std::string arrayOnly = test::writeArrayOnlyNpu("npu-array");
    ASSERT_FALSE(arrayOnly.empty());
    const Json c = runJson("compare --workload " + model("small.onnx") + " --targets k1," + arrayOnly +
                           " --format json");
    ASSERT_TRUE(c.contains("layers")) << c.dump();
    bool relu = false;
    for (const auto& l : c["layers"]) {
        if (l["name"] != "relu" && l["name"] != "softmax") {
            EXPECT_TRUE(l["not_simulated_on"].empty()) << l;
            EXPECT_FALSE(l["best"].get<std::string>().empty()) << l;
            continue;
        }
        relu = relu || l["name"] == "relu";
        EXPECT_EQ(l["not_simulated_on"], Json::array({arrayOnly}));
        EXPECT_EQ(l["best"], "");
        EXPECT_TRUE(l["chips"].contains("k1"));
    }
    EXPECT_TRUE(relu);
    const auto md =
        test::runTessim("compare --workload " + model("small.onnx") + " --targets k1," + arrayOnly);
    std::remove(arrayOnly.c_str());
    EXPECT_NE(md.out.find("Not like for like: a chip's total leaves out the layers it lists as not simulated "
                          "(— below): " +
                          arrayOnly + " 2 layers."),
              std::string::npos)
        << md.out;
    EXPECT_NE(md.out.find("| relu | "), std::string::npos);
    EXPECT_NE(md.out.find("| — | — (not on every chip) |"), std::string::npos) << md.out;
}

// Weights in a file beside the model (ONNX external data) are found next to the model, whatever
// the working directory; the layers are the same as with the weights inside.
TEST(OnnxWorkload, ExternalDataModelRunsLikeTheModelWithItsWeightsInside) {
    REQUIRE_ONNX_MODELS();
    const Json inside = runJson("run --target npu --workload " + model("small.onnx"));
    const Json external = runJson("run --target npu --workload " + model("small-external.onnx"));
    EXPECT_EQ(external["layers"].size(), inside["layers"].size());
    EXPECT_EQ(external["cycles"], inside["cycles"]);
    EXPECT_EQ(external["not_simulated"].size(), inside["not_simulated"].size());
}

TEST(OnnxWorkload, TruncatedOrForeignFilesAreRefusedWithExitTwo) {
    REQUIRE_ONNX_MODELS();
    const std::string dir = "/tmp/tessim-onnx-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::ifstream in(model("small.onnx"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir + "/truncated.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    std::ofstream(dir + "/text.onnx") << "name: not a model\n";
    for (const std::string file : {"truncated.onnx", "text.onnx", "missing.onnx"}) {
        const auto r = test::runTessim("run --target npu --workload " + dir + "/" + file);
        EXPECT_EQ(r.exitCode, 2) << file << ": " << r.err;
        EXPECT_NE(r.err.find(dir + "/" + file), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("ONNX model"), std::string::npos) << r.err;
    }
    std::filesystem::remove_all(dir);
}

// Conv attributes beyond the conv2d kernel's shapes are listed with the reason, not dropped;
// auto_pad SAME is the symmetric padding it gives; padding unlike on a dimension's two sides runs
// as the input grown by the difference; strides per axis are the layer's stride_h and stride_w; an
// auto_pad ONNX does not define is not VALID.
TEST(OnnxLayers, ConvAttributesOutsideTheKernelAreListedWithTheReason) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {1, 4, 9, 9});
    m.tensor("w", {8, 4, 3, 3});
    m.tensor("y", {1, 8, 9, 9});
    auto conv = [&](const std::string& name, std::map<std::string, std::vector<std::int64_t>> ints,
                    const std::string& autoPad = "") { m.node("Conv", name, std::move(ints), autoPad); };
    conv("same", {}, "SAME_UPPER");
    conv("asymmetric", {{"pads", {0, 0, 1, 1}}});
    conv("strides", {{"strides", {1, 2}}, {"pads", {1, 1, 1, 1}}});
    conv("plain", {{"pads", {1, 1, 1, 1}}});
    conv("sideways", {}, "SIDEWAYS");
    const config::Node tree = onnxWorkloadTree(m.g);
    const auto& layers = tree.find("layers")->items();
    ASSERT_EQ(layers.size(), 4u);
    EXPECT_EQ(layers[0].find("name")->scalar(), "same");
    EXPECT_EQ(layers[0].find("pad")->scalar(), "1");
    EXPECT_EQ(layers[1].find("name")->scalar(), "asymmetric");
    EXPECT_EQ(layers[1].find("pad")->scalar(), "0");
    EXPECT_EQ(layers[1].find("h")->scalar(), "10");
    EXPECT_EQ(layers[2].find("name")->scalar(), "strides");
    EXPECT_EQ(layers[2].find("stride_h")->scalar(), "1");
    EXPECT_EQ(layers[2].find("stride_w")->scalar(), "2");
    EXPECT_EQ(layers[2].find("stride"), nullptr);
    const auto& left = tree.find("not_simulated")->items();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].find("reason")->scalar(),
              "auto_pad 'SIDEWAYS', which ONNX does not define (NOTSET, SAME_UPPER, SAME_LOWER, VALID)");
    EXPECT_EQ(left[0].find("flops")->scalar(), std::to_string(2 * 8 * 81 * 4 * 9));
}

// A batched MatMul (attention's Q·Kᵀ: …×M×K times …×K×N) is one layer per matrix of the batch,
// `<node>.b<i>`, each an M×K by K×N product; one first matrix may serve the whole batch; unequal
// batches are listed with the reason and the MACs they would take.
TEST(OnnxLayers, BatchedMatMulIsALayerPerMatrix) {
    auto layersOf = [](std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
        test::InMemoryOnnxGraph m("m.onnx");
        m.tensor("x", std::move(a));
        m.tensor("w", std::move(b));
        m.node("MatMul", "qk");
        return onnxWorkloadTree(m.g);
    };
    const config::Node heads = layersOf({2, 3, 5, 8}, {2, 3, 8, 4});
    const auto& layers = heads.find("layers")->items();
    ASSERT_EQ(layers.size(), 6u);
    EXPECT_EQ(layers[0].find("name")->scalar(), "qk.b0");
    EXPECT_EQ(layers[5].find("name")->scalar(), "qk.b5");
    for (const auto& l : layers) {
        EXPECT_EQ(l.find("h")->scalar(), "5");
        EXPECT_EQ(l.find("channels")->scalar(), "8");
        EXPECT_EQ(l.find("filters")->scalar(), "4");
    }
    EXPECT_EQ(layersOf({5, 8}, {6, 8, 4}).find("layers")->items().size(), 6u);
    test::InMemoryOnnxGraph unequal("m.onnx");
    unequal.tensor("x", {2, 5, 8});
    unequal.tensor("w", {3, 8, 4});
    unequal.node("MatMul", "qk");
    unequal.tensor("c", {1, 4, 8, 8});
    unequal.tensor("k", {4, 4, 1, 1});
    unequal.g.nodes.push_back(OnnxNode{"Conv", "conv", {"c", "k"}, {"z"}, {}, {}, {}});  // a layer to run
    const config::Node tree = onnxWorkloadTree(unequal.g);
    const auto& left = tree.find("not_simulated")->items();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_NE(left[0].find("reason")->scalar().find("a batch of 2 matrices against one of 3"),
              std::string::npos)
        << left[0].find("reason")->scalar();
    EXPECT_EQ(left[0].find("flops")->scalar(), std::to_string(2 * 3 * 5 * 8 * 4));
}

// Concat and Transpose become copy layers of their output's shape (Concat's inputs add up to it),
// with no FLOPs; the bytes of the node as the model's types count them; a Transpose keeps its
// input's dimensions and its permutation.
TEST(OnnxLayers, ConcatAndTransposeBecomeCopyLayers) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {1, 4, 6, 6});
    m.tensor("w", {1, 12, 6, 6});
    m.tensor("y", {1, 16, 6, 6});
    m.tensor("t", {1, 6, 6, 16});
    m.tensor("c", {8, 4, 3, 3});
    m.tensor("z", {1, 8, 4, 4});
    m.g.nodes.push_back(OnnxNode{"Conv", "conv", {"x", "c"}, {"z"}, {}, {}, {}});  // a MAC layer to run
    m.g.nodes.push_back(OnnxNode{"Concat", "cat", {"x", "w"}, {"y"}, {{"axis", {1}}}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Transpose", "tr", {"y"}, {"t"}, {{"perm", {0, 2, 3, 1}}}, {}, {}});
    const config::Node tree = onnxWorkloadTree(m.g);
    const auto& layers = tree.find("layers")->items();
    ASSERT_EQ(layers.size(), 3u);
    EXPECT_EQ(layers[1].find("op")->scalar(), "Concat");
    EXPECT_EQ(layers[1].find("channels")->scalar(), "16");
    EXPECT_EQ(layers[1].find("h")->scalar(), "6");
    EXPECT_EQ(layers[1].find("flops")->scalar(), "0");
    EXPECT_EQ(layers[1].find("bytes")->scalar(), std::to_string(4 * 2 * 16 * 36));
    EXPECT_EQ(layers[2].find("op")->scalar(), "Transpose");
    EXPECT_EQ(layers[2].find("channels")->scalar(), "6");
    // Its input's dimensions and the permutation: the K1 gathers the input in strided runs.
    auto listed = [&](const char* key) {
        std::string text;
        for (const auto& v : layers[2].find(key)->items())
            text += v.scalar() + " ";
        return text;
    };
    EXPECT_EQ(listed("input_dims"), "1 16 6 6 ");
    EXPECT_EQ(listed("perm"), "0 2 3 1 ");
    EXPECT_EQ(tree.find("not_simulated")->items().size(), 0u);
}

// A workload tree's layer rows by name; key() gives one key of one of them, "(none)" where absent.
struct LayerRows {
    std::map<std::string, const config::Node*> rows;
    explicit LayerRows(const config::Node& tree) {
        for (const auto& l : tree.find("layers")->items())
            rows[l.find("name")->scalar()] = &l;
    }
    std::size_t size() const { return rows.size(); }
    std::string key(const std::string& layer, const char* k) const {
        const auto at = rows.find(layer);
        const config::Node* v = at != rows.end() ? at->second->find(k) : nullptr;
        return v ? v->scalar() : std::string("(none)");
    }
};

// Element-wise and pooling nodes become vector layers with their shapes, Clip's bounds and the
// node's FLOPs and bytes; the attributes the RVV pools do not run are listed with the reason.
TEST(OnnxLayers, PoolsAndElementwiseNodesBecomeVectorLayersOrSayWhyNot) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {1, 4, 9, 9});
    m.tensor("w", {1, 4, 9, 9});
    m.tensor("y", {1, 4, 5, 5});
    m.tensor("c", {8, 4, 3, 3});
    m.tensor("z", {1, 8, 7, 7});
    m.g.nodes.push_back(OnnxNode{"Conv", "conv", {"x", "c"}, {"z"}, {}, {}, {}});  // a MAC layer to run
    m.node("MaxPool", "pool", {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}});
    m.node("MaxPool", "ceil", {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", {1}}});
    m.node("AveragePool", "withpad", {{"kernel_shape", {3, 3}}, {"count_include_pad", {1}}});
    m.node("AveragePool", "notsquare", {{"kernel_shape", {2, 3}}, {"strides", {2, 2}}});
    for (std::size_t i = 1; i < m.g.nodes.size(); ++i)
        m.g.nodes[i].inputs = {"x"};  // a pool reads one tensor
    m.tensor("sum", {1, 4, 9, 9});
    m.g.nodes.push_back(OnnxNode{"Add", "add", {"x", "w"}, {"sum"}, {}, {}, {}});
    m.tensor("row", {1, 4, 1, 1});
    m.g.nodes.push_back(OnnxNode{"Add", "broadcast", {"row", "x"}, {"sum"}, {}, {}, {}});
    m.tensor("plane", {1, 1, 9, 9});
    m.g.nodes.push_back(OnnxNode{"Mul", "perpixel", {"x", "plane"}, {"sum"}, {}, {}, {}});
    m.tensor("half", {});
    m.g.scalars["half"] = 0.5;
    m.g.nodes.push_back(OnnxNode{"Mul", "scale", {"x", "half"}, {"sum"}, {}, {}, {}});
    m.g.scalars["lo"] = -1.5;
    m.g.nodes.push_back(OnnxNode{"Clip", "clip", {"x", "lo", ""}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Clip", "clipattr", {"x"}, {"sum"}, {}, {}, {{"min", 0.0}, {"max", 6.0}}});
    m.g.nodes.push_back(OnnxNode{"Reshape", "view", {"x"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"HardSigmoid", "hsig", {"x"}, {"sum"}, {}, {}, {{"alpha", 0.3}}});
    m.g.nodes.push_back(OnnxNode{"HardSwish", "hswish", {"x"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"LeakyRelu", "leaky", {"x"}, {"sum"}, {}, {}, {{"alpha", 0.2}}});
    m.g.nodes.push_back(OnnxNode{"LeakyRelu", "leakydefault", {"x"}, {"sum"}, {}, {}, {}});
    // Sub does not commute: x − bias runs, bias − x runs reversed.
    m.g.nodes.push_back(OnnxNode{"Sub", "centre", {"x", "row"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Sub", "reversed", {"row", "x"}, {"sum"}, {}, {}, {}});
    // Div neither: x / scale runs, scale / x runs reversed, x / 0 is listed.
    m.g.nodes.push_back(OnnxNode{"Div", "norm", {"x", "row"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Div", "halve", {"x", "half"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Div", "invert", {"row", "x"}, {"sum"}, {}, {}, {}});
    m.tensor("zero", {});
    m.g.scalars["zero"] = 0.0;
    m.g.nodes.push_back(OnnxNode{"Div", "byzero", {"x", "zero"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Tanh", "tanh", {"x"}, {"sum"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Sigmoid", "sigmoid", {"x"}, {"sum"}, {}, {}, {}});
    const config::Node tree = onnxWorkloadTree(m.g);
    const LayerRows layers(tree);
    const auto key = [&](const std::string& layer, const char* k) { return layers.key(layer, k); };
    ASSERT_EQ(layers.size(), 19u);
    EXPECT_EQ(key("reversed", "op"), "Sub");
    EXPECT_EQ(key("reversed", "broadcast"), "channel");
    EXPECT_EQ(key("reversed", "reversed"), "true");
    EXPECT_EQ(key("invert", "op"), "Div");
    EXPECT_EQ(key("invert", "reversed"), "true");
    EXPECT_EQ(key("centre", "reversed"), "(none)");
    EXPECT_EQ(key("norm", "op"), "Div");
    EXPECT_EQ(key("norm", "broadcast"), "channel");
    EXPECT_EQ(key("halve", "broadcast"), "constant");
    EXPECT_EQ(key("halve", "value"), "0.5");
    EXPECT_EQ(key("tanh", "op"), "Tanh");
    EXPECT_EQ(key("sigmoid", "op"), "Sigmoid");
    EXPECT_EQ(key("sigmoid", "channels"), "4");
    EXPECT_EQ(key("leaky", "op"), "LeakyRelu");
    EXPECT_EQ(key("leaky", "alpha"), "0.2");
    EXPECT_EQ(key("leakydefault", "alpha"), "0.01");  // ONNX's default
    EXPECT_EQ(key("centre", "op"), "Sub");
    EXPECT_EQ(key("centre", "broadcast"), "channel");
    EXPECT_EQ(key("hsig", "alpha"), "0.3");
    EXPECT_EQ(key("hsig", "beta"), "0.5");  // ONNX's default
    EXPECT_EQ(key("hswish", "op"), "HardSwish");
    EXPECT_EQ(key("broadcast", "broadcast"), "channel");  // the operands swapped: the full one first
    EXPECT_EQ(key("scale", "broadcast"), "constant");
    EXPECT_EQ(key("scale", "value"), "0.5");
    EXPECT_EQ(key("add", "broadcast"), "(none)");
    EXPECT_EQ(key("pool", "op"), "MaxPool");
    EXPECT_EQ(key("pool", "k"), "3");
    EXPECT_EQ(key("pool", "stride"), "2");
    EXPECT_EQ(key("pool", "pad"), "1");
    EXPECT_EQ(key("pool", "flops"), std::to_string(9 * 4 * 5 * 5));
    EXPECT_EQ(key("pool", "bytes"), std::to_string(4 * (4 * 81 + 4 * 25)));
    EXPECT_EQ(key("notsquare", "kh"), "2");
    EXPECT_EQ(key("notsquare", "kw"), "3");
    EXPECT_EQ(key("add", "channels"), "4");
    EXPECT_EQ(key("add", "h"), "9");
    EXPECT_EQ(key("clip", "min"), "-1.5");
    EXPECT_EQ(std::stod(key("clip", "max")), static_cast<double>(std::numeric_limits<float>::max()));
    EXPECT_EQ(key("clipattr", "max"), "6");
    std::map<std::string, std::string> left;
    for (const auto& n : tree.find("not_simulated")->items())
        left[n.find("node")->scalar()] = n.find("reason")->scalar() + " / " + n.find("bytes")->scalar();
    ASSERT_EQ(left.size(), 5u);
    EXPECT_NE(left["byzero"].find("Div by the constant 0"), std::string::npos) << left["byzero"];
    EXPECT_NE(left["ceil"].find("ceil_mode"), std::string::npos) << left["ceil"];
    EXPECT_NE(left["withpad"].find("count_include_pad"), std::string::npos) << left["withpad"];
    EXPECT_NE(left["perpixel"].find("other than per channel or as a constant"), std::string::npos)
        << left["perpixel"];
    EXPECT_EQ(left["view"], "a view of its input: moves no data / 0");
}

// PRelu's slope is its second operand: per channel, a constant (up to 1), or of the output's shape;
// a steeper constant slope or a broadcast first input is listed with the reason.
TEST(OnnxLayers, PReluBecomesAVectorLayerWithItsSlopes) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {1, 4, 9, 9});
    m.tensor("c", {8, 4, 3, 3});
    m.tensor("z", {1, 8, 7, 7});
    m.g.nodes.push_back(OnnxNode{"Conv", "conv", {"x", "c"}, {"z"}, {}, {}, {}});
    m.tensor("y", {1, 4, 9, 9});
    m.tensor("slopes", {4, 1, 1});
    m.tensor("each", {1, 4, 9, 9});
    m.tensor("quarter", {});
    m.g.scalars["quarter"] = 0.25;
    m.tensor("steep", {});
    m.g.scalars["steep"] = 2.0;
    m.g.nodes.push_back(OnnxNode{"PRelu", "perchannel", {"x", "slopes"}, {"y"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"PRelu", "one", {"x", "quarter"}, {"y"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"PRelu", "full", {"x", "each"}, {"y"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"PRelu", "steep", {"x", "steep"}, {"y"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"PRelu", "swapped", {"slopes", "x"}, {"y"}, {}, {}, {}});
    const config::Node tree = onnxWorkloadTree(m.g);
    const LayerRows layers(tree);
    const auto key = [&](const std::string& layer, const char* k) { return layers.key(layer, k); };
    EXPECT_EQ(key("perchannel", "op"), "PRelu");
    EXPECT_EQ(key("perchannel", "broadcast"), "channel");
    EXPECT_EQ(key("one", "broadcast"), "constant");
    EXPECT_EQ(key("one", "value"), "0.25");
    EXPECT_EQ(key("full", "broadcast"), "(none)");
    std::map<std::string, std::string> left;
    for (const auto& n : tree.find("not_simulated")->items())
        left[n.find("node")->scalar()] = n.find("reason")->scalar();
    ASSERT_EQ(left.size(), 2u);
    EXPECT_NE(left["steep"].find("slope of 2"), std::string::npos) << left["steep"];
    EXPECT_NE(left["swapped"].find("PRelu with a broadcast input"), std::string::npos) << left["swapped"];
}

// The ONNX nodes lowered to vector layers are exactly the layer ops conv2d/rvv runs (the fuzz
// harness checks rows by the first list, the kernel reads them by the second).
TEST(OnnxLayers, VectorNodeOpsAreTheVectorLayerOps) {
    for (const auto& op : vectorNodeOps())
        EXPECT_TRUE(isVectorLayerOp(op)) << op;
    for (const auto& op : vectorLayerOps())
        EXPECT_EQ(vectorNodeOps().count(op), 1u) << op;
}

// A batch of images is one layer per image; a BatchNormalization right after a Conv whose output
// nothing else reads is folded into it, another one is listed with its FLOPs.
TEST(OnnxLayers, BatchesUnrollAndBatchNormalizationFoldsIntoItsConv) {
    test::InMemoryOnnxGraph m("m.onnx");
    m.tensor("x", {3, 4, 9, 9});
    m.tensor("w", {8, 4, 3, 3});
    m.tensor("y", {3, 8, 7, 7});
    m.tensor("bn", {3, 8, 7, 7});
    m.tensor("pooled", {3, 8, 3, 3});
    m.tensor("big", {65, 4, 9, 9});
    m.tensor("y2", {65, 8, 7, 7});
    m.node("Conv", "conv");
    m.g.nodes.push_back(
        OnnxNode{"BatchNormalization", "bn1", {"y", "s", "b", "mean", "var"}, {"bn"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{
        "MaxPool", "pool", {"bn"}, {"pooled"}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}}, {}, {}});
    m.g.nodes.push_back(
        OnnxNode{"BatchNormalization", "bn2", {"bn", "s", "b", "mean", "var"}, {"y"}, {}, {}, {}});
    m.g.nodes.push_back(OnnxNode{"Conv", "huge", {"big", "w"}, {"y2"}, {}, {}, {}});
    const config::Node tree = onnxWorkloadTree(m.g);
    std::vector<std::string> names;
    for (const auto& l : tree.find("layers")->items())
        names.push_back(l.find("name")->scalar());
    EXPECT_EQ(names,
              (std::vector<std::string>{"conv.b0", "conv.b1", "conv.b2", "pool.b0", "pool.b1", "pool.b2"}));
    std::map<std::string, std::string> left;
    for (const auto& n : tree.find("not_simulated")->items())
        left[n.find("node")->scalar()] = n.find("reason")->scalar() + " / " + n.find("flops")->scalar();
    ASSERT_EQ(left.size(), 3u);
    EXPECT_EQ(left["bn1"], "folded into 'conv' (its scale and shift become the layer's weights and bias): "
                           "nothing left to run / 0");
    EXPECT_EQ(left["bn2"].substr(left["bn2"].find(" / ")), " / " + std::to_string(2 * 3 * 8 * 49));
    EXPECT_NE(left["huge"].find("batch 65: a batch of 1 to 64 images runs"), std::string::npos)
        << left["huge"];
}

TEST(OnnxLayers, AModelWithNothingToSimulateIsAConfigError) {
    OnnxGraph g;
    g.path = "relu.onnx";
    OnnxNode n;
    n.op = "Relu";
    n.inputs = {"x"};
    n.outputs = {"y"};
    g.nodes.push_back(n);
    EXPECT_THROW(onnxWorkloadTree(g), config::ConfigError);
}

}  // namespace
}  // namespace tessim
