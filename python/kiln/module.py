"""Loaded libraries, model factories and executors: kiln's module interface from Python.

``lib = kiln.load_module("model.so")`` gives the library; ``lib["default"](kiln.cpu())`` an
executor of its model ``default``, with ``set_input``, ``run``, ``get_output`` and the rest of the
runtime's executor functions. The same classes stand for objects on a remote device when a
:class:`kiln.Session` made them; they then hold the session, and timings are taken on the device.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _kiln

#: What the executors take as a tensor: a kiln.NDArray, a NumPy array, anything with
#: ``__dlpack__`` (a PyTorch tensor), or anything ``numpy.asarray`` takes.
TensorLike = Any
#: What ``load_params`` takes: the bytes of kiln's params format, a dict name -> tensor, or the
#: path of a weights file written by ``compile(..., params="external")``.
ParamsLike = Union[bytes, Dict[str, TensorLike], str, os.PathLike]


def _wrap(value: Any, session: Any) -> Any:
    """A packed function's result with its modules and functions as this package's classes."""
    if isinstance(value, _kiln.Module):
        return wrap_module(value, session)
    if isinstance(value, _kiln.Function):
        return Function(value, session)
    return value


def wrap_module(handle: "_kiln.Module", session: Any = None, factory: Optional["Factory"] = None):
    """HANDLE as the class its type key names (library, factory, executor, remote tensor)."""
    key = handle.type_key
    if key == "library":
        return Library(handle, session)
    if key.endswith("_factory"):
        return Factory(handle, session)
    if key.endswith("_executor"):
        return Executor(handle, session, factory)
    if key == "remote_tensor":
        from .remote import RemoteTensor

        return RemoteTensor(handle, session)
    return Module(handle, session)


class Function:
    """A packed function of a module. Call it with Python values: tensors (kiln.NDArray, NumPy
    arrays, PyTorch tensors), numbers, strings, bytes, lists of tensors, dicts, devices, modules.
    The GIL is released while it runs."""

    __slots__ = ("_handle", "_session")

    def __init__(self, handle: "_kiln.Function", session: Any = None):
        self._handle = handle
        self._session = session

    @property
    def _kiln_handle(self) -> "_kiln.Function":
        return self._handle

    def __call__(self, *args: Any) -> Any:
        return _wrap(self._handle(*args), self._session)


class Module:
    """A runtime module: a named collection of packed functions."""

    def __init__(self, handle: "_kiln.Module", session: Any = None):
        self._handle = handle
        self._session = session

    @property
    def _kiln_handle(self) -> "_kiln.Module":
        return self._handle

    @property
    def type_key(self) -> str:
        """The module's kind: 'library', 'graph_factory', 'graph_executor', ..."""
        return self._handle.type_key

    @property
    def session(self) -> Any:
        """The :class:`kiln.Session` whose device holds this module, or None for a local one."""
        return self._session

    def __getitem__(self, name: str) -> Function:
        """The function NAME; raises KilnError listing the module's functions when it has none."""
        return Function(self._handle[name], self._session)

    def get_function(self, name: str, query_imports: bool = False) -> Optional[Function]:
        """The function NAME, or None."""
        f = self._handle.get_function(name, query_imports)
        return None if f is None else Function(f, self._session)

    def __contains__(self, name: str) -> bool:
        return name in self._handle

    def function_names(self) -> List[str]:
        """The names of the module's functions (local modules; a remote one lists none)."""
        return list(self._handle.function_names())

    def __repr__(self) -> str:
        where = f" on {self._session.device_name}" if self._session is not None else ""
        return f"<kiln.{type(self).__name__} {self.type_key}{where}>"


def _params_bytes(params: ParamsLike) -> bytes:
    if isinstance(params, (bytes, bytearray, memoryview)):
        return bytes(params)
    if isinstance(params, dict):
        return _kiln.save_params(params)
    raise TypeError(
        f"params must be bytes or a dict of name -> tensor, got {type(params).__name__}")


