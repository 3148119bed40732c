"""Remote devices: launchers prepare a device and start its servers, sessions run code there.

::

    with kiln.Launcher("qemu-aarch64") as launcher:        # or "local", "ssh:pi@board"
        artifact = kiln.compile("model.onnx", target=launcher.target)
        with launcher.create_session() as session:
            ex = session.get_executor_from_factory(artifact)
            outputs = ex(input=x)                          # computed on the device
            print(ex.benchmark(repeat=20))                 # timed on the device

Every session gets a fresh server process; closing it removes everything it uploaded, and
stopping the launcher ends every server it started.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _kiln
from ._location import program_dir
from .module import Executor, Library, Module, wrap_module


class RemoteTensor(Module):
    """A tensor that stays on the device; remote functions take it where a tensor goes."""

    def copyfrom(self, source: Any) -> "RemoteTensor":
        """Copies SOURCE (a tensor of the same shape and dtype) to the device; returns self."""
        self._session._handle.copy_to_device(self._handle, source)
        return self

    def numpy(self):
        """A NumPy copy of the tensor, read back from the device."""
        return self._session._handle.copy_from_device(self._handle).numpy()

    def to_ndarray(self) -> "_kiln.NDArray":
        """A local kiln.NDArray copy of the tensor."""
        return self._session._handle.copy_from_device(self._handle)


def _library_path(lib: Any) -> Optional[str]:
    """The local file of an Artifact or a path; None for a library already on the device."""
    if isinstance(lib, (str, os.PathLike)):
        return os.fspath(lib)
    if hasattr(lib, "export_library") and hasattr(lib, "path"):  # an Artifact
        return lib.path
    return None


class Session:
    """A connection to one running server on a device; it runs code there and sets up nothing.

    Close it with :meth:`close` or a ``with`` block: the server then removes every file the
    session uploaded."""

    def __init__(self, handle: "_kiln.Session", launcher: Optional["Launcher"] = None):
        self._handle = handle
        self._launcher = launcher  # a session's server belongs to its launcher: keep it alive
        self._uploads = 0

    @property
    def device_name(self) -> str:
        """The device the session's server runs on: "local", "qemu-aarch64", ..."""
        return self._handle.device_name

    @property
    def closed(self) -> bool:
        """Whether the session has ended (closed, or its connection lost)."""
        return self._handle.closed

    def info(self) -> Dict[str, Any]:
        """The device's architecture, cores, kiln release and session folder."""
        return self._handle.info()

    def upload(self, local_path: Union[str, os.PathLike], remote_name: str = "") -> str:
        """Copies LOCAL_PATH into the session's folder (as REMOTE_NAME, default its file
        name); returns the remote name."""
        return self._handle.upload(os.fspath(local_path), remote_name)

    def load_module(self, remote_name: str) -> Library:
        """The library REMOTE_NAME (uploaded before), loaded on the device."""
        return wrap_module(self._handle.load_module(remote_name), self)

    def load_library(self, lib: Any) -> Library:
        """Uploads LIB (an Artifact or a library's path) under a name of its own and loads it."""
        path = _library_path(lib)
        if path is None:
            raise TypeError(f"load_library: expected an Artifact or a path, got "
                            f"{type(lib).__name__}")
        return self.load_module(self._upload_unique(path))

    def empty(self, shape: Sequence[int], dtype: str = "float32") -> RemoteTensor:
        """A new tensor on the device."""
        return RemoteTensor(self._handle.empty([int(d) for d in shape], _kiln.DataType(dtype)),
                            self)

    def array(self, source: Any) -> RemoteTensor:
        """A tensor on the device holding a copy of SOURCE."""
        local = _kiln.array(source)
        return self.empty(local.shape, local.dtype).copyfrom(local)

    def upload_path(self, local_path: Union[str, os.PathLike]) -> str:
        """Uploads LOCAL_PATH under a name of its own; its path on the device."""
        return f"{self.info()['session_dir']}/{self._upload_unique(local_path)}"

    def _upload_unique(self, local_path: Union[str, os.PathLike]) -> str:
        """Uploads LOCAL_PATH under a name no other upload of this session has; that name."""
        self._uploads += 1
        return self.upload(local_path, f"{self._uploads}-{os.path.basename(local_path)}")

    def _executor(self, lib: Any, model: str, create: str) -> Executor:
        if isinstance(lib, Library) and lib.session is not self:
            where = "this process" if lib.session is None else lib.session.device_name
            raise TypeError(f"{create}: the library is loaded in {where}, not on "
                            f"{self.device_name}; pass its Artifact or file, which the session "
                            "uploads")
        library = lib if isinstance(lib, Library) else self.load_library(lib)
        factory = library.get_factory(model)
        handle = getattr(self._handle, create)(library._kiln_handle, model)
        return Executor(handle, self, factory)

    def get_executor_from_factory(self, lib: Any, model: str = "default") -> Executor:
        """An executor of MODEL on the device, of the kind the library holds. LIB is a library
        loaded in this session, an Artifact or a local library's path (uploaded first)."""
        return self._executor(lib, model, "get_executor_from_factory")

    def get_graph_executor(self, lib: Any, model: str = "default") -> Executor:
        """A graph executor of MODEL (an error names the kind the library holds otherwise)."""
        return self._executor(lib, model, "get_graph_executor")

    def get_aot_executor(self, lib: Any, model: str = "default") -> Executor:
        """An AOT executor of MODEL (an error names the kind the library holds otherwise)."""
        return self._executor(lib, model, "get_aot_executor")

    def get_debug_executor(self, lib: Any, model: str = "default") -> Executor:
        """A debug executor of MODEL, for profiles (graph executor libraries)."""
        return self._executor(lib, model, "get_debug_executor")

    def time_evaluator(self, module: Module, name: str, args: Sequence[Any] = (),
                       repeat: int = 10, number: int = 1) -> List[float]:
        """Times MODULE[NAME](*ARGS) on the device: one untimed call, then REPEAT
        measurements of NUMBER calls; each measurement's mean in milliseconds."""
        return self._handle.time_evaluator(module._kiln_handle, name, list(args), repeat, number)

    def close(self) -> None:
        """Ends the session (idempotent); the server removes the session's files."""
        self._handle.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<kiln.Session {self.device_name}{' (closed)' if self.closed else ''}>"


