#!/usr/bin/env python3
"""Writes the seed corpus of the ONNX fuzzing harness (tests/fuzz/OnnxFuzz.cpp), built here with
python3-onnx, never downloaded: small valid models (a few hundred bytes to about 1 KB each; weights
are graph inputs or tiny initializers, tessim reads shapes only), each also truncated, and models
broken on purpose where the reader must refuse or leave a node unsimulated (bad-*.onnx).

External data resolves against the harness's scratch folder, which holds `weights.bin`
(tests/fuzz/OnnxFuzzWeights.h: 16 int64 values 1, 36, 4, 9, 2, 18, ...).

Usage: make_onnx_corpus.py [OUT_DIR]   (default: tests/fuzz/corpus/onnx beside this script)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 13)]


def value(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def weight(name, shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def model(name, nodes, inputs, outputs, inits=(), opset=OPSET, value_info=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits), value_info=list(value_info))
    return helper.make_model(graph, opset_imports=opset, producer_name="tessim")


def conv_gemm():
    """Conv (pads) → Relu → MaxPool → Flatten → Gemm (transB) → Softmax, weights as initializers."""
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["g"], name="fc", transB=1),
        helper.make_node("Softmax", ["g"], ["y"], name="softmax", axis=1),
    ]
    inits = [weight("w", [4, 2, 3, 3]), weight("b", [4]), weight("fc", [3, 36]), weight("fcb", [3])]
    return model("conv_gemm", nodes, [value("x", [1, 2, 6, 6])], [value("y", [1, 3])], inits)


def depthwise_same():
    """A grouped Conv with auto_pad SAME_UPPER and stride 2, BatchNormalization, a global pool."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="dw", group=4, strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("BatchNormalization", ["c", "s", "bias", "mean", "var"], ["n"], name="bn"),
        helper.make_node("Conv", ["n", "pw"], ["d"], name="pw", kernel_shape=[1, 1]),
        helper.make_node("GlobalAveragePool", ["d"], ["y"], name="gap"),
    ]
    inputs = [value("x", [1, 4, 7, 7]), value("w", [4, 1, 3, 3]), value("pw", [8, 4, 1, 1])]
    inputs += [value(n, [4]) for n in ("s", "bias", "mean", "var")]
    return model("depthwise_same", nodes, inputs, [value("y", [1, 8, 1, 1])])


def matmul_reshape():
    """Reshape by an int64 initializer (read by shape inference), MatMul, a batched MatMul, Add."""
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
        helper.make_node("MatMul", ["r", "w"], ["m"], name="proj"),
        helper.make_node("Add", ["m", "m"], ["a"], name="add"),
        helper.make_node("MatMul", ["q", "k"], ["s"], name="attention"),
    ]
    inputs = [value("x", [2, 3, 4]), value("w", [4, 5]), value("q", ["batch", 3, 4]), value("k", ["batch", 4, 3])]
    return model("matmul_reshape", nodes, inputs, [value("a", [6, 5]), value("s", ["batch", 3, 3])],
                 [ints("shape", [6, 4])])


def subgraph_if():
    """An If whose branches hold a Conv each (subgraphs: nested shape inference)."""
    def branch(name, k):
        conv = helper.make_node("Conv", ["x", "w" + name], ["o" + name], name="conv_" + name, kernel_shape=[k, k])
        return helper.make_graph([conv], name, [], [value("o" + name, ["n", "c", "h", "w"])],
                                 [weight("w" + name, [2, 2, k, k])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=branch("then", 1),
                              else_branch=branch("else", 3)),
             helper.make_node("Conv", ["x", "w"], ["z"], name="conv", kernel_shape=[1, 1])]
    inputs = [value("cond", [], TensorProto.BOOL), value("x", [1, 2, 5, 5]), value("w", [2, 2, 1, 1])]
    return model("subgraph_if", nodes, inputs, [value("y", ["n", "c", "h", "w"]), value("z", [1, 2, 5, 5])])


