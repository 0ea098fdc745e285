// readOnnxGraph with Debian's libonnx (built when CMake finds ONNX and protobuf).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
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

// A one-element initializer's value (Clip's bounds, a scale): from its typed field or its raw
// bytes (little-endian, as ONNX stores them); none for other types or external data.
std::optional<double> scalarValue(const onnx::TensorProto& t) {
    auto raw = [&](auto zero) -> std::optional<double> {
        if (t.raw_data().size() != sizeof(zero))
            return std::nullopt;
        std::memcpy(&zero, t.raw_data().data(), sizeof(zero));
        return static_cast<double>(zero);
    };
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
        return t.float_data_size() == 1 ? std::optional<double>(t.float_data(0)) : raw(float{});
    case onnx::TensorProto::DOUBLE:
        return t.double_data_size() == 1 ? std::optional<double>(t.double_data(0)) : raw(double{});
    case onnx::TensorProto::INT32:
        return t.int32_data_size() == 1 ? std::optional<double>(t.int32_data(0)) : raw(std::int32_t{});
    case onnx::TensorProto::INT64:
        return t.int64_data_size() == 1 ? std::optional<double>(static_cast<double>(t.int64_data(0)))
                                        : raw(std::int64_t{});
    default: return std::nullopt;
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

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
    throw ConfigError(Location{path, 0, 0}, "", "not a valid ONNX model: " + why);
}

// The elements a tensor's dims declare (saturating); none when a dimension is negative.
std::optional<std::uint64_t> declaredElements(const onnx::TensorProto& t) {
    std::uint64_t n = 1;
    for (std::int64_t d : t.dims()) {
        if (d < 0)
            return std::nullopt;
        n = saturatingProduct(n, static_cast<std::uint64_t>(d));
    }
    return n;
}

// Values held in the typed fields: ONNX keeps 8- and 16-bit types and bool one per int32.
std::uint64_t typedValues(const onnx::TensorProto& t) {
    return static_cast<std::uint64_t>(t.float_data_size()) + static_cast<std::uint64_t>(t.int32_data_size()) +
           static_cast<std::uint64_t>(t.int64_data_size()) +
           static_cast<std::uint64_t>(t.double_data_size()) +
           static_cast<std::uint64_t>(t.uint64_data_size());
}

// Where a tensor's external data lies: a regular file inside the model's folder (a model must not
// make tessim read, or even probe, files elsewhere), and a byte range within it.
struct ExternalData {
    std::filesystem::path file;
    std::uint64_t offset = 0, length = 0;
    bool lengthGiven = false;
};

std::uint64_t byteCount(const std::string& path, const onnx::TensorProto& t, const std::string& key,
                        const std::string& text) {
    if (text.empty() || text.size() > 18 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        refuse(path, fmt::format("the external data of tensor '{}' has {} '{}', not a byte count below 10¹⁸",
                                 t.name(), key, text));
    return std::stoull(text);
}

ExternalData externalData(const std::string& path, const onnx::TensorProto& t) {
    namespace fs = std::filesystem;
    ExternalData e;
    std::string location;
    for (const auto& entry : t.external_data()) {
        if (entry.key() == "location") {
            location = entry.value();
        } else if (entry.key() == "offset") {
            e.offset = byteCount(path, t, "offset", entry.value());
        } else if (entry.key() == "length") {
            e.length = byteCount(path, t, "length", entry.value());
            e.lengthGiven = true;
        }
    }
    const fs::path relative(location);
    const bool climbs =
        std::any_of(relative.begin(), relative.end(), [](const fs::path& p) { return p == ".."; });
    if (location.empty() || relative.is_absolute() || climbs)
        refuse(path,
               fmt::format("the external data of tensor '{}' must be a file in the model's folder, named "
                           "by a relative path without '..' (it is '{}')",
                           t.name(), location));
    const fs::path dir = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
    e.file = dir / relative;
    std::error_code ec;
    if (!fs::is_regular_file(e.file, ec))
        refuse(path, fmt::format("the data of tensor '{}' should be in '{}', which is not a readable file",
                                 t.name(), e.file.string()));
    // A link inside the folder may still lead out of it.
    const fs::path real = fs::canonical(e.file, ec), home = fs::canonical(dir, ec);
    const fs::path inside = real.lexically_relative(home);
    if (ec || inside.empty() || *inside.begin() == "..")
        refuse(path, fmt::format("the data of tensor '{}' ('{}') leads outside the model's folder", t.name(),
                                 e.file.string()));
    const std::uint64_t size = fs::file_size(e.file, ec);
    const std::uint64_t available = ec || e.offset > size ? 0 : size - e.offset;
    if (ec || e.offset > size || (e.lengthGiven && e.length > available))
        refuse(path, fmt::format("the data of tensor '{}' lies beyond the end of '{}' ({} bytes)", t.name(),
                                 e.file.string(), size));
    if (!e.lengthGiven)
        e.length = available;
    return e;
}

// A tensor whose data does not match its dims is a corrupt model, refused before the ONNX
// library reads it (shape inference reads integer tensors' values).
void checkTensor(const std::string& path, const onnx::TensorProto& t) {
    const std::optional<std::uint64_t> elements = declaredElements(t);
    if (!elements)
        refuse(path, fmt::format("tensor '{}' has a negative dimension", t.name()));
    const unsigned bytes = elementBytes(t.data_type());
    const std::uint64_t needed = saturatingProduct(*elements, bytes);
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        const ExternalData e = externalData(path, t);
        if (bytes != 0 && (e.lengthGiven ? e.length != needed : e.length < needed))
            refuse(path, fmt::format("tensor '{}' declares {} elements ({} bytes), its external data in '{}' "
                                     "holds {} bytes",
                                     t.name(), *elements, needed, e.file.string(), e.length));
        return;
    }
    if (bytes == 0)
        return;  // strings, complex and unknown types: left to the ONNX checker
    const std::uint64_t held =
        t.has_raw_data() ? t.raw_data().size() : saturatingProduct(typedValues(t), bytes);
    if (held != needed)
        refuse(path, fmt::format("tensor '{}' declares {} elements ({} bytes) but holds {} bytes", t.name(),
                                 *elements, needed, held));
}

