// An ONNX graph built in memory for the layer-mapping tests: tensors of known shapes (4-byte
// elements) and nodes reading "x" and "w" into "y" with integer attributes and an auto_pad.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "workloads/onnx/OnnxGraph.h"

namespace tessim::test {

struct InMemoryOnnxGraph {
    OnnxGraph g;
    explicit InMemoryOnnxGraph(std::string path) { g.path = std::move(path); }
    void tensor(const std::string& name, std::vector<std::int64_t> dims) {
        OnnxTensor t;
        t.dims = std::move(dims);
        t.shapeKnown = true;
        t.elementBytes = 4;
        g.tensors[name] = t;
    }
    void node(const std::string& op, const std::string& name,
              std::map<std::string, std::vector<std::int64_t>> ints = {}, const std::string& autoPad = "") {
        OnnxNode n;
        n.op = op;
        n.name = name;
        n.inputs = {"x", "w"};
        n.outputs = {"y"};
        n.ints = std::move(ints);
        if (!autoPad.empty())
            n.strings["auto_pad"] = autoPad;
        g.nodes.push_back(n);
    }
};

}  // namespace tessim::test
