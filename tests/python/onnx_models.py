"""Small ONNX models built with onnx.helper, and what they compute, for the package's tests."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


def make_model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def dense_model(seed=0, rows=2):
    """y = relu(x @ W + b): x float32[ROWS,4], W [4,3] and b [3] weights."""
    rng = np.random.RandomState(seed)
    w = numpy_helper.from_array(rng.randn(4, 3).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.randn(3).astype(np.float32), "B")
    return make_model(
        [helper.make_node("MatMul", ["x", "W"], ["xw"]),
         helper.make_node("Add", ["xw", "B"], ["xwb"]),
         helper.make_node("Relu", ["xwb"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, 3])], [w, b])


def dense_reference(model, x):
    weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    return np.maximum(x @ weights["W"] + weights["B"], 0)


def two_input_model():
    """s = a + b and p = a * b over float32[3]: two inputs, two outputs."""
    f = TensorProto.FLOAT
    return make_model(
        [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Mul", ["a", "b"], ["p"])],
        [helper.make_tensor_value_info("a", f, [3]), helper.make_tensor_value_info("b", f, [3])],
        [helper.make_tensor_value_info("s", f, [3]), helper.make_tensor_value_info("p", f, [3])])


def symbolic_model():
    """y = x * 2 with x float32["N", 8]: needs input_shapes."""
    two = numpy_helper.from_array(np.array(2, np.float32), "two")
    return make_model(
        [helper.make_node("Mul", ["x", "two"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8])], [two])


def split_model():
    """parts = SplitToSequence(x, [1, 2]) along axis 0 of x float32[3,2]: a sequence output."""
    split = numpy_helper.from_array(np.array([1, 2], np.int64), "split")
    seq = helper.make_tensor_sequence_value_info("parts", TensorProto.FLOAT, None)
    return make_model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])], [seq], [split])


def wide_matmul_model(rows=256, width=512, seed=0):
    """y = x @ W with x float32[ROWS,WIDTH] and W [WIDTH,WIDTH]: about a millisecond of work."""
    w = numpy_helper.from_array(
        np.random.RandomState(seed).randn(width, width).astype(np.float32) / width, "W")
    return make_model(
        [helper.make_node("MatMul", ["x", "W"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, width])], [w])


def conv_stack_model(layers=12, channels=32, size=28, seed=0):
    """LAYERS 3x3 convolutions with ReLU over float32[1,CHANNELS,SIZE,SIZE]: many kernels to
    compile."""
    rng = np.random.RandomState(seed)
    nodes, weights, last = [], [], "x"
    for i in range(layers):
        weights.append(numpy_helper.from_array(
            rng.randn(channels, channels, 3, 3).astype(np.float32) * 0.05, f"w{i}"))
        nodes.append(helper.make_node("Conv", [last, f"w{i}"], [f"c{i}"], pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"]))
        last = f"r{i}"
    shape = [1, channels, size, size]
    return make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                      [helper.make_tensor_value_info(last, TensorProto.FLOAT, shape)], weights)


def conv_bias_relu_model(seed=0):
    """relu(conv(x, w) + b) over x float32[1,3,8,8] with 4 output channels: the chain the vanilla
    extension offloads."""
    rng = np.random.RandomState(seed)
    w = numpy_helper.from_array(rng.randn(4, 3, 3, 3).astype(np.float32) * 0.2, "w")
    b = numpy_helper.from_array(rng.randn(4).astype(np.float32) * 0.1, "b")
    return make_model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], [w, b])