class Launcher:
    """Prepares a device and starts and stops its RPC servers; sessions run code on it.

    DEVICE is ``"local"`` (a fresh kiln-rpc-server process on this machine per session),
    ``"qemu-aarch64"`` (the aarch64 server under qemu-aarch64: an emulated aarch64 board) or
    ``"ssh:[USER@]HOST[:PORT]"`` (a Linux board: the server and runtime are copied there with
    scp, each session reaches its server through an ssh tunnel). Raises KilnError listing the
    devices kiln knows for any other name."""

    def __init__(self, device: str = "local", *, server_path: Optional[str] = None,
                 qemu_path: Optional[str] = None, sysroot: Optional[str] = None,
                 ssh_options: Sequence[str] = (), token: Optional[str] = None,
                 start_timeout: float = 20.0, call_timeout: float = 600.0):
        self._handle = _kiln.make_launcher(
            device, server_path=server_path or "", program_dir=program_dir(),
            qemu_path=qemu_path or "", sysroot=sysroot or "", ssh_options=list(ssh_options),
            token=token or "", start_timeout=start_timeout, call_timeout=call_timeout)

    @property
    def device_name(self) -> str:
        """The device: "local", "qemu-aarch64" or "ssh:USER@HOST"."""
        return self._handle.device_name

    @property
    def target(self) -> str:
        """The compile target of the device ("" = this machine's CPU); an ssh launcher starts
        first to ask its board."""
        return self._handle.target()

    def start(self) -> "Launcher":
        """Prepares the device (folders, files); idempotent. create_session() calls it."""
        self._handle.start()
        return self

    def stop(self) -> None:
        """Stops every server this launcher started and removes its device folder."""
        self._handle.stop()

    def add_file(self, local_path: Union[str, os.PathLike]) -> None:
        """A file the device needs beside the server (copied by start())."""
        self._handle.add_file(os.fspath(local_path))

    def create_session(self) -> Session:
        """A session on a fresh server process of the device."""
        return Session(self._handle.create_session(), self)

    def __enter__(self) -> "Launcher":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<kiln.Launcher {self.device_name}>"


def connect(host: str, port: int, *, token: Optional[str] = None,
            call_timeout: float = 600.0) -> Session:
    """A session on the kiln RPC server at HOST:PORT (``kiln rpc server``)."""
    return Session(_kiln.connect(host, port, token or "", call_timeout))


def request_session(tracker: str, key: str, *, priority: int = 0, timeout: float = 600.0,
                    token: Optional[str] = None, call_timeout: float = 600.0) -> Session:
    """A session on a free server of KEY from the tracker at TRACKER ("HOST:PORT"), waiting up
    to TIMEOUT seconds for one."""
    return Session(_kiln.request_session(tracker, key, priority, timeout, token or "",
                                         call_timeout))


def tracker_status(tracker: str, *, token: Optional[str] = None) -> Dict[str, Any]:
    """The tracker's servers, queue and sessions served."""
    return _kiln.tracker_status(tracker, token or "")
