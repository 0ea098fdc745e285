// An ONNX model as tessim reads it: its nodes in graph order with their attributes, and every
// tensor's shape after ONNX shape inference. Free of the ONNX headers, so that turning a model
// into layers (OnnxLayers) builds and is tested without the ONNX library.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tessim {

// a·b, or 2⁶⁴−1 where that overflows: a model may declare absurd shapes, and its counts then stay
// at the ceiling instead of wrapping to small numbers.
inline std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
        return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}

struct OnnxTensor {
    std::vector<std::int64_t> dims;  // −1: a dimension shape inference left symbolic or unknown
    bool shapeKnown = false;         // false: not even the rank is known
    unsigned elementBytes = 0;       // 0: element type unknown
    bool known() const {
        if (!shapeKnown)
            return false;
        for (std::int64_t d : dims)
            if (d < 0)
                return false;
        return true;
    }
    std::uint64_t elements() const {  // of a known shape; saturates (saturatingProduct)
        std::uint64_t n = 1;
        for (std::int64_t d : dims)
            n = saturatingProduct(n, static_cast<std::uint64_t>(d));
        return n;
    }
};

struct OnnxNode {
    std::string op, name;
    std::vector<std::string> inputs, outputs;               // "" for an optional input left out
    std::map<std::string, std::vector<std::int64_t>> ints;  // INT and INTS attributes
    std::map<std::string, std::string> strings;             // STRING attributes
    std::map<std::string, double> floats;                   // FLOAT attributes
    std::int64_t intAttribute(const std::string& key, std::int64_t fallback) const {
        auto it = ints.find(key);
        return it == ints.end() || it->second.empty() ? fallback : it->second.front();
    }
};

struct OnnxGraph {
    std::string path, name;
    std::int64_t opset = 0;  // the default domain's opset the model imports (0: not known)
    std::vector<OnnxNode> nodes;
    std::map<std::string, OnnxTensor> tensors;  // graph inputs, outputs, initializers, value_info
    std::map<std::string, double> scalars;      // the value of each one-element numeric initializer
    const OnnxTensor* tensor(const std::string& name) const {
        auto it = tensors.find(name);
        return it == tensors.end() ? nullptr : &it->second;
    }
    const double* scalar(const std::string& name) const {
        auto it = scalars.find(name);
        return it == scalars.end() ? nullptr : &it->second;
    }
};

// Parses the model, checks it (onnx::checker) and runs ONNX shape inference. A file that cannot
// be opened, parsed or checked, or a tessim built without the ONNX library: ConfigError naming
// the file (exit 2).
OnnxGraph readOnnxGraph(const std::string& path);
// Whether this tessim was built with the ONNX library (else readOnnxGraph always refuses).
bool onnxReaderAvailable();

}  // namespace tessim
