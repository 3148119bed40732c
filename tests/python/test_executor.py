"""The module interface from Python: libraries, factories and executors as in C++, weights,
sequence outputs, errors as exceptions, benchmark() against `kiln run --json`, and profiles."""
import json
import subprocess
import sys

import numpy as np
import pandas
import pytest

import kiln
from onnx_models import dense_model, dense_reference, split_model, two_input_model

X = np.random.RandomState(2).rand(2, 4).astype(np.float32)


@pytest.fixture(scope="module")
def dense_lib(tmp_path_factory):
    path = tmp_path_factory.mktemp("lib") / "dense.so"
    kiln.compile(dense_model(seed=8)).export_library(path)
    return str(path)


def test_the_module_interface(dense_lib):
    lib = kiln.load_module(dense_lib)
    ex = lib["default"](kiln.cpu())
    assert isinstance(ex, kiln.Executor) and ex.type_key == "graph_executor"
    assert ex.get_num_inputs() == 1 and ex.get_num_outputs() == 1
    assert ex.get_input_index("x") == 0 and ex.get_input_index("W") == -1
    assert ex.get_input_info() == [{"name": "x", "shape": [2, 4], "dtype": "float32"}]
    assert ex.get_output_info()[0]["shape"] == [2, 3]
    ex.set_input("x", X)
    ex.run()
    y = ex.get_output(0)
    assert isinstance(y, kiln.NDArray) and y.shape == (2, 3)
    expected = dense_reference(dense_model(seed=8), X)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=1e-6)
    ex.set_input(0, X * 0)  # by index
    ex.run()
    out = kiln.empty([2, 3])
    ex.get_output(0, out)
    np.testing.assert_allclose(out.numpy(), np.maximum(dense_reference(dense_model(seed=8),
                                                                       X * 0), 0), atol=1e-6)
    np.testing.assert_array_equal(ex.get_input("x").numpy(), X * 0)
    (called,) = ex(x=X)
    assert isinstance(called, np.ndarray)
    np.testing.assert_allclose(called, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ex(X)[0], expected, rtol=1e-5, atol=1e-6)  # positional


def test_inputs_of_several_names_and_outputs():
    ex = kiln.compile(two_input_model())["default"]()
    a, b = np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)
    ex.set_input(a=a, b=b)
    ex.run()
    np.testing.assert_array_equal(ex.get_output(1).numpy(), a * b)
    s, p = ex(b=b, a=a)
    np.testing.assert_array_equal(s, a + b)
    assert ex.input_names == ["a", "b"] and ex.output_names == ["s", "p"]
    s, _ = ex(a=[1, 2, 3], b=(2, 2, 2))  # lists and tuples: converted to float32
    np.testing.assert_array_equal(s, [3, 4, 5])
    with pytest.raises(kiln.KilnError, match=r"set_input\('a'\): expected float32\[3\], got "
                                             r"float32\[2\]"):
        ex.set_input("a", [1, 2])


def test_weights_get_load_remove():
    model = dense_model(seed=9)
    factory = kiln.compile(model).get_factory()
    ex = factory.create()
    params = factory.get_params()
    assert params and all(isinstance(v, kiln.NDArray) for v in params.values())
    assert ex.get_params().keys() == params.keys()
    base = ex(x=X)[0]
    zeroed = {name: np.zeros(v.shape, v.dtype) for name, v in params.items()}
    ex.load_params(zeroed)
    np.testing.assert_array_equal(ex(x=X)[0], np.zeros((2, 3), np.float32))
    ex.load_params(kiln.save_params(params))  # the bytes form
    np.testing.assert_array_equal(ex(x=X)[0], base)
    bare = factory.remove_params().create()
    with pytest.raises(kiln.KilnError, match="parameters not loaded"):
        bare.run(x=X)
    np.testing.assert_array_equal(factory.remove_params().load_params(params).create()(x=X)[0],
                                  base)
    with pytest.raises(kiln.KilnError):
        ex.load_params({"not_a_weight": np.zeros(3, np.float32)})
    assert kiln.load_params(factory.get_params_bytes()).keys() == params.keys()


def test_external_weights_by_path(tmp_path):
    artifact = kiln.compile(dense_model(seed=10), params="external")
    weights = artifact.params_path()
    assert weights and open(weights, "rb").read(4)
    ex = artifact["default"](kiln.cpu())
    ex.load_params(weights)  # an executor takes the file too
    np.testing.assert_allclose(ex(x=X)[0], dense_reference(dense_model(seed=10), X), rtol=1e-5,
                               atol=1e-6)
    assert kiln.compile(dense_model()).params_path() is None
    with pytest.raises(kiln.KilnError, match="no model 'other'"):
        artifact.params_path("other")


def test_sequence_outputs_are_lists():
    ex = kiln.compile(split_model())["default"]()
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    (parts,) = ex(x=x)
    assert isinstance(parts, list) and len(parts) == 2
    np.testing.assert_array_equal(parts[0], x[:1])
    np.testing.assert_array_equal(parts[1], x[1:])


