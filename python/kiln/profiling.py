"""kiln.profile: per-node times of a model, as `kiln run --profile` prints them."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _kiln
from .module import Executor, Factory, Library, load_module


class Profile(list):
    """The per-node table: one dict per node, in run order, with

    - ``name``: the node (a fused group is named after its first node),
    - ``ops``: the operators fused into it, ``"Conv+Add+Relu"``,
    - ``us``: its median time in microseconds over the profiled runs,
    - ``percent``: its share of the sum over nodes,
    - ``shape``: its first output's shape (``"[1,64,56,56]"``),
    - ``gflops``: its speed, or None when its flops are unknown.

    ``pandas.DataFrame(profile)`` makes a table of it. ``nodes_us`` is the sum of the nodes'
    medians, ``end_to_end_us`` the median of whole runs measured on the same executor, in
    between the profiled ones; ``gap_bound_us`` how far apart the two may be (10 % of the
    end-to-end time or 50 us, whichever is larger); ``trace`` a Chrome trace (chrome://tracing,
    Perfetto) of the last profiled run."""

    def __init__(self, rows: List[Dict[str, Any]], nodes_us: float, end_to_end_us: float,
                 trace: Dict[str, Any], gap_bound_us: float):
        super().__init__(rows)
        self.nodes_us = nodes_us
        self.end_to_end_us = end_to_end_us
        self.gap_bound_us = gap_bound_us
        self.trace = trace

    @property
    def reconciled(self) -> bool:
        """Whether the nodes account for the end-to-end time within ``gap_bound_us``; a profile
        that does not was taken on a busy machine or misses time."""
        return abs(self.end_to_end_us - self.nodes_us) <= self.gap_bound_us

    def save_trace(self, path: Union[str, os.PathLike]) -> None:
        """Writes the Chrome trace of the last profiled run to PATH (JSON)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.trace, f, indent=1)

    def __repr__(self) -> str:
        return (f"<kiln.Profile {len(self)} nodes, {self.nodes_us:.1f} us in nodes, "
                f"{self.end_to_end_us:.1f} us end to end>")


def _debug_executor(target: Any, model_name: str, device: Any) -> tuple:
    """(debug executor, the inputs to copy from an executor or None)."""
    if isinstance(target, Executor):
        if target.factory is None:
            raise _kiln.KilnError("profile: this executor was not created through a kiln "
                                  "factory; profile its library or factory instead")
        return target.factory.debug_create(device), target
    if isinstance(target, Factory):
        return target.debug_create(device), None
    if isinstance(target, (str, os.PathLike)):
        target = load_module(target)
    if isinstance(target, Library) or hasattr(target, "get_factory"):
        return target.get_factory(model_name).debug_create(device), None
    raise TypeError(f"profile: expected an Executor, a Factory, a Library, an Artifact or a "
                    f"library's path, got {type(target).__name__}")


def profile(target: Any, inputs: Optional[Mapping[str, Any]] = None, *,
            model_name: str = "default", repeat: int = 10, number: int = 1,
            device: Any = None) -> Profile:
    """Runs a model node by node and returns its per-node times (a :class:`Profile`).

    TARGET is an Executor (its model, with the inputs set on it unless INPUTS are given), a
    Factory, a Library, an Artifact or a library's path (then MODEL_NAME picks the model, and
    INPUTS are required). A debug executor runs the model REPEAT times kernel by kernel,
    alternating with timed whole runs (NUMBER runs each), so the machine's noise hits both
    alike. For a remote executor everything is measured on the device. The model must have
    been compiled with the graph executor."""
    debug, source = _debug_executor(target, model_name, device)
    if inputs is not None:
        debug.set_input(**dict(inputs))
    elif source is not None:
        for i in range(source.get_num_inputs()):
            debug.set_input(i, source.get_input(i))
    elif debug.get_num_inputs() > 0:
        raise TypeError(f"profile: the model has {debug.get_num_inputs()} inputs "
                        f"({', '.join(debug.input_names)}); give them as inputs={{name: array}}")
    session = debug.session._handle if debug.session is not None else None
    name = debug.factory.model if debug.factory is not None else model_name
    result = _kiln.profile_executor(debug._kiln_handle, repeat, number, session, name)
    return Profile(result["nodes"], result["nodes_us"], result["end_to_end_us"], result["trace"],
                   result["gap_bound_us"])
