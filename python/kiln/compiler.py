"""kiln.compile: ONNX models (files, bytes or onnx.ModelProto) into one library, an Artifact."""
from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _kiln
from .module import Function, Library, load_module

#: A model to compile: the path of an ONNX file, an ``onnx.ModelProto``, or its serialized bytes.
ModelLike = Union[str, os.PathLike, bytes, Any]
#: Input shapes: input name -> dims (``{"input": [1, 3, 224, 224]}``).
Shapes = Mapping[str, Sequence[Union[int, str]]]


class Artifact:
    """A compiled library: kernels, executor metadata and (unless ``params="external"``) weights.

    It lives in a temporary folder until :meth:`export_library` writes it where it is wanted.
    It is also a library itself: ``artifact["default"](kiln.cpu())`` loads it and creates an
    executor, as the exported file would."""

    def __init__(self, folder: str, path: str, models: List[str], options: Dict[str, Any],
                 result: Dict[str, Any]):
        self._folder = folder
        self._path = path
        self._models = models
        self._options = options
        self._library: Optional[Library] = None
        #: The chains of nodes offload backends took over: model, backend, pattern, nodes, ops.
        self.offloads: List[Dict[str, Any]] = list(result["offloads"])
        #: The extension libraries the compilation loaded (kiln loads their runtimes from these).
        self.extensions: List[str] = list(result["extensions"])
        #: Distinct kernels kiln compiled, and how many more were identical to one of them.
        self.kernels: int = int(result["kernels"])
        self.shared_kernels: int = int(result["shared_kernels"])
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, True)

    @property
    def path(self) -> str:
        """The library's temporary file (valid while this Artifact lives)."""
        return self._path

    def params_path(self, model: str = "default") -> Optional[str]:
        """The temporary weights file of MODEL (compiled with ``params="external"``), for
        ``factory.load_params``; None when the weights are inside the library."""
        if self._options["params"] != "external":
            return None
        if model not in self._models:
            raise _kiln.KilnError(f"no model '{model}' in this artifact; it has {self._models}")
        return _kiln.params_path(self._path, model, len(self._models))

    @property
    def model_names(self) -> List[str]:
        """The names of the models in the library, in the order given."""
        return list(self._models)

    @property
    def executor(self) -> str:
        """'graph' or 'aot': the executor the models were compiled for."""
        return self._options["executor"]

    @property
    def target(self) -> str:
        """The target it was compiled for ("" = this machine's CPU)."""
        return self._options["target"]

    def _extra_files(self, output: str) -> List[tuple]:
        """(temporary file, its name beside OUTPUT): weights files and the static header."""
        extra = []
        if self._options["params"] == "external":
            for m in self._models:
                extra.append((_kiln.params_path(self._path, m, len(self._models)),
                               _kiln.params_path(output, m, len(self._models))))
        if self._options["emit"] == "static":
            extra.append((_kiln.static_header_path(self._path),
                          _kiln.static_header_path(output)))
        return extra

    def export_library(self, path: Union[str, os.PathLike]) -> str:
        """Writes the library to PATH (and its weights files or C header beside it, named as
        kiln compile names them); each file is replaced atomically. Returns PATH."""
        output = os.fspath(path)
        if os.path.isdir(output):
            raise _kiln.KilnError(f"export_library: '{output}' is a folder; expected the "
                                  "library's file name")
        folder = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(folder):
            raise _kiln.KilnError(f"export_library: the folder '{folder}' of '{output}' does "
                                  "not exist")
        for source, target in [(self._path, output)] + self._extra_files(output):
            _copy_atomic(source, target)
        return output

    def load(self) -> Library:
        """The library, loaded into this process (once)."""
        if self._options["emit"] == "static":
            raise _kiln.KilnError(
                "a static library (emit='static') is linked into a program, not loaded; "
                "export it with export_library and link it with its C header")
        if self._library is None:
            self._library = load_module(self._path, extensions=self.extensions)
        return self._library

    def __getitem__(self, name: str) -> Function:
        return self.load()[name]

    def get_factory(self, model: str = "default"):
        """MODEL's factory, in the library loaded into this process."""
        return self.load().get_factory(model)

    def get_params(self, model: str = "default") -> Dict[str, "_kiln.NDArray"]:
        """MODEL's weights, by name, as the library holds them (packed at compile time)."""
        return self.load().get_params(model)

    def list_models(self) -> List[str]:
        """The names of the models in the library."""
        return self.model_names

    def __repr__(self) -> str:
        return (f"<kiln.Artifact models={self._models} executor={self.executor!r} "
                f"target={self.target or 'host'!r}>")


