// readOnnxGraph with Debian's libonnx (built when CMake finds ONNX and protobuf).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "sim/config/ConfigError.h"
#include "workloads/onnx/OnnxGraph.h"

namespace tessim {
namespace {

using config::ConfigError;
using config::Location;

unsigned elementBytes(int type) {
    switch (type) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64: return 8;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16: return 2;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL: return 1;
    default: return 0;
    }
}

OnnxTensor fromValueInfo(const onnx::ValueInfoProto& v) {
    OnnxTensor t;
    if (!v.type().has_tensor_type())
        return t;
    const auto& tt = v.type().tensor_type();
    t.elementBytes = elementBytes(tt.elem_type());
    if (!tt.has_shape())
        return t;
    t.shapeKnown = true;
    for (const auto& d : tt.shape().dim())
        t.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    return t;
}

// Integer initializers kept in external data are what shape inference reads values from (Reshape's
// target shape, ...): read them into the model; float weights stay where they are (only their
// dims matter here).
void inlineExternalIntegers(onnx::ModelProto& model, const std::string& path) {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
        if (t.data_location() != onnx::TensorProto::EXTERNAL ||
            (t.data_type() != onnx::TensorProto::INT64 && t.data_type() != onnx::TensorProto::INT32))
            continue;
        std::string location;
        std::streamoff offset = 0, length = -1;
        for (const auto& e : t.external_data()) {
            if (e.key() == "location")
                location = e.value();
            else if (e.key() == "offset")
                offset = std::stoll(e.value());
            else if (e.key() == "length")
                length = std::stoll(e.value());
        }
        std::ifstream data(dir / location, std::ios::binary);
        if (location.empty() || !data)
            throw ConfigError(
                Location{path, 0, 0}, "",
                fmt::format("not a valid ONNX model: the data of tensor '{}' should be in '{}', "
                            "which cannot be read",
                            t.name(), (dir / location).string()));
        if (length < 0) {
            data.seekg(0, std::ios::end);
            length = static_cast<std::streamoff>(data.tellg()) - offset;
        }
        std::string bytes(static_cast<std::size_t>(std::max<std::streamoff>(length, 0)), '\0');
        data.seekg(offset);
        if (!data.read(bytes.data(), length))
            throw ConfigError(
                Location{path, 0, 0}, "",
                fmt::format("not a valid ONNX model: the data of tensor '{}' lies beyond the end "
                            "of '{}'",
                            t.name(), (dir / location).string()));
        t.set_raw_data(bytes);
        t.clear_external_data();
        t.set_data_location(onnx::TensorProto::DEFAULT);
    }
}

}  // namespace

bool onnxReaderAvailable() {
    return true;
}

OnnxGraph readOnnxGraph(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ConfigError(Location{path, 0, 0}, "", "cannot open ONNX model '" + path + "'");
    onnx::ModelProto model;
    if (!model.ParseFromIstream(&in))
        throw ConfigError(Location{path, 0, 0}, "",
                          "not a valid ONNX model: the file does not parse as an ONNX ModelProto (truncated "
                          "or not ONNX)");
    try {
        // Weights stored beside the model (external data) are found relative to its folder,
        // which only the checker's file form knows.
        const auto& inits = model.graph().initializer();
        const bool external = std::any_of(inits.begin(), inits.end(), [](const onnx::TensorProto& t) {
            return t.data_location() == onnx::TensorProto::EXTERNAL;
        });
        if (external) {
            onnx::checker::check_model(path);
            inlineExternalIntegers(model, path);
        } else {
            onnx::checker::check_model(model);
        }
        // Lenient: an op whose shapes cannot be inferred leaves them unknown (it is then listed
        // as not simulated), but a structurally broken model fails the checker above.
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(true, 0, true));
    } catch (const ConfigError&) {
        throw;
    } catch (const std::exception& e) {
        throw ConfigError(Location{path, 0, 0}, "", fmt::format("not a valid ONNX model: {}", e.what()));
    }
    OnnxGraph g;
    g.path = path;
    const onnx::GraphProto& graph = model.graph();
    g.name = graph.name();
    for (const auto& init : graph.initializer()) {
        OnnxTensor t;
        t.shapeKnown = true;
        t.elementBytes = elementBytes(init.data_type());
        t.dims.assign(init.dims().begin(), init.dims().end());
        g.tensors[init.name()] = t;
    }
    for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()})
        for (const auto& v : *list)
            if (!g.tensors.count(v.name()) || !g.tensors[v.name()].known())
                g.tensors[v.name()] = fromValueInfo(v);
    for (const auto& n : graph.node()) {
        OnnxNode node;
        node.op =
            n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + "." + n.op_type();
        node.name = n.name();
        node.inputs.assign(n.input().begin(), n.input().end());
        node.outputs.assign(n.output().begin(), n.output().end());
        for (const auto& a : n.attribute()) {
            if (a.type() == onnx::AttributeProto::INT)
                node.ints[a.name()] = {a.i()};
            else if (a.type() == onnx::AttributeProto::INTS)
                node.ints[a.name()].assign(a.ints().begin(), a.ints().end());
            else if (a.type() == onnx::AttributeProto::STRING)
                node.strings[a.name()] = a.s();
        }
        g.nodes.push_back(std::move(node));
    }
    return g;
}

}  // namespace tessim