def many_ops():
    """Ops whose shape inference reads values (Shape, Gather, Concat, Slice, Range, ConstantOfShape,
    Expand, Tile, Resize) or divides by attributes (pools, ConvTranspose, SpaceToDepth)."""
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Gather", ["s", "idx"], ["hw"], name="gather", axis=0),
        n("Concat", ["one", "hw"], ["target"], name="concat", axis=0),
        n("Reshape", ["x", "target"], ["flat"], name="reshape"),
        n("Slice", ["x", "starts", "ends", "axes", "steps"], ["sl"], name="slice"),
        n("AveragePool", ["sl"], ["ap"], name="avg", kernel_shape=[2, 2], strides=[1, 1]),
        n("ConvTranspose", ["ap", "wt"], ["ct"], name="deconv", strides=[2, 2]),
        n("SpaceToDepth", ["x"], ["sd"], name="s2d", blocksize=2),
        n("DepthToSpace", ["sd"], ["ds"], name="d2s", blocksize=2),
        n("Range", ["r0", "r1", "r2"], ["range"], name="range"),
        n("ConstantOfShape", ["idx"], ["zeros"], name="zeros"),
        n("Expand", ["one", "idx"], ["ex"], name="expand"),
        n("Tile", ["x", "reps"], ["tiled"], name="tile"),
        n("Resize", ["x", "", "scales"], ["up"], name="resize"),
        n("Split", ["x"], ["a", "b"], name="split", axis=1),
        n("Einsum", ["a", "b"], ["e"], name="einsum", equation="nchw,nchw->nc"),
        n("Transpose", ["e"], ["t"], name="transpose", perm=[1, 0]),
        n("MatMul", ["flat", "wm"], ["m"], name="matmul"),
        n("MatMul", ["xm", "wm"], ["m2"], name="matmul2"),
    ]
    inits = [ints("idx", [2, 3]), ints("one", [1]), ints("starts", [0, 0]), ints("ends", [3, 3]),
             ints("axes", [2, 3]), ints("steps", [1, 1]), ints("r0", 0), ints("r1", 5), ints("r2", 1),
             ints("reps", [1, 1, 2, 2]), numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")]
    inputs = [value("x", [1, 4, 4, 4]), value("wt", [4, 2, 3, 3]), value("wm", [4, 8]), value("xm", [3, 4])]
    ranks = {"ct": 4, "ds": 4, "range": 1, "zeros": 2, "ex": 2, "tiled": 4, "up": 4, "t": 2, "m": 3, "m2": 2}
    outputs = [value(name, [f"{name}{i}" for i in range(rank)], TensorProto.INT64 if name in ("range", "ex") else
                     TensorProto.FLOAT) for name, rank in ranks.items()]
    return model("many_ops", nodes, inputs, outputs, inits)


def external(tensor, location, offset=None, length=None):
    """Moves an initializer's data to weights.bin (or wherever `location` says)."""
    tensor.ClearField("int64_data")
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(v)
    return tensor


def external_shape(location="weights.bin", offset=0, length=16, float_external=True):
    """conv_gemm's Flatten as a Reshape whose target shape [1, 36] lives in weights.bin."""
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "shape"], ["f"], name="reshape"),
        helper.make_node("Gemm", ["f", "fc"], ["y"], name="fc", transB=1),
    ]
    shape = external(ints("shape", [0, 0]), location, offset, length)
    inits = [weight("w", [4, 2, 3, 3]), weight("b", [4]), weight("fc", [3, 36]), shape]
    if float_external:  # float weights outside the model too (only their dims are read)
        inits[1] = external(inits[1], "weights.bin", 64, 16)
    return model("external_shape", nodes, [value("x", [1, 2, 6, 6])], [value("y", [1, 3])], inits)


def single_conv(name, x_shape, w_shape, inputs_as_values=True, **attrs):
    """One Conv with its weights as a graph input; attributes as given (checker not asked)."""
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    return model(name, [node], [value("x", x_shape), value("w", w_shape)], [value("y", ["n", "c", "h", "w"])])


def single_node(name, op, shapes, **attrs):
    """One node on graph inputs of the given shapes (x, w, ...), its output's rank left open."""
    names = ["x", "w", "b"][: len(shapes)]
    node = helper.make_node(op, names, ["y"], name=name, **attrs)
    return model(name, [node], [value(n, s) for n, s in zip(names, shapes)], [value("y", ["n", "c", "h", "w"])])


def valid_models():
    return {
        "conv-gemm": conv_gemm(),
        "depthwise-same": depthwise_same(),
        "matmul-reshape": matmul_reshape(),
        "subgraph-if": subgraph_if(),
        "many-ops": many_ops(),
        "external-shape": external_shape(),
    }


