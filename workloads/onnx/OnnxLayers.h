// An ONNX model → a tessim workload tree (kernel `onnx`): every Conv, Gemm and MatMul node the
// MAC array can run becomes a conv2d layer with the model's shapes (after shape inference); every
// Relu, Clip, HardSigmoid, HardSwish, LeakyRelu, Tanh, Sigmoid, Add, Sub, Mul, Div, PRelu (operands of the
// output's shape, or one per channel or a constant, Sub's and Div's second; PRelu's slope up to 1), MaxPool,
// AveragePool (explicit symmetric pads, no dilation, floor mode) and global pool a vector layer {op, h, w,
// channels, window, Clip's min and max, and the node's flops and bytes as below}, which a kernel row that
// runs no vector layers lists as not simulated (OnnxKernel); every other node is listed in `not_simulated`
// with its FLOPs, bytes and the reason. Flatten, Reshape, Squeeze, Unsqueeze and Identity are views: 0 bytes.
//
// Layers: Conv → {h, w, channels, filters, k (or kh, kw), stride, pad (or pad_h, pad_w), groups}
// (equal strides, each dimension padded alike on both sides, no dilation; a batch of N ≤ 64
// images is N rows, `<name>.b<i>`, as are a batched pool's); a BatchNormalization that alone
// reads a Conv/Gemm layer's output is folded into it (listed with 0 FLOPs and bytes); Gemm (A: M×K, B: K×N,
// transA/transB honoured) and MatMul (A: …×M×K flattened to M rows, B: K×N) → a 1×1 convolution of an M×1
// image with K channels and N filters: the same M·K·N MACs and operand sizes. A Conv, Gemm or MatMul outside
// that is listed as not simulated, with the reason. Bias inputs are not counted.
//
// Not simulated: flops = 1 per output element (elementwise ops, and any op not named below),
// 2 (BatchNormalization), 3 (Softmax, LogSoftmax), 1 per input element (global pools and
// reductions), kernel area per output element (MaxPool, AveragePool), 2 per MAC (a Conv, Gemm or
// MatMul left out), 0 for ops that only move or reshape data; bytes = the node's input and output
// tensors at the model's element types (0 for a tensor whose shape stays unknown).
#pragma once

#include <set>
#include <string>

#include "sim/config/Node.h"
#include "workloads/onnx/OnnxGraph.h"

namespace tessim {

bool isOnnxModelPath(const std::string& path);

config::Node onnxWorkloadTree(const OnnxGraph& graph);

// The ONNX node ops lowered to vector layers (a layer row with `op:` the node's op); the same
// names as isVectorLayerOp (workloads/conv/RvvVectorLayers.h), which a test keeps in step.
const std::set<std::string>& vectorNodeOps();

// readOnnxGraph + onnxWorkloadTree. A model with no node the target can run: ConfigError.
config::Node loadOnnxModel(const std::string& path);

}  // namespace tessim