class Library(Module):
    """A loaded artifact: one factory per model. ``lib[model](device)`` creates an executor."""

    def list_models(self) -> List[str]:
        """The names of the models the library holds."""
        return list(self._handle["list_models"]())

    def get_factory(self, model: str = "default") -> "Factory":
        """The factory of MODEL, which owns its weights and creates its executors."""
        return Factory(self._handle["get_factory"](model), self._session)

    def __getitem__(self, name: str) -> Function:
        if name in self.list_models():
            factory = self.get_factory(name)
            return _FactoryCall(factory)
        return super().__getitem__(name)

    @property
    def target(self) -> Dict[str, Any]:
        """The target the kernels were compiled for: triple, cpu, features."""
        return self._handle["get_target"]()

    @property
    def producer(self) -> str:
        """The kiln release that wrote the library."""
        return self._handle["get_producer"]()

    def get_params(self, model: str = "default") -> Dict[str, "_kiln.NDArray"]:
        """MODEL's weights, by name (copies)."""
        return self.get_factory(model).get_params()


class _FactoryCall(Function):
    """``lib["default"]``: called with a device, an executor that knows its factory."""

    __slots__ = ("_factory",)

    def __init__(self, factory: "Factory"):
        super().__init__(factory._handle["create"], factory._session)
        self._factory = factory

    def __call__(self, device: Any = None) -> "Executor":
        return self._factory.create(device)


class Factory(Module):
    """A model's factory: its weights, shared read-only by every executor it creates."""

    @property
    def model(self) -> str:
        """The name of the model."""
        return self._handle["list_models"]()[0]

    @property
    def executor_kind(self) -> str:
        """'graph' or 'aot': the executor the model was compiled for."""
        return self.type_key.split("_")[0]

    def create(self, device: Any = None) -> "Executor":
        """A new executor of the model on DEVICE (default: kiln.cpu())."""
        handle = self._handle["create"](_kiln.cpu() if device is None else device)
        return Executor(handle, self._session, self)

    __call__ = create

    def debug_create(self, device: Any = None) -> "Executor":
        """A debug executor (graph models): an executor that can also time every node."""
        handle = self._handle["debug_create"](_kiln.cpu() if device is None else device)
        return Executor(handle, self._session, self)

    def get_params(self) -> Dict[str, "_kiln.NDArray"]:
        """The model's weights, by name (copies)."""
        return _kiln.load_params(self.get_params_bytes())

    def get_params_bytes(self) -> bytes:
        """The model's weights in kiln's params format (what load_params takes)."""
        return self._handle["get_params"]()

    def remove_params(self) -> "Factory":
        """A factory of the same model without weights (to ship them separately)."""
        return Factory(self._handle["remove_params"](), self._session)

    def load_params(self, params: ParamsLike) -> "Factory":
        """A factory of the same model with PARAMS as its weights: bytes, a dict, or the path of
        a weights file (checked against the model's recorded checksum)."""
        if isinstance(params, (str, os.PathLike)):
            path = os.fspath(params)
            if self._session is not None:  # the file goes to the device first
                path = self._session.upload_path(path)
            return Factory(self._handle["load_params_file"](path), self._session)
        return Factory(self._handle["load_params"](_params_bytes(params)), self._session)


