"""Remote devices through the fixtures kiln ships: a launcher per module and a session per test,
parametrised over the devices of the run (KILN_TEST_DEVICES: local, and the emulated aarch64
board when its server is built)."""
import os

import numpy as np
import pytest

import kiln
from onnx_models import dense_model, dense_reference

X = np.random.RandomState(3).rand(2, 4).astype(np.float32)
ARCH = {"local": os.uname().machine, "qemu-aarch64": "aarch64"}


def test_a_model_runs_on_the_device(kiln_device, kiln_session, kiln_target):
    model = dense_model(seed=11)
    artifact = kiln.compile(model, target=kiln_target)  # built for the device
    ex = kiln_session.get_executor_from_factory(artifact)
    assert ex.session is kiln_session and ex.type_key == "graph_executor"
    assert kiln_session.info()["arch"] == ARCH.get(kiln_device, kiln_session.info()["arch"])
    (y,) = ex(x=X)
    np.testing.assert_allclose(y, dense_reference(model, X), rtol=1e-5, atol=1e-5)
    stats = ex.benchmark(repeat=3)  # timed on the device
    assert stats["runs"] == 3 and 0 < stats["min_ms"] <= stats["max_ms"]
    profile = kiln.profile(ex, repeat=2)
    assert [row["ops"] for row in profile] and profile.end_to_end_us > 0
    device_params, host_params = ex.get_params(), kiln.compile(model).get_params()
    assert set(device_params) == set(host_params)  # read back from the device
    if kiln_device == "local":  # the same target: the same packed weights
        for name, value in device_params.items():
            np.testing.assert_array_equal(value.numpy(), host_params[name].numpy())


def test_library_functions_and_device_tensors(kiln_session, kiln_target):
    artifact = kiln.compile({"a": dense_model(seed=1), "b": dense_model(seed=2)},
                            target=kiln_target, executor="aot")
    lib = kiln_session.load_library(artifact)
    assert isinstance(lib, kiln.Library) and sorted(lib.list_models()) == ["a", "b"]
    ex = kiln_session.get_aot_executor(lib, "b")
    x = kiln_session.array(X)  # stays on the device
    ex.set_input("x", x)
    ex.run()
    np.testing.assert_allclose(ex.get_output(0).numpy(),
                               dense_reference(dense_model(seed=2), X), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(x.numpy(), X)
    with pytest.raises(kiln.KilnError, match="aot executor, not the graph executor"):
        kiln_session.get_graph_executor(lib, "a")


def test_errors_on_the_device_carry_kilns_message(kiln_session, kiln_target):
    ex = kiln_session.get_executor_from_factory(kiln.compile(dense_model(), target=kiln_target))
    with pytest.raises(kiln.KilnError, match=r"expected float32\[2,4\], got float32\[1,4\]"):
        ex.set_input("x", np.zeros((1, 4), np.float32))
    with pytest.raises(kiln.KilnError, match="missing.so"):
        kiln_session.load_module("missing.so")


def test_a_session_leaves_nothing_behind(kiln_device, kiln_launcher, kiln_target, tmp_path):
    if kiln_device.startswith("ssh:"):
        pytest.skip("the session folder is on the board")
    path = kiln.compile(dense_model(), target=kiln_target).export_library(tmp_path / "m.so")
    with kiln_launcher.create_session() as session:
        name = session.upload(path)
        folder = session.info()["session_dir"]
        assert os.path.isfile(os.path.join(folder, name))
        other = kiln_launcher.create_session()
        assert other.info()["server_pid"] != session.info()["server_pid"]  # a fresh server
        other.close()
    assert session.closed and not os.path.exists(folder)


def test_unknown_devices_are_refused():
    with pytest.raises(kiln.KilnError, match="local, qemu-aarch64, ssh:"):
        kiln.Launcher("marsrover")
    launcher = kiln.Launcher("local", server_path="/nonexistent/kiln-rpc-server")
    with pytest.raises(kiln.KilnError, match="nonexistent"):
        launcher.create_session()
    launcher.stop()


def test_what_a_session_refuses_and_takes(kiln_session, kiln_target):
    local = kiln.compile(dense_model(seed=12)).load()
    with pytest.raises(TypeError, match="loaded in this process"):
        kiln_session.get_executor_from_factory(local)
    artifact = kiln.compile(dense_model(seed=12), target=kiln_target, params="external")
    ex = kiln_session.get_executor_from_factory(artifact)
    with pytest.raises(kiln.KilnError, match="parameters not loaded"):
        ex.run(x=X)
    factory = ex.factory.load_params(artifact.params_path())  # uploaded to the device
    ex = factory.create()
    expected = dense_reference(dense_model(seed=12), X)
    out = np.zeros((2, 3), np.float32)
    ex.set_input("x", X)
    ex.run()
    assert ex.get_output(0, out).data_ptr == out.__array_interface__["data"][0]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)  # filled over the wire
    with pytest.raises(kiln.KilnError, match="bind a tensor of its session"):
        ex.set_input_zero_copy("x", kiln.array(X))
    on_device = kiln_session.array(X)
    ex.set_input_zero_copy("x", on_device)  # a tensor on the device is bound in place
    ex.run()
    np.testing.assert_allclose(ex.get_output(0).numpy(), expected, rtol=1e-5, atol=1e-5)
