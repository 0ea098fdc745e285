#!/usr/bin/env python3
"""Writes the ONNX models tessim's tests and README use, built here with python3-onnx (never
downloaded): OUT/<name>.onnx and OUT/<name>.shapes.json, the shapes ONNX's own shape inference
gives every Conv, Gemm and MatMul node (what tessim's layers must equal).

  resnet18     ResNet-18 as torchvision exports it (He et al., CVPR 2016): Conv (batch norm folded),
               Relu, MaxPool, Add, GlobalAveragePool, Flatten, Gemm; 224×224, batch 1
  mobilenetv2  MobileNetV2 (Sandler et al., CVPR 2018, Table 2): Conv incl. depthwise (group =
               channels), Clip (ReLU6), Add, GlobalAveragePool, Flatten, Gemm; 224×224, batch 1
  qsmall       an INT8 model: QuantizeLinear, QLinearConv (one depthwise), a QDQ Conv,
               QLinearMatMul, DequantizeLinear
  small        a few small layers for fast tests: Conv, a depthwise Conv, a dilated Conv (run as
               its four phases), Relu, Softmax (on the K1; listed elsewhere), MatMul; also as small-external.onnx with its weights in
               small-external.data (ONNX external data)
  gates        gated activations: Conv, SiLU (Sigmoid and Mul), a pointwise Conv, Tanh, Div by a
               constant, GlobalAveragePool, Flatten, Gemm — every node simulated on the K1
  axes         windows that differ between H and W, as Inception's factorised layers: 1×7 and 7×1
               Convs, a Conv at strides [2, 1], a MaxPool 3×2 at strides [1, 2], a Conv dilated
               [2, 3] at strides [2, 2] (phases of strides 1 and 2), GlobalAveragePool, Gemm

Weights are zeros: tessim reads shapes only. Usage: make_models.py OUT_DIR [NAME...]
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference


class Graph:
    def __init__(self, name):
        self.name = name
        self.nodes, self.inits = [], []

    def weight(self, name, shape):
        self.inits.append(numpy_helper.from_array(np.zeros(shape, np.float32), name))
        return name

    def node(self, op, inputs, name, **attrs):
        out = name + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride, pad, name, group=1, dilation=1):
        w = self.weight(name + ".weight", [cout, cin // group, k, k])
        b = self.weight(name + ".bias", [cout])
        return self.node("Conv", [x, w, b], name, kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4, group=group, dilations=[dilation, dilation])

    def gemm(self, x, k, n, name):
        w = self.weight(name + ".weight", [n, k])
        b = self.weight(name + ".bias", [n])
        return self.node("Gemm", [x, w, b], name, transB=1)

    def model(self, input_shape, output, output_shape):
        graph = helper.make_graph(
            self.nodes, self.name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, input_shape)],
            [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="tessim")
        onnx.checker.check_model(m)
        return m


def resnet18():
    g = Graph("resnet18")
    x = g.node("Relu", [g.conv("input", 3, 64, 7, 2, 3, "conv1")], "relu")
    x = g.node("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512], start=1):
        for block in range(2):
            stride = 2 if stage > 1 and block == 0 else 1
            p = f"layer{stage}.{block}"
            y = g.node("Relu", [g.conv(x, cin, cout, 3, stride, 1, p + ".conv1")], p + ".relu1")
            y = g.conv(y, cout, cout, 3, 1, 1, p + ".conv2")
            short = g.conv(x, cin, cout, 1, stride, 0, p + ".downsample") if stride != 1 or cin != cout else x
            x = g.node("Relu", [g.node("Add", [y, short], p + ".add")], p + ".relu2")
            cin = cout
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "avgpool")], "flatten", axis=1)
    return g.model([1, 3, 224, 224], g.gemm(x, 512, 1000, "fc"), [1, 1000])


def mobilenetv2():
    g = Graph("mobilenetv2")
    six = g.weight("relu6.max", [])
    zero = g.weight("relu6.min", [])
    g.inits[-2] = numpy_helper.from_array(np.array(6.0, np.float32), six)

    def relu6(x, name):
        return g.node("Clip", [x, zero, six], name)

    x = relu6(g.conv("input", 3, 32, 3, 2, 1, "conv1"), "conv1.relu6")
    cin, block = 32, 0
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            p, stride, hidden = f"block{block}", s if i == 0 else 1, cin * t
            y = relu6(g.conv(x, cin, hidden, 1, 1, 0, p + ".expand"), p + ".expand.relu6") if t != 1 else x
            y = relu6(g.conv(y, hidden, hidden, 3, stride, 1, p + ".depthwise", group=hidden), p + ".depthwise.relu6")
            y = g.conv(y, hidden, c, 1, 1, 0, p + ".project")
            x = g.node("Add", [y, x], p + ".add") if stride == 1 and cin == c else y
            cin, block = c, block + 1
    x = relu6(g.conv(x, cin, 1280, 1, 1, 0, "conv_last"), "conv_last.relu6")
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "avgpool")], "flatten", axis=1)
    return g.model([1, 3, 224, 224], g.gemm(x, 1280, 1000, "classifier"), [1, 1000])


def small():
    g = Graph("small")
    x = g.node("Relu", [g.conv("input", 8, 16, 3, 1, 1, "conv")], "relu")
    x = g.conv(x, 16, 16, 3, 2, 1, "depthwise", group=16)
    x = g.conv(x, 16, 16, 3, 1, 2, "dilated", dilation=2)
    x = g.node("Reshape", [x, "shape"], "reshape")
    g.inits.append(numpy_helper.from_array(np.array([64, 16], np.int64), "shape"))
    x = g.node("MatMul", [x, g.weight("proj.weight", [16, 32])], "proj")
    return g.model([1, 8, 16, 16], g.node("Softmax", [x], "softmax", axis=1), [64, 32])


def gates():
    g = Graph("gates")
    x = g.conv("input", 8, 16, 3, 1, 1, "conv")
    x = g.node("Mul", [x, g.node("Sigmoid", [x], "sigmoid")], "silu")  # x * sigmoid(x)
    x = g.node("Tanh", [g.conv(x, 16, 16, 1, 1, 0, "pointwise")], "tanh")
    g.inits.append(numpy_helper.from_array(np.array(2.0, np.float32), "two"))
    x = g.node("Div", [x, "two"], "halve")
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "avgpool")], "flatten", axis=1)
    return g.model([1, 8, 12, 12], g.gemm(x, 16, 10, "fc"), [1, 10])


def axes():
    g = Graph("axes")

    def conv(x, cin, cout, kernel, strides, pads, name, dilations=(1, 1)):
        w = g.weight(name + ".weight", [cout, cin, *kernel])
        b = g.weight(name + ".bias", [cout])
        return g.node("Conv", [x, w, b], name, kernel_shape=list(kernel), strides=list(strides), pads=list(pads),
                      dilations=list(dilations))

    x = g.node("Relu", [conv("input", 8, 16, (1, 7), (1, 1), (0, 3, 0, 3), "conv1x7")], "relu1x7")
    x = conv(x, 16, 16, (7, 1), (1, 1), (3, 0, 3, 0), "conv7x1")
    x = conv(x, 16, 24, (3, 3), (2, 1), (1, 1, 1, 1), "tall")
    x = g.node("MaxPool", [x], "pool", kernel_shape=[3, 2], strides=[1, 2])
    x = conv(x, 24, 16, (3, 3), (2, 2), (2, 3, 2, 3), "dilated", dilations=(2, 3))
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x], "avgpool")], "flatten", axis=1)
    return g.model([1, 8, 17, 17], g.gemm(x, 16, 10, "fc"), [1, 10])


def qsmall():
    """An INT8 model as quantisation tools write it: QuantizeLinear, QLinearConv, a depthwise
    QLinearConv, a float Conv between DequantizeLinear nodes (the QDQ form, its weights an INT8
    initializer dequantised), QLinearMatMul after a Reshape, DequantizeLinear."""
    g = Graph("qsmall")

    def const(name, array):
        g.inits.append(numpy_helper.from_array(array, name))
        return name

    s, zp = const("s", np.array(0.05, np.float32)), const("zp", np.array(0, np.int8))

    def qconv(x, cin, cout, k, stride, pad, name, group=1):
        w = const(name + ".weight", np.zeros([cout, cin // group, k, k], np.int8))
        b = const(name + ".bias", np.zeros([cout], np.int32))
        return g.node("QLinearConv", [x, s, zp, w, s, zp, s, zp, b], name, kernel_shape=[k, k],
                      strides=[stride, stride], pads=[pad] * 4, group=group)

    x = g.node("QuantizeLinear", ["input", s, zp], "quant")
    x = qconv(x, 8, 16, 3, 1, 1, "conv")
    x = qconv(x, 16, 16, 3, 2, 1, "depthwise", group=16)
    x = g.node("DequantizeLinear", [x, s, zp], "dequant")
    w = g.node("DequantizeLinear", [const("pointwise.weight_q", np.zeros([16, 16, 1, 1], np.int8)), s, zp],
               "pointwise.weight")
    x = g.node("Conv", [x, w], "pointwise", kernel_shape=[1, 1])
    x = g.node("QuantizeLinear", [x, s, zp], "requant")
    x = g.node("Reshape", [x, const("shape", np.array([64, 16], np.int64))], "reshape")
    x = g.node("QLinearMatMul", [x, s, zp, const("proj.weight", np.zeros([16, 32], np.int8)), s, zp, s, zp],
               "proj")
    return g.model([1, 8, 16, 16], g.node("DequantizeLinear", [x, s, zp], "output"), [64, 32])


def shapes(model):
    """Every Conv, Gemm and MatMul node's input, weight and output dims, by ONNX shape inference."""
    inferred = shape_inference.infer_shapes(model, strict_mode=True)
    dims = {}
    for v in list(inferred.graph.input) + list(inferred.graph.value_info) + list(inferred.graph.output):
        dims[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in inferred.graph.initializer:
        dims[t.name] = list(t.dims)
    out = []
    for n in inferred.graph.node:
        if n.op_type in ("Conv", "Gemm", "MatMul"):
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            out.append({"name": n.name, "op": n.op_type, "input": dims[n.input[0]], "weight": dims[n.input[1]],
                        "output": dims[n.output[0]], "group": attrs.get("group", 1),
                        "dilations": list(attrs.get("dilations", [1, 1]))})
    return out


MODELS = {"resnet18": resnet18, "mobilenetv2": mobilenetv2, "small": small, "qsmall": qsmall, "gates": gates,
          "axes": axes}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name in sys.argv[2:] or MODELS:
        model = MODELS[name]()
        onnx.save(model, os.path.join(out_dir, name + ".onnx"))
        with open(os.path.join(out_dir, name + ".shapes.json"), "w") as f:
            json.dump(shapes(model), f, indent=1)
        if name == "small":  # the same model with its weights in a file beside it (external data)
            data = os.path.join(out_dir, "small-external.data")
            if os.path.exists(data):
                os.remove(data)
            onnx.save(model, os.path.join(out_dir, "small-external.onnx"), save_as_external_data=True,
                      all_tensors_to_one_file=True, location="small-external.data", size_threshold=0)
