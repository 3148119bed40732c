"""kiln.compile: from a path, a ModelProto and bytes; several models in one library; the options
(executor, input shapes, external weights, static libraries, IR dumps); and its errors."""
import os

import numpy as np
import onnx
import pytest

import kiln
from conftest import BUILD_DIR
from onnx_models import (conv_bias_relu_model, dense_model, dense_reference, symbolic_model,
                         two_input_model)

X = np.random.RandomState(1).rand(2, 4).astype(np.float32)


def run_default(lib, **inputs):
    return lib["default"](kiln.cpu())(**inputs)


def test_compile_from_a_path(dense_path, tmp_path):
    artifact = kiln.compile(dense_path)
    assert artifact.model_names == ["default"] and artifact.executor == "graph"
    out = tmp_path / "dense.so"
    assert artifact.export_library(out) == str(out)
    lib = kiln.load_module(out)
    (y,) = run_default(lib, x=X)
    np.testing.assert_allclose(y, dense_reference(onnx.load(dense_path), X), rtol=1e-5, atol=1e-6)


def test_a_library_exported_again_to_a_loaded_path_loads_as_the_new_one(tmp_path):
    first, second = dense_model(seed=21), dense_model(seed=22)
    path = tmp_path / "model.so"
    kiln.compile(first).export_library(path)
    old = kiln.load_module(path)
    kiln.compile(second).export_library(path)
    new = kiln.load_module(path)
    (y_new,) = run_default(new, x=X)
    (y_old,) = run_default(old, x=X)
    assert not np.allclose(dense_reference(first, X), dense_reference(second, X), rtol=1e-2)
    np.testing.assert_allclose(y_new, dense_reference(second, X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y_old, dense_reference(first, X), rtol=1e-5, atol=1e-6)


def test_compile_from_a_model_proto_and_from_bytes():
    model = dense_model(seed=3)
    expected = dense_reference(model, X)
    for source in (model, model.SerializeToString()):
        (y,) = run_default(kiln.compile(source), x=X)
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_aot_executor_gives_the_graph_executors_outputs():
    model = dense_model(seed=4)
    graph = kiln.compile(model)
    aot = kiln.compile(model, executor="aot")
    assert aot.get_factory().executor_kind == "aot"
    np.testing.assert_array_equal(run_default(aot, x=X)[0], run_default(graph, x=X)[0])


def test_several_models_in_one_library(tmp_path):
    first, second = dense_model(seed=5), dense_model(seed=6)
    artifact = kiln.compile({"first": first, "second": second})
    path = artifact.export_library(tmp_path / "both.so")
    lib = kiln.load_module(path)
    assert sorted(lib.list_models()) == ["first", "second"]
    for name, model in (("first", first), ("second", second)):
        (y,) = lib[name](kiln.cpu())(x=X)
        np.testing.assert_allclose(y, dense_reference(model, X), rtol=1e-5, atol=1e-6)
    listed = kiln.compile([first, second], model_name=["a", "b"])
    assert listed.load().list_models() == ["a", "b"]
    with pytest.raises(ValueError, match="2 models and 1 model names"):
        kiln.compile([first, second], model_name=["a"])


def test_input_shapes_shared_and_per_model():
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    (y,) = run_default(kiln.compile(symbolic_model(), input_shapes={"x": [3, 8]}), x=x)
    np.testing.assert_array_equal(y, x * 2)
    both = kiln.compile({"three": symbolic_model(), "five": symbolic_model()},
                        input_shapes={"three": {"x": [3, 8]}, "five": {"x": [5, 8]}})
    infos = {m: both[m](kiln.cpu()).get_input_info()[0]["shape"] for m in ("three", "five")}
    assert infos == {"three": [3, 8], "five": [5, 8]}
    with pytest.raises(kiln.KilnError, match="'N'"):
        kiln.compile(symbolic_model())
    one = kiln.compile({"only": symbolic_model()}, input_shapes={"only": {"x": [4, 8]}})
    assert one["only"](kiln.cpu()).get_input_info()[0]["shape"] == [4, 8]
    with pytest.raises(ValueError, match=r"names models \['tree'\].*\['three', 'five'\]"):
        kiln.compile({"three": symbolic_model(), "five": symbolic_model()},
                     input_shapes={"tree": {"x": [3, 8]}, "five": {"x": [5, 8]}})


def test_dim_bounds_make_one_library_for_every_size():
    lib = kiln.compile(symbolic_model(), dim_bounds={"N": (1, 6)})
    ex = lib["default"](kiln.cpu())
    assert ex.get_input_info()[0]["shape"] == [-1, 8]
    for n in (1, 4, 6):
        x = np.arange(n * 8, dtype=np.float32).reshape(n, 8)
        (y,) = ex(x=x)
        np.testing.assert_array_equal(y, x * 2)
    with pytest.raises(kiln.KilnError, match=r"dim 0 is 'N', 7 here, outside its bounds 1<=N<=6"):
        ex(x=np.zeros((7, 8), np.float32))
    named = kiln.compile(symbolic_model(), input_shapes={"x": ["rows", 8]}, dim_bounds="rows<=3")
    (y,) = run_default(named, x=np.ones((2, 8), np.float32))
    np.testing.assert_array_equal(y, np.full((2, 8), 2, np.float32))
    with pytest.raises(TypeError, match=r"dim_bounds\['N'\]: expected a max or a \(min, max\)"):
        kiln.compile(symbolic_model(), dim_bounds={"N": "big"})


def test_a_dim_named_for_a_sum_of_symbols_is_checked_against_them():
    # Hugging Face's attention mask: [1, "past_sequence_length + sequence_length"].
    h, T = onnx.helper, onnx.TensorProto
    nodes = [h.make_node("Concat", ["past", "x"], ["all"], axis=1),
             h.make_node("Mul", ["all", "mask"], ["y"])]
    graph = h.make_graph(
        nodes, "masked", [h.make_tensor_value_info("x", T.FLOAT, [1, "sequence_length"]),
                   h.make_tensor_value_info("past", T.FLOAT, [1, "past_sequence_length"]),
                   h.make_tensor_value_info("mask", T.FLOAT,
                                            [1, "past_sequence_length + sequence_length"])],
        [h.make_tensor_value_info("y", T.FLOAT, None)])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    ex = kiln.compile(model, dim_bounds="1<=sequence_length<=8, past_sequence_length<=16")[
        "default"](kiln.cpu())
    x, past = np.arange(1, 4, dtype=np.float32)[None], np.array([[5, 7]], np.float32)
    mask = np.array([[1, 0, 1, 1, 0]], np.float32)
    (y,) = ex(x=x, past=past, mask=mask)
    np.testing.assert_array_equal(y, np.concatenate([past, x], 1) * mask)
    with pytest.raises(kiln.KilnError, match=r"input 'mask' dim 1 is "
                       r"past_sequence_length\+sequence_length = 5 in this run "
                       r"\(past_sequence_length = 2, sequence_length = 3\), but it was given 6"):
        ex(x=x, past=past, mask=np.ones((1, 6), np.float32))
    with pytest.raises(kiln.KilnError, match=r"set_input\('mask'\): dim 1 is "
                       r"past_sequence_length\+sequence_length, at most 24 within the bounds; "
                       r"got 25"):
        ex.set_input("mask", np.ones((1, 25), np.float32))


def test_models_with_external_data_compile_from_their_file(tmp_path):
    model = dense_model(seed=9)
    reference = dense_reference(model, X)
    path = tmp_path / "dense.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="dense.weights", size_threshold=0)
    assert os.path.getsize(tmp_path / "dense.weights") == (12 + 3) * 4
    (y,) = run_default(kiln.compile(str(path)), x=X)
    np.testing.assert_allclose(y, reference, rtol=1e-5, atol=1e-6)
    with pytest.raises(kiln.KilnError, match="given as bytes, with no folder"):
        kiln.compile(path.read_bytes())


def test_external_weights(tmp_path):
    model = dense_model(seed=7)
    artifact = kiln.compile(model, params="external")
    path = artifact.export_library(tmp_path / "ext.so")
    weights = path + ".params"
    assert os.path.getsize(weights) > 0
    factory = kiln.load_module(path).get_factory()
    with pytest.raises(kiln.KilnError, match="parameters not loaded"):
        factory.create()(x=X)
    (y,) = factory.load_params(weights).create()(x=X)
    np.testing.assert_allclose(y, dense_reference(model, X), rtol=1e-5, atol=1e-6)


def test_static_library_is_exported_with_its_header_and_not_loaded(tmp_path):
    artifact = kiln.compile(dense_model(), executor="aot", emit="static")
    path = artifact.export_library(tmp_path / "libdense.a")
    header = tmp_path / "libdense.h"
    assert open(path, "rb").read(8) == b"!<arch>\n"
    assert "kiln" in header.read_text() and header.read_text().count("#include") >= 1
    with pytest.raises(kiln.KilnError, match="static library"):
        artifact.load()


def test_dump_ir_writes_every_pass(tmp_path):
    kiln.compile(dense_model(), dump_ir=tmp_path / "ir")
    names = os.listdir(tmp_path / "ir")
    assert "module.ll" in names and any(n.endswith(".ir") for n in names), names


def test_export_is_atomic_and_refuses_folders(tmp_path):
    artifact = kiln.compile(two_input_model())
    target = tmp_path / "m.so"
    target.write_bytes(b"old")
    artifact.export_library(target)
    assert kiln.load_module(target).list_models() == ["default"]
    assert [p.name for p in tmp_path.iterdir()] == ["m.so"]  # no temporary left behind
    with pytest.raises(kiln.KilnError, match="is a folder"):
        artifact.export_library(tmp_path)
    with pytest.raises(kiln.KilnError, match="does not exist"):
        artifact.export_library(tmp_path / "missing" / "m.so")


def test_compile_errors_carry_kilns_message(tmp_path):
    with pytest.raises(kiln.KilnError, match="does not exist"):
        kiln.compile(tmp_path / "missing.onnx")
    with pytest.raises(kiln.KilnError, match="ONNX"):
        kiln.compile(b"not a model")
    with pytest.raises(kiln.KilnError, match="executor"):
        kiln.compile(dense_model(), executor="interpreter")
    with pytest.raises(kiln.KilnError, match="opt"):
        kiln.compile(dense_model(), opt_level=7)
    with pytest.raises(kiln.KilnError, match="not an input of the model"):
        kiln.compile(dense_model(), input_shapes={"nope": [1]})
    with pytest.raises(TypeError, match="expected a path, an onnx.ModelProto"):
        kiln.compile(42)
    with pytest.raises(TypeError, match="sequence of ints"):
        kiln.compile(dense_model(), input_shapes={"x": "2x4"})


def test_help_documents_the_options():
    doc = kiln.compile.__doc__
    for option in ("target", "executor", "input_shapes", "opt_level", "model_name", "params",
                   "extensions", "KilnError"):
        assert option in doc, option
    annotations = kiln.compile.__annotations__
    assert {"model", "target", "executor", "return"} <= set(annotations)


def test_offloading_to_an_extension(tmp_path):
    vanilla = os.path.join(BUILD_DIR, "extensions", "libkiln_vanilla.so")
    model = conv_bias_relu_model()
    x = np.random.RandomState(5).rand(1, 3, 8, 8).astype(np.float32)
    offloaded = kiln.compile(model, target="vanilla,llvm", extensions=[vanilla])
    assert [(o["backend"], o["ops"]) for o in offloaded.offloads] == [("vanilla", ["Conv", "Relu"])]
    own = kiln.compile(model)
    assert own.offloads == []
    np.testing.assert_allclose(run_default(offloaded, x=x)[0], run_default(own, x=x)[0],
                               rtol=1e-5, atol=1e-5)
    path = offloaded.export_library(tmp_path / "vanilla.so")
    with pytest.raises(kiln.KilnError, match="vanilla"):
        kiln.load_module(path)  # its runtime part is in the extension
    assert kiln.load_module(path, extensions=[vanilla]).list_models() == ["default"]
    with pytest.raises(kiln.KilnError, match="vanilla"):
        kiln.compile(model, target="vanilla,llvm")  # no such backend loaded


def test_the_public_api_is_documented():
    undocumented = []
    for name in kiln.__all__:
        obj = getattr(kiln, name)
        if not (obj.__doc__ or "").strip():
            undocumented.append(name)
        if isinstance(obj, type) and obj.__module__.startswith("kiln."):
            for member, value in vars(obj).items():
                if member.startswith("_") or not callable(value) and not isinstance(value,
                                                                                   property):
                    continue
                if not (getattr(value, "__doc__", "") or "").strip():
                    undocumented.append(f"{name}.{member}")
    assert not undocumented, undocumented
