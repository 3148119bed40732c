"""Shared fixtures of the Python package's tests: the build's `kiln` executable, a model file,
and the device fixtures kiln ships (kiln.testing.pytest_plugin)."""
import os

import onnx
import pytest

from onnx_models import dense_model

pytest_plugins = ["kiln.testing.pytest_plugin"]

BUILD_DIR = os.environ.get("KILN_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                          "build", "release"))


@pytest.fixture(scope="session")
def kiln_exe():
    path = os.path.join(BUILD_DIR, "bin", "kiln")
    if not os.path.exists(path):
        pytest.fail(f"the kiln executable is not at {path} (set KILN_BUILD_DIR)")
    return path


@pytest.fixture(scope="session")
def dense_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "dense.onnx"
    onnx.save(dense_model(), str(path))
    return str(path)