class Executor(Module):
    """An executor: one model's inputs, outputs and working memory.

    One executor runs one thing at a time: its methods hold a lock, so threads sharing it take
    turns; executors of their own run in parallel (the GIL is released while they run).
    """

    def __init__(self, handle: "_kiln.Module", session: Any = None,
                 factory: Optional[Factory] = None):
        super().__init__(handle, session)
        self._factory = factory
        self._lock = threading.RLock()
        self._set_input = handle["set_input"]
        self._run = handle["run"]
        self._get_output = handle["get_output"]
        self._input_info: Optional[List[Dict[str, Any]]] = None
        self._output_count: Optional[int] = None

    @property
    def factory(self) -> Optional[Factory]:
        """The factory that created this executor, when this package created it."""
        return self._factory

    def set_input(self, key: Union[str, int, None] = None, value: TensorLike = None,
                  **inputs: TensorLike) -> None:
        """Copies VALUE into input KEY (a name or an index), and each NAME=VALUE of INPUTS.

        Raises KilnError naming the input, the expected type and the one given when a shape or
        dtype is wrong. A sequence input takes a list of tensors."""
        with self._lock:
            if key is not None:
                self._set_input(key, self._input_value(key, value))
            for name, v in inputs.items():
                self._set_input(name, self._input_value(name, v))

    def set_input_zero_copy(self, key: Union[str, int], tensor: TensorLike) -> None:
        """Binds TENSOR as input KEY without a copy: the executor reads it in place at every
        run. It must have the input's shape and dtype, be 64-byte aligned (kiln.empty and
        kiln.array give such tensors) and share its memory (a kiln.NDArray, a C-contiguous
        NumPy array, a compact PyTorch tensor); on a remote executor, a session's RemoteTensor.
        Anything else is refused, never silently copied."""
        with self._lock:
            self._handle["set_input_zero_copy"](key, self._bindable(tensor,
                                                                    "set_input_zero_copy"))

    def set_output_zero_copy(self, index: int, tensor: TensorLike) -> None:
        """Makes the executor write output INDEX into TENSOR at every run (the same conditions
        as set_input_zero_copy, and writable)."""
        with self._lock:
            self._handle["set_output_zero_copy"](index, self._bindable(tensor,
                                                                       "set_output_zero_copy"))

    def _bindable(self, tensor: Any, what: str) -> Any:
        if self._session is None:
            return _kiln.share(tensor, what)
        if getattr(tensor, "session", None) is not self._session:
            raise _kiln.KilnError(
                f"{what}: this executor runs on {self._session.device_name}; bind a tensor of "
                "its session (session.empty or session.array), not one of this process")
        return tensor

    def _input_value(self, key: Union[str, int], value: Any) -> Any:
        """VALUE as input KEY takes it: tensors and lists for sequence inputs as they are,
        anything else (numbers, nested lists) converted to the input's dtype."""
        if _is_tensor(value) or value is None:
            return value
        info = self._info_of(key)
        if info is None or "kind" in info:  # not an input (the executor says so), or a sequence
            return value
        dtype = info["dtype"]
        try:
            return np.asarray(value, dtype=None if dtype in ("string", "bfloat16") else dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"set_input('{info['name']}'): cannot make a {dtype} tensor of a "
                            f"Python {type(value).__name__}: {e}") from None

    def _info_of(self, key: Union[str, int]) -> Optional[Dict[str, Any]]:
        infos = self.get_input_info()
        if isinstance(key, int) and 0 <= key < len(infos):
            return infos[key]
        return next((i for i in infos if i["name"] == key), None)

    def get_input(self, key: Union[str, int]) -> Any:
        """A copy of input KEY."""
        with self._lock:
            return self._handle["get_input"](key)

    def run(self, **inputs: TensorLike) -> None:
        """Sets INPUTS (if any), then runs the model once. The GIL is released meanwhile."""
        with self._lock:
            for name, v in inputs.items():
                self._set_input(name, self._input_value(name, v))
            self._run()

    def get_output(self, index: int, out: Optional["_kiln.NDArray"] = None) -> Any:
        """A copy of output INDEX as a kiln.NDArray (or copied into OUT); a sequence output as a
        list of them, an optional that holds nothing as None."""
        with self._lock:
            if out is None:
                return self._get_output(index)
            if self._session is not None:  # the copy comes back over the wire, then into OUT
                target = _kiln.share(out, "get_output(out)")
                target.copyfrom(self._get_output(index))
                return target
            return self._get_output(index, _kiln.share(out, "get_output(out)"))

    def set_input_from_output(self, key: Union[str, int], index: int) -> None:
        """Gives input KEY the value output INDEX holds since the last run, copied inside the
        executor: nothing crosses into Python (or, for a session, the network). A key/value cache
        compiled in place becomes the next run's past without any copy: only its length changes.
        Raises KilnError before a first run or when the output does not fit the input."""
        with self._lock:
            self._handle["set_input_from_output"](key, index)

    def get_num_inputs(self) -> int:
        """The number of model inputs (weights are not inputs)."""
        return self._handle["get_num_inputs"]()

    def get_num_outputs(self) -> int:
        """The number of model outputs."""
        if self._output_count is None:
            self._output_count = self._handle["get_num_outputs"]()
        return self._output_count

    def get_input_index(self, name: str) -> int:
        """The position of input NAME, or -1."""
        return self._handle["get_input_index"](name)

    def get_input_info(self) -> List[Dict[str, Any]]:
        """Each input's name, shape (-1 for a dim known only at run time), dtype and kind."""
        if self._input_info is None:
            self._input_info = self._handle["get_input_info"]()
        return self._input_info

    def get_output_info(self) -> List[Dict[str, Any]]:
        """Each output's name, shape, dtype and kind."""
        return self._handle["get_output_info"]()

    @property
    def input_names(self) -> List[str]:
        """The model inputs' names, in input order."""
        return [i["name"] for i in self.get_input_info()]

    @property
    def output_names(self) -> List[str]:
        """The model outputs' names, in output order."""
        return [o["name"] for o in self.get_output_info()]

    def load_params(self, params: ParamsLike) -> None:
        """Replaces this executor's weights: bytes, a dict name -> tensor or a weights file's
        path (every name must be a weight of the model, with its shape and dtype; the factory's
        load_params also checks a file was compiled with this model)."""
        if isinstance(params, (str, os.PathLike)):
            with open(params, "rb") as f:
                params = f.read()
        with self._lock:
            self._handle["load_params"](_params_bytes(params))

    def share_params(self, other: "Executor", params: Optional[bytes] = None) -> None:
        """Adopts OTHER's weight arrays (no copy), or those of PARAMS' names only."""
        with self._lock:
            if params is None:
                self._handle["share_params"](other)
            else:
                self._handle["share_params"](other, params)

    def get_params(self) -> Dict[str, "_kiln.NDArray"]:
        """The weights of the model (its factory's), by name."""
        if self._factory is None:
            raise _kiln.KilnError(
                "get_params: this executor was not created through a kiln factory; use "
                "lib.get_params(model)")
        return self._factory.get_params()

    def __call__(self, *args: TensorLike, **inputs: TensorLike) -> List[Any]:
        """Sets the inputs (positional in input order, or by name), runs the model and returns
        every output as a NumPy array (a sequence output as a list of them, None for an
        optional that holds nothing)."""
        with self._lock:
            for i, v in enumerate(args):
                self._set_input(i, self._input_value(i, v))
            for name, v in inputs.items():
                self._set_input(name, self._input_value(name, v))
            self._run()
            return [_as_numpy(self._get_output(i)) for i in range(self.get_num_outputs())]

    def benchmark(self, repeat: int = 10, number: int = 1) -> Dict[str, float]:
        """Times ``run()`` where the model runs (on the device for a remote executor): one
        untimed run, then REPEAT measurements of NUMBER runs. Returns the statistics
        ``kiln run --print-time --json`` prints: mean_ms, median_ms, min_ms, max_ms, std_ms,
        p90_ms, p99_ms, runs."""
        with self._lock:
            if self._session is not None:
                times = self._session._handle.time_evaluator(self._handle, "run", [], repeat,
                                                             number)
            else:
                times = _kiln.time_evaluate(self._run, [], repeat, number)
            return _kiln.summarize(times)