def test_errors_are_exceptions_with_kilns_message(dense_lib):
    ex = kiln.load_module(dense_lib)["default"](kiln.cpu())
    with pytest.raises(kiln.KilnError, match=r"set_input\('x'\): expected float32\[2,4\], got "
                                             r"float32\[3,4\]"):
        ex.set_input("x", np.zeros((3, 4), np.float32))
    with pytest.raises(kiln.KilnError, match=r"expected float32\[2,4\], got int64\[2,4\]"):
        ex.set_input("x", np.zeros((2, 4), np.int64))
    with pytest.raises(kiln.KilnError, match="'nope'.*x"):
        ex.set_input("nope", X)
    with pytest.raises(kiln.KilnError, match="has no function 'frobnicate'"):
        ex["frobnicate"]
    with pytest.raises(TypeError, match=r"set_input\('x'\): cannot make a float32 tensor of a "
                                        r"Python object"):
        ex.set_input("x", object())
    with pytest.raises(TypeError, match="cannot take a Python object"):
        ex["get_input_index"](object())  # a packed function's argument with no kiln meaning
    with pytest.raises(kiln.KilnError, match="no model"):
        kiln.load_module(dense_lib).get_factory("other")
    with pytest.raises(kiln.KilnError, match="no such file"):
        kiln.load_module("/nonexistent/model.so")
    assert issubclass(kiln.KilnError, RuntimeError)


def test_a_corrupt_library_is_refused(dense_lib, tmp_path):
    data = bytearray(open(dense_lib, "rb").read())
    broken = tmp_path / "broken.so"
    broken.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(kiln.KilnError, match="truncated|size"):
        kiln.load_module(broken)


def test_benchmark_has_the_statistics_of_kiln_run_json(dense_lib, kiln_exe):
    ex = kiln.load_module(dense_lib)["default"](kiln.cpu())
    ex.set_input("x", X)
    stats = ex.benchmark(repeat=7, number=3)
    done = subprocess.run([kiln_exe, "run", dense_lib, "--print-time", "--json", "--repeat", "7"],
                          check=True, capture_output=True, text=True)
    cli = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(stats) == set(cli)
    assert stats["runs"] == 7 == cli["runs"]
    assert 0 < stats["min_ms"] <= stats["median_ms"] <= stats["p90_ms"] <= stats["p99_ms"] \
        <= stats["max_ms"]
    assert stats["min_ms"] <= stats["mean_ms"] <= stats["max_ms"] and stats["std_ms"] >= 0
    with pytest.raises(kiln.KilnError, match="repeat 0"):
        ex.benchmark(repeat=0)


def test_profile_rows_make_a_dataframe(dense_lib, tmp_path):
    ex = kiln.load_module(dense_lib)["default"](kiln.cpu())
    ex.set_input("x", X)
    profile = kiln.profile(ex, repeat=5)
    frame = pandas.DataFrame(profile)
    assert list(frame.columns) == ["name", "ops", "us", "percent", "shape", "gflops"]
    assert len(frame) >= 1 and frame["ops"].str.contains("MatMul").any()
    assert profile.nodes_us == pytest.approx(frame["us"].sum())
    assert profile.end_to_end_us > 0
    # The nodes account for the whole run, timed separately, within the stated bound.
    assert profile.gap_bound_us == max(50.0, 0.1 * profile.end_to_end_us)
    assert profile.reconciled, (profile.nodes_us, profile.end_to_end_us)
    profile.save_trace(tmp_path / "trace.json")
    events = json.load(open(tmp_path / "trace.json"))["traceEvents"]
    assert [e["name"] for e in events] == list(frame["name"])
    by_path = kiln.profile(dense_lib, inputs={"x": X}, repeat=2)
    assert [r["name"] for r in by_path] == list(frame["name"])
    with pytest.raises(TypeError, match="give them as inputs"):
        kiln.profile(dense_lib)
    aot = kiln.compile(dense_model(), executor="aot")
    with pytest.raises(kiln.KilnError, match="graph"):
        kiln.profile(aot, inputs={"x": X})


def test_threads_setting():
    before = kiln.num_threads()
    kiln.set_num_threads(1)
    assert kiln.num_threads() == 1
    kiln.set_num_threads(before)
    with pytest.raises(kiln.KilnError, match="1"):
        kiln.set_num_threads(0)


# A child process measures its own peak resident memory (VmHWM, reset through clear_refs once
# the caller's arrays exist) around one inference on a 2 GiB input, so nothing else in this
# process counts. It prints the growth over the caller's own data as a multiple of the input.
_PEAK_CHILD = """
import sys
import numpy as np
import kiln
from onnx import TensorProto, helper

n = 1 << 29  # 2 GiB of float32
f = TensorProto.FLOAT
model = helper.make_model(helper.make_graph(
    [helper.make_node("Relu", ["x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", f, [n])], [helper.make_tensor_value_info("y", f, [n])]))
ex = kiln.compile(model)["default"](kiln.cpu())

def status(key):
    with open("/proc/self/status") as s:
        return next(int(l.split()[1]) * 1024 for l in s if l.startswith(key))

x = np.full(n, -1.0, np.float32)
x[::4096] = 3.0
out = np.full(n, 7.0, np.float32) if sys.argv[1] == "out" else None
with open("/proc/self/clear_refs", "w") as c:
    c.write("5")  # the peak starts again from what is resident now
before = status("VmRSS:")
ex.run(x=x)
y = ex.get_output(0) if out is None else ex.get_output(0, out)
growth = status("VmHWM:") - before
y = np.asarray(y)
assert y.shape == (n,) and y[0] == 3.0 and y[1] == 0.0 and y.sum() == 3.0 * (n // 4096)
print(growth / x.nbytes)
"""


@pytest.mark.parametrize("form,bound", [("copy", 3.1), ("out", 2.1)])
def test_a_2_gib_input_costs_bounded_memory(form, bound):
    # The executor's input and output buffers, plus the copy get_output returns (3 times the
    # input), or no copy when get_output writes into the caller's array (2 times).
    child = subprocess.run([sys.executable, "-c", _PEAK_CHILD, form], capture_output=True,
                           text=True, check=False)
    assert child.returncode == 0, child.stderr
    growth = float(child.stdout.strip().splitlines()[-1])
    assert growth <= bound, f"{form}: the peak grew by {growth:.2f} times the input"
