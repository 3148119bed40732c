"""What the Python package adds to a run: the same executor timed by kiln's own loop
(ex.benchmark, C++), by a Python loop of ex.run(), and by the one-call ex(input=x) (set the input,
run, return NumPy outputs), alternating round by round. Prints medians and the overhead per call
in microseconds over the C++ loop, for a tiny model (all overhead) and a network.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_api.py [--rounds 5]
"""
import argparse
import io
import statistics
import time

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto, helper

import kiln


def tiny_model():
    f = TensorProto.FLOAT
    graph = helper.make_graph([helper.make_node("Relu", ["input"], ["y"])], "tiny",
                              [helper.make_tensor_value_info("input", f, [1, 16])],
                              [helper.make_tensor_value_info("y", f, [1, 16])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def resnet18():
    torch.manual_seed(0)
    buffer = io.BytesIO()
    torch.onnx.export(torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224), buffer,
                      input_names=["input"], opset_version=13)
    return onnx.load_from_string(buffer.getvalue())


def python_loop_ms(ex, number):
    start = time.perf_counter()
    for _ in range(number):
        ex.run()
    return (time.perf_counter() - start) * 1000 / number


def call_ms(ex, x, number):
    start = time.perf_counter()
    for _ in range(number):
        ex(input=x)
    return (time.perf_counter() - start) * 1000 / number


def measure(name, model, shape, number, rounds):
    ex = kiln.compile(model)["default"](kiln.cpu())
    x = np.random.rand(*shape).astype(np.float32)
    ex.set_input("input", x)
    cpp, loop, call = [], [], []
    for _ in range(rounds):
        cpp.append(ex.benchmark(repeat=1, number=number)["median_ms"])
        loop.append(python_loop_ms(ex, number))
        call.append(call_ms(ex, x, number))
    c, l, a = (statistics.median(v) for v in (cpp, loop, call))
    print(f"{name:10s} C++ loop {c * 1000:10.2f} us   Python run() {l * 1000:10.2f} us "
          f"(+{(l - c) * 1000:.2f})   ex(input=x) {a * 1000:10.2f} us (+{(a - c) * 1000:.2f})   "
          f"run()/C++ {l / c:.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"kiln {kiln.__version__}, {kiln.num_threads()} threads; medians of {args.rounds} rounds")
    measure("tiny", tiny_model(), (1, 16), 20000, args.rounds)
    measure("resnet18", resnet18(), (1, 3, 224, 224), 20, args.rounds)


if __name__ == "__main__":
    main()