// ONNX 1.12's shape inference divides by these attributes (Conv and pooling strides, dilations
// and kernel, DepthToSpace's block size, ...) without checking them first.
void checkAttributes(const std::string& path, const onnx::NodeProto& n) {
    if (!n.domain().empty() && n.domain() != "ai.onnx")
        return;
    static const std::set<std::string> positive{"strides", "dilations", "kernel_shape", "blocksize", "group"};
    for (const auto& a : n.attribute()) {
        if (!positive.count(a.name()))
            continue;
        std::vector<std::int64_t> values(a.ints().begin(), a.ints().end());
        if (a.type() == onnx::AttributeProto::INT)
            values = {a.i()};
        for (std::int64_t v : values)
            if (v < 1)
                refuse(path, fmt::format("node '{}' ({}): {} must be positive, got {}", n.name(), n.op_type(),
                                         a.name(), v));
    }
}

// Every tensor and node, subgraphs included (their depth is bounded by protobuf's parser).
void checkGraph(const std::string& path, const onnx::GraphProto& g) {
    for (const auto& t : g.initializer())
        checkTensor(path, t);
    for (const auto& sparse : g.sparse_initializer()) {
        checkTensor(path, sparse.values());
        checkTensor(path, sparse.indices());
    }
    for (const auto& n : g.node()) {
        checkAttributes(path, n);
        for (const auto& a : n.attribute()) {
            if (a.has_t())
                checkTensor(path, a.t());
            for (const auto& t : a.tensors())
                checkTensor(path, t);
            if (a.has_g())
                checkGraph(path, a.g());
            for (const auto& sub : a.graphs())
                checkGraph(path, sub);
        }
    }
}

