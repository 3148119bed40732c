"""kiln: compile ONNX models ahead of time into one shared library, and run it here or on a
remote device.

::

    import kiln, numpy as np

    artifact = kiln.compile("resnet18.onnx")          # or an onnx.ModelProto
    artifact.export_library("resnet18.so")

    lib = kiln.load_module("resnet18.so")
    ex = lib["default"](kiln.cpu())
    ex.set_input("input", np.zeros((1, 3, 224, 224), np.float32))
    ex.run()
    logits = ex.get_output(0).numpy()
    print(ex.benchmark(repeat=20))                    # mean_ms, median_ms, p99_ms, ...

The package is a thin layer over kiln's C++ library: the same compiler, runtime, executors and
remote sessions as the ``kiln`` command line. Errors kiln detects in what it is given raise
:class:`KilnError` with kiln's own message.
"""
from ._kiln import (
    DataType,
    Device,
    InternalError,
    KilnError,
    NDArray,
    RpcError,
    array,
    cpu,
    empty,
    from_dlpack,
    load_params,
    num_threads,
    save_params,
    set_num_threads,
)
from . import _kiln
from .compiler import Artifact, compile
from .generation import generate
from .module import Executor, Factory, Function, Library, Module, load_module
from .profiling import Profile, profile
from .remote import (
    Launcher,
    RemoteTensor,
    Session,
    connect,
    request_session,
    tracker_status,
)

__version__: str = _kiln.version
#: The version of the library format this kiln writes and reads.
artifact_format_version: int = _kiln.artifact_format_version

__all__ = [
    "Artifact", "DataType", "Device", "Executor", "Factory", "Function", "InternalError",
    "KilnError", "Launcher", "Library", "Module", "NDArray", "Profile", "RemoteTensor",
    "RpcError", "Session", "array", "compile", "connect", "cpu", "empty", "from_dlpack",
    "generate", "load_module", "load_params", "num_threads", "profile", "request_session", "save_params",
    "set_num_threads", "tracker_status",
]