def _copy_atomic(source: str, target: str) -> None:
    folder = os.path.dirname(os.path.abspath(target))
    fd, temporary = tempfile.mkstemp(prefix=".kiln-", dir=folder)
    os.close(fd)
    try:
        shutil.copyfile(source, temporary)
        os.chmod(temporary, os.stat(source).st_mode & 0o777)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _model_source(model: ModelLike, name: str) -> Union[str, bytes]:
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise _kiln.KilnError(f"model '{name}': the file '{path}' does not exist")
        return path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    if hasattr(model, "SerializeToString"):
        try:
            return model.SerializeToString()
        except ValueError as e:  # protobuf refuses messages over 2 GiB
            raise _kiln.KilnError(
                f"model '{name}': the ModelProto cannot be serialized ({e}); save it with "
                "onnx.save(model, path, save_as_external_data=True) and compile the path") from e
    raise TypeError(f"model '{name}': expected a path, an onnx.ModelProto or its bytes, got "
                    f"{type(model).__name__}")


def _dim(d: Any) -> Union[int, str]:
    """A size, or a symbol's name (a dim sized at run time within ``dim_bounds``)."""
    return d if isinstance(d, str) else int(d)


def _shapes(shapes: Optional[Shapes], what: str) -> Dict[str, List[Union[int, str]]]:
    if shapes is None:
        return {}
    if not isinstance(shapes, Mapping):
        raise TypeError(f"{what}: expected a dict of input name -> dims, got "
                        f"{type(shapes).__name__}")
    out = {}
    for input_name, dims in shapes.items():
        try:
            if isinstance(dims, (str, bytes)):
                raise TypeError("a string is not a list of dims")
            out[str(input_name)] = [_dim(d) for d in dims]
        except (TypeError, ValueError):
            raise TypeError(f"{what}: the shape of '{input_name}' must be a sequence of ints "
                            f"and symbol names, got {dims!r}") from None
    return out


def _dim_bounds(bounds: Any) -> str:
    """The text form of DIM_BOUNDS: ``"seq<=1024"``, or ``{"seq": 1024, "batch": (1, 8)}``."""
    if bounds is None:
        return ""
    if isinstance(bounds, str):
        return bounds
    if not isinstance(bounds, Mapping):
        raise TypeError(f"dim_bounds: expected a string or a dict of symbol -> max or (min, max), "
                        f"got {type(bounds).__name__}")
    entries = []
    for name, bound in bounds.items():
        if isinstance(bound, (tuple, list)) and len(bound) == 2:
            entries.append(f"{int(bound[0])}<={name}<={int(bound[1])}")
        elif isinstance(bound, (int, float)) and not isinstance(bound, bool):
            entries.append(f"{name}<={int(bound)}")
        else:
            raise TypeError(f"dim_bounds['{name}']: expected a max or a (min, max) pair, got "
                            f"{bound!r}")
    return ", ".join(entries)


def _entries(model: Any, model_name: Union[str, Sequence[str]],
             input_shapes: Any) -> tuple:
    """[(name, source, shapes)] and the input shapes every model shares."""
    if isinstance(model, Mapping):
        named = list(model.items())
    elif isinstance(model, (list, tuple)):
        names = [model_name] if isinstance(model_name, str) else list(model_name)
        if len(names) != len(model):
            raise ValueError(f"{len(model)} models and {len(names)} model names: give one name "
                             "per model, in the same order (or a dict of name -> model)")
        named = list(zip(names, model))
    else:
        if not isinstance(model_name, str):
            raise TypeError("one model takes one model_name (a str)")
        named = [(model_name, model)]
    per_model = (isinstance(input_shapes, Mapping) and input_shapes
                 and all(isinstance(v, Mapping) for v in input_shapes.values()))
    if per_model:
        unknown = sorted(set(map(str, input_shapes)) - {str(n) for n, _ in named})
        if unknown:
            raise ValueError(f"input_shapes names models {unknown}, which are not compiled here; "
                             f"the models are {[str(n) for n, _ in named]}")
    entries = []
    for name, m in named:
        own = _shapes(input_shapes.get(name), f"input_shapes['{name}']") if per_model else {}
        entries.append((str(name), _model_source(m, str(name)), own))
    shared = {} if per_model else _shapes(input_shapes, "input_shapes")
    return entries, shared