// ONNX 1.12's shape inference for convolutions and pools indexes the input's spatial dims by the
// weights' rank and by the attributes' lengths without checking them (a crash), and finds a SAME
// padding's residual by subtracting the stride from the dim one step at a time (a hang on a huge
// dim). Each schema's inference is wrapped to refuse those first: the node's shapes then stay
// unknown, like any node whose shapes ONNX cannot infer.
void checkConvPoolInputs(onnx::InferenceContext& ctx, std::size_t data, std::optional<std::size_t> weights) {
    auto shapeOf = [&](std::size_t i) -> const onnx::TensorShapeProto* {
        const onnx::TypeProto* t = i < ctx.getNumInputs() ? ctx.getInputType(i) : nullptr;
        return t && t->has_tensor_type() && t->tensor_type().has_shape() ? &t->tensor_type().shape()
                                                                         : nullptr;
    };
    const onnx::TensorShapeProto* x = shapeOf(data);
    if (!x)
        return;
    const int spatial = x->dim_size() - 2;
    if (spatial < 0)
        fail_shape_inference("the input needs a batch and a channel dimension");
    for (int i = 2; i < x->dim_size(); ++i)
        if (x->dim(i).has_dim_value() && x->dim(i).dim_value() > (std::int64_t{1} << 24))
            fail_shape_inference("spatial dimension ", x->dim(i).dim_value(), " is too large to infer");
    if (const onnx::TensorShapeProto* w = weights ? shapeOf(*weights) : nullptr;
        w && w->dim_size() != x->dim_size())
        fail_shape_inference("weights of rank ", w->dim_size(), " for an input of rank ", x->dim_size());
    for (const auto& [name, perDim] : {std::pair{"strides", 1},
                                       {"dilations", 1},
                                       {"kernel_shape", 1},
                                       {"pads", 2},
                                       {"output_padding", 1},
                                       {"output_shape", 1}}) {
        const onnx::AttributeProto* a = ctx.getAttribute(name);
        if (a && a->ints_size() != perDim * spatial)
            fail_shape_inference(name, " has ", a->ints_size(), " values for ", spatial,
                                 " spatial dimensions");
    }
}

void guardConvPoolInference() {
    // Operator → its data input and weights input (none for pools).
    static const std::map<std::string, std::pair<std::size_t, std::optional<std::size_t>>> ops{
        {"Conv", {0, 1}},         {"ConvInteger", {0, 1}}, {"QLinearConv", {0, 3}}, {"ConvTranspose", {0, 1}},
        {"AveragePool", {0, {}}}, {"MaxPool", {0, {}}},    {"LpPool", {0, {}}}};
    for (const onnx::OpSchema& copy : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
        const auto op = ops.find(copy.Name());
        if (op == ops.end() || copy.domain() != onnx::ONNX_DOMAIN)
            continue;
        // The registry's own entry (the list above holds copies); the registry keeps it mutable.
        auto* schema = const_cast<onnx::OpSchema*>(
            onnx::OpSchemaRegistry::Schema(copy.Name(), copy.SinceVersion(), copy.domain()));
        if (!schema || schema->SinceVersion() != copy.SinceVersion())
            continue;
        schema->TypeAndShapeInferenceFunction([infer = schema->GetTypeAndShapeInferenceFunction(),
                                               io = op->second](onnx::InferenceContext& ctx) {
            checkConvPoolInputs(ctx, io.first, io.second);
            infer(ctx);
        });
    }
}

// Integer initializers kept in external data are what shape inference reads values from (Reshape's
// target shape, ...): read them into the model; float weights stay where they are (only their
// dims matter here). checkGraph has bounded their byte ranges by their files and dims.
void inlineExternalIntegers(onnx::ModelProto& model, const std::string& path) {
    for (auto& t : *model.mutable_graph()->mutable_initializer()) {
        if (t.data_location() != onnx::TensorProto::EXTERNAL ||
            (t.data_type() != onnx::TensorProto::INT64 && t.data_type() != onnx::TensorProto::INT32))
            continue;
        const ExternalData e = externalData(path, t);
        const std::uint64_t length = saturatingProduct(*declaredElements(t), elementBytes(t.data_type()));
        std::string bytes(static_cast<std::size_t>(length), '\0');
        std::ifstream data(e.file, std::ios::binary);
        data.seekg(static_cast<std::streamoff>(e.offset));
        if (!data.read(bytes.data(), static_cast<std::streamsize>(length)))
            refuse(path, fmt::format("the data of tensor '{}' cannot be read from '{}'", t.name(),
                                     e.file.string()));
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
        checkGraph(path, model.graph());
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
        static std::once_flag guarded;
        std::call_once(guarded, guardConvPoolInference);
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
    for (const auto& o : model.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            g.opset = o.version();
    const onnx::GraphProto& graph = model.graph();
    g.name = graph.name();
    for (const auto& init : graph.initializer()) {
        OnnxTensor t;
        t.shapeKnown = true;
        t.elementBytes = elementBytes(init.data_type());
        t.dims.assign(init.dims().begin(), init.dims().end());
        g.tensors[init.name()] = t;
        if (t.elements() == 1)
            if (auto v = scalarValue(init))
                g.scalars[init.name()] = *v;
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
            else if (a.type() == onnx::AttributeProto::FLOAT)
                node.floats[a.name()] = a.f();
            else if (a.type() == onnx::AttributeProto::STRING)
                node.strings[a.name()] = a.s();
        }
        g.nodes.push_back(std::move(node));
    }
    return g;
}

}  // namespace tessim