def broken_models():
    """Models a user or a fuzzer could write: each must give ConfigError or a not-simulated node."""
    wrong_size = conv_gemm()
    wrong_size.graph.initializer[0].raw_data = b"\0" * 7  # 72 floats declared, 7 bytes given
    huge_dims = single_conv("huge_dims", [1, 2, 6, 6], [2**40, 2, 3, 3])
    negative_dims = single_conv("negative_dims", [1, -2, 6, 6], [4, -2, 3, 3])
    return {
        "bad-stride-zero-same": single_conv("stride0", [1, 2, 6, 6], [4, 2, 3, 3], strides=[0, 0],
                                            auto_pad="SAME_UPPER"),
        "bad-stride-zero": single_conv("stride0", [1, 2, 6, 6], [4, 2, 3, 3], strides=[0, 0]),
        "bad-stride-negative-same": single_conv("strideneg", [1, 2, 6, 6], [4, 2, 3, 3], strides=[-3, -3],
                                                auto_pad="SAME_LOWER"),
        "bad-group-zero": single_conv("group0", [1, 4, 6, 6], [4, 1, 3, 3], group=0),
        "bad-group-negative": single_conv("groupneg", [1, 4, 6, 6], [4, 1, 3, 3], group=-4),
        "bad-group-huge": single_conv("grouphuge", [1, 4, 6, 6], [4, 1, 3, 3], group=2**62),
        "bad-group-not-dividing": single_conv("group3", [1, 4, 6, 6], [4, 1, 3, 3], group=3),
        "bad-kernel-zero": single_conv("k0", [1, 2, 6, 6], [4, 2, 0, 0]),
        "bad-channels-zero": single_conv("c0", [1, 0, 6, 6], [4, 0, 3, 3]),
        "bad-pads-negative": single_conv("padneg", [1, 2, 6, 6], [4, 2, 3, 3], pads=[-1, -1, -1, -1]),
        "bad-dims-huge": huge_dims,
        "bad-dims-huge-image": single_conv("hugeimage", [1, 2**62, 2**62, 2**62], [2**62, 2**62, 3, 3]),
        "bad-dims-negative": negative_dims,
        "bad-initializer-size": wrong_size,
        "bad-external-parent": external_shape("../weights.bin"),
        "bad-external-absolute": external_shape("/dev/zero", 0, 16, float_external=False),
        "bad-external-folder": external_shape(".", float_external=False),
        "bad-external-no-length": external_shape("weights.bin", 8, None, float_external=False),
        "bad-external-huge-length": external_shape("weights.bin", 0, 2**60, float_external=False),
        "bad-external-past-end": external_shape("weights.bin", 120, 16, float_external=False),
        "bad-external-negative-offset": external_shape("weights.bin", -8, 16, float_external=False),
        "bad-external-text-offset": external_shape("weights.bin", "eight", 16, float_external=False),
        "bad-external-missing": external_shape("missing.bin", float_external=False),
        # ONNX 1.12's shape inference indexes spatial dims by the weights' rank and the attributes'
        # lengths, and counts a SAME padding's residual by repeated subtraction.
        "bad-conv-rank-mismatch": single_node("conv", "Conv", [[1, 2, 6], [4, 2, 3, 3]]),
        "bad-conv-weight-rank-short": single_node("conv", "Conv", [[1, 2, 6, 6], [4, 2, 3]]),
        "bad-conv-kernel-shape-length": single_node("conv", "Conv", [[1, 2, 6, 6], [4, 2, 3, 3]],
                                                    kernel_shape=[3, 3, 3]),
        "bad-conv-pads-length": single_node("conv", "Conv", [[1, 2, 6, 6], [4, 2, 3, 3]], pads=[1, 1]),
        "bad-conv-dilations-length": single_node("conv", "Conv", [[1, 2, 6, 6], [4, 2, 3, 3]], dilations=[1]),
        "bad-pool-huge-same": single_node("pool", "MaxPool", [[1, 2, 2**62, 2**62]], kernel_shape=[2, 2],
                                          strides=[2, 2], auto_pad="SAME_UPPER"),
        "bad-conv-huge-same": single_node("conv", "Conv", [[1, 2, 2**62, 2**62], [4, 2, 3, 3]], strides=[3, 3],
                                          auto_pad="SAME_LOWER"),
        "bad-convtranspose-output-padding": single_node("deconv", "ConvTranspose", [[1, 2, 4, 4], [2, 2, 3, 3]],
                                                        strides=[2, 2], output_padding=[1]),
        "bad-convtranspose-rank-mismatch": single_node("deconv", "ConvTranspose", [[1, 2, 4], [2, 2, 3, 3]]),
        "bad-pool-kernel-length": single_node("pool", "AveragePool", [[1, 2, 6, 6]], kernel_shape=[2]),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "onnx")
    os.makedirs(out, exist_ok=True)
    for name, m in valid_models().items():
        data = m.SerializeToString()
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
        with open(os.path.join(out, "bad-truncated-" + name + ".onnx"), "wb") as f:
            f.write(data[: len(data) * 2 // 3])
    for name, m in broken_models().items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