def compile(model: Union[ModelLike, Mapping[str, ModelLike], Sequence[ModelLike]], target: str = "",
            executor: str = "graph", input_shapes: Optional[Mapping[str, Any]] = None,
            opt_level: int = 3, model_name: Union[str, Sequence[str]] = "default", *,
            dim_bounds: Optional[Union[str, Mapping[str, Any]]] = None,
            params: str = "embedded", emit: str = "shared",
            extensions: Sequence[Union[str, os.PathLike]] = (),
            backend_attrs: Optional[Mapping[str, Mapping[str, Any]]] = None,
            schedule: Optional[Union[str, os.PathLike]] = None,
            dump_ir: Optional[Union[str, os.PathLike]] = None) -> Artifact:
    """Compiles ONNX models ahead of time into one kiln library.

    Args:
        model: the model: an ONNX file's path, an ``onnx.ModelProto`` or its serialized bytes.
            Several models go into one library as a dict ``{name: model}``, or as a list with a
            list of ``model_name``; each gets its own factory, ``lib[name]``.
        target: what the code is for: ``""`` for this machine's CPU, else
            ``"llvm -mcpu=... -mattr=..."`` or ``"llvm -mtriple=aarch64-linux-gnu"``, optionally
            after offload backends loaded from EXTENSIONS: ``"dnnl,llvm"``.
        executor: ``"graph"`` (a graph of kernel calls interpreted at run time; profiling needs
            it) or ``"aot"`` (one generated entry function per model).
        input_shapes: dims for inputs whose shapes are symbolic, or to pin a model to one
            shape: ``{"input": [1, 3, 224, 224]}``; for several models either one dict for all
            or ``{model_name: {input: dims}}``. A dim may be a symbol's name,
            ``{"input_ids": [1, "seq"]}``, bounded in ``dim_bounds``.
        dim_bounds: the sizes the inputs' symbolic dims (the model's named dims, or names in
            ``input_shapes``) may take: ``{"seq": 1024, "batch": (1, 8)}`` or
            ``"seq<=1024, 1<=batch<=8"``. One library then serves every size within the
            bounds, its memory laid out for the largest.
        opt_level: 0 (no graph optimisation, LLVM -O0) to 3 (everything).
        model_name: the name of the single model (``lib[model_name]``), or the names of a
            list of models.
        params: ``"embedded"`` (weights inside the library) or ``"external"`` (a weights file
            beside it, loaded with ``factory.load_params(path)``).
        emit: ``"shared"`` (a library for kiln's runtime) or ``"static"`` (with
            ``executor="aot"``: a static library and a C header, for programs without kiln).
        extensions: extension libraries (or folders of them) with offload backends, loaded
            after those of ``KILN_EXTENSION_PATH``.
        backend_attrs: values of the backends' target attributes,
            ``{"dnnl": {"attr": value}}`` (the command line's ``--target-dnnl-attr``).
        schedule: a schedule file (JSON lines of workload and knobs) overriding kernel knobs.
        dump_ir: a folder to write the IR after every pass into.

    Returns:
        An :class:`Artifact`: ``export_library(path)`` writes it, ``artifact["default"](dev)``
        runs it here.

    Raises:
        KilnError: the model, a shape, an option or a file is wrong; the message names it and
            says what was expected.

    The GIL is released while kiln compiles, so other Python threads run meanwhile.
    """
    entries, shared = _entries(model, model_name, input_shapes)
    options = {"target": target, "executor": executor, "params": params, "emit": emit}
    folder = tempfile.mkdtemp(prefix="kiln-artifact-")
    try:
        suffix = ".a" if emit == "static" else ".so"
        path = os.path.join(folder, "lib" + _file_safe(entries[0][0] if entries else "model") +
                            suffix)
        result = _kiln.compile_models(
            entries, path, target=target, executor=executor, input_shapes=shared,
            dim_bounds=_dim_bounds(dim_bounds), opt_level=int(opt_level), dump_ir=os.fspath(dump_ir) if dump_ir else "",
            schedule=os.fspath(schedule) if schedule else "", params=params, emit=emit,
            extensions=[os.fspath(e) for e in extensions],
            backend_attrs=_attr_values(backend_attrs))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Artifact(folder, path, [e[0] for e in entries], options, result)


def _file_safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "model"


def _attr_values(attrs: Optional[Mapping[str, Mapping[str, Any]]]) -> Dict[str, Dict[str, str]]:
    out: Dict[str, Dict[str, str]] = {}
    for backend, values in (attrs or {}).items():
        out[str(backend)] = {
            str(k): ("true" if v is True else "false" if v is False else str(v))
            for k, v in values.items()
        }
    return out
