"""Writes models of opsets 1 to 6 in the forms ONNX defined before opset 7, each with its inputs
and the outputs numpy computes from the old definition, for cli_legacy_opsets_test.cc:

    legacy_opset_models.py DIR   ->   DIR/NAME.onnx, DIR/NAME.in.npz, DIR/NAME.want.npz
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
out_dir = sys.argv[1]


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def save(name, opset, nodes, inputs, outputs, inits=()):
    """INPUTS and OUTPUTS: {name: array}; INITS: {name: array} stored as initializers."""
    def info(n, a):
        return helper.make_tensor_value_info(n, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype],
                                             list(a.shape))
    graph = helper.make_graph(nodes, name, [info(n, a) for n, a in inputs.items()],
                              [info(n, a) for n, a in outputs.items()],
                              [numpy_helper.from_array(a, n) for n, a in dict(inits).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 3
    onnx.save(model, os.path.join(out_dir, name + ".onnx"))
    np.savez(os.path.join(out_dir, name + ".in.npz"), **inputs)
    np.savez(os.path.join(out_dir, name + ".want.npz"), **outputs)


# Binary ops: broadcast=1 with axis lines B up with A from AXIS on; without axis, as numpy.
x, b = f32(2, 3, 4, 5), f32(3, 4)
save("add_axis_1", 6, [helper.make_node("Add", ["x", "b"], ["y"], broadcast=1, axis=1)],
     {"x": x, "b": b}, {"y": x + b[None, :, :, None]})
x, b = f32(2, 3, 4), f32(2)
save("mul_axis_0", 1, [helper.make_node("Mul", ["x", "b"], ["y"], broadcast=1, axis=0,
                                        consumed_inputs=[0, 0])],
     {"x": x, "b": b}, {"y": x * b[:, None, None]})
x, b = f32(2, 3, 4), f32(4)
save("sub_suffix", 6, [helper.make_node("Sub", ["x", "b"], ["y"], broadcast=1)],
     {"x": x, "b": b}, {"y": x - b})
x = np.abs(f32(2, 3)) + 0.5
e = np.array([2.0, 0.5, 3.0], np.float32)
save("pow_axis_1", 1, [helper.make_node("Pow", ["x", "e"], ["y"], broadcast=1, axis=1)],
     {"x": x, "e": e}, {"y": np.power(x, e[None, :])})

# consumed_inputs, the in-place hint of opsets 1 to 5, changes nothing.
x = f32(3, 4)
save("relu_sigmoid_consumed", 1,
     [helper.make_node("Relu", ["x"], ["r"], consumed_inputs=[0]),
      helper.make_node("Sigmoid", ["r"], ["y"], consumed_inputs=[0])],
     {"x": x}, {"y": 1 / (1 + np.exp(-np.maximum(x, 0)))})

# PRelu before opset 7: a 1-D slope of C values applies to channel dim 1.
x, s = f32(2, 3, 4, 5), np.array([0.1, 0.2, 0.3], np.float32)
save("prelu_per_channel", 6, [helper.make_node("PRelu", ["x", "s"], ["y"])], {"x": x, "s": s},
     {"y": np.where(x < 0, x * s[None, :, None, None], x)})

# BatchNormalization with is_test and consumed_inputs (opset 5).
x = f32(2, 3, 4, 4)
scale, bias, mean = f32(3), f32(3), f32(3)
var = np.abs(f32(3)) + 0.5
save("batch_norm_is_test", 5,
     [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], is_test=1,
                       epsilon=1e-5, consumed_inputs=[0, 0, 0, 1, 1])],
     {"x": x}, {"y": (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
                * scale[None, :, None, None] + bias[None, :, None, None]},
     {"s": scale, "b": bias, "m": mean, "v": var})

# Reshape's shape as an attribute (opsets 1 to 4).
x = f32(2, 3, 4)
save("reshape_attribute", 4, [helper.make_node("Reshape", ["x"], ["y"], shape=[6, -1])],
     {"x": x}, {"y": x.reshape(6, 4)})

# Concat without axis (opsets 1 to 3): axis 1.
a, c = f32(2, 3), f32(2, 2)
save("concat_default_axis", 3, [helper.make_node("Concat", ["a", "c"], ["y"])],
     {"a": a, "c": c}, {"y": np.concatenate([a, c], axis=1)})

# Cast's target as a type name (opsets 1 to 5).
x = f32(2, 3)
save("cast_type_name", 5, [helper.make_node("Cast", ["x"], ["y"], to="DOUBLE")], {"x": x},
     {"y": x.astype(np.float64)})

# Pad-1's paddings.
x = f32(2, 3)
save("pad_paddings", 1, [helper.make_node("Pad", ["x"], ["y"], paddings=[1, 0, 0, 2], value=1.5)],
     {"x": x}, {"y": np.pad(x, ((1, 0), (0, 2)), constant_values=1.5)})

# Tile-1: TILES copies along AXIS.
x = f32(2, 3)
save("tile_axis", 5, [helper.make_node("Tile", ["x", "t", "a"], ["y"])], {"x": x},
     {"y": np.tile(x, (1, 3))},
     {"t": np.array([3], np.int64), "a": np.array([1], np.int64)})

# Split-1 with the split sizes as a second input.
x = f32(6, 2)
save("split_input", 1, [helper.make_node("Split", ["x", "sizes"], ["y0", "y1"], axis=0)],
     {"x": x}, {"y0": x[:2], "y1": x[2:]}, {"sizes": np.array([2, 4], np.int64)})

# Upsample-1: height_scale and width_scale.
x = f32(1, 2, 2, 3)
save("upsample_scales", 6,
     [helper.make_node("Upsample", ["x"], ["y"], height_scale=2.0, width_scale=3.0,
                       mode="nearest")],
     {"x": x}, {"y": x.repeat(2, axis=2).repeat(3, axis=3)})

# Gemm's broadcast attribute (opsets 1 to 6).
a, bm, c = f32(2, 3), f32(3, 4), f32(4)
save("gemm_broadcast", 6,
     [helper.make_node("Gemm", ["a", "b", "c"], ["y"], broadcast=1, alpha=0.5, beta=2.0)],
     {"a": a}, {"y": 0.5 * a @ bm + 2.0 * c}, {"b": bm, "c": c})

# A binary op whose axis puts B outside A is refused, naming the node and the ranks.
x, b = f32(2, 3), f32(3, 4)
save("bad_axis", 6, [helper.make_node("Add", ["x", "b"], ["y"], broadcast=1, axis=1)],
     {"x": x, "b": b}, {"y": x})