def _is_tensor(value: Any) -> bool:
    if isinstance(value, (_kiln.NDArray, np.ndarray, Module)) or hasattr(value, "__dlpack__"):
        return True
    return isinstance(value, (list, tuple)) and len(value) > 0 and all(
        isinstance(v, (_kiln.NDArray, np.ndarray)) or hasattr(v, "__dlpack__") for v in value)


def _as_numpy(value: Any) -> Any:
    """An output as NumPy: a view of the copy get_output made (no second copy), or a copy for
    the element types NumPy cannot view (strings, bfloat16)."""
    if isinstance(value, _kiln.NDArray):
        return np.asarray(value)
    if isinstance(value, list):
        return [np.asarray(v) for v in value]
    return value


def load_module(path: Union[str, os.PathLike], *, verify_checksum: bool = True,
                extensions: Sequence[Union[str, os.PathLike]] = ()) -> Library:
    """Loads the kiln library at PATH (written by kiln compile or Artifact.export_library).

    The file is checked first (truncation, its checksum unless VERIFY_CHECKSUM is false, the
    format version). EXTENSIONS are extension libraries (or folders of them) holding the
    runtimes of backends the library's partitions were offloaded to, searched before
    KILN_EXTENSION_PATH. Raises KilnError naming what is wrong."""
    handle = _kiln.load_module(os.fspath(path), verify_checksum,
                               [os.fspath(e) for e in extensions])
    return Library(handle)
