"""kiln.generate: token generation with a decoder compiled with bounded sequence and cache lengths,
the loop of `kiln generate`."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from . import _kiln
from .module import Executor


def generate(executor: Executor, prompt_ids: Iterable[int], max_new_tokens: int = 32, *,
             top_k: Optional[int] = None, top_p: Optional[float] = None,
             temperature: Optional[float] = None, seed: int = 0,
             stop_ids: Iterable[int] = (),
             on_token: Optional[Callable[[int], None]] = None) -> Dict[str, Any]:
    """Runs PROMPT_IDS through EXECUTOR (a decoder's executor, here or in a session) once, then
    one step per new token, each step's ``present*`` outputs fed back as the next step's
    ``past*`` inputs, until MAX_NEW_TOKENS tokens or one of STOP_IDS.

    Greedy (the most likely token) unless TOP_K, TOP_P or TEMPERATURE is given, which draw each
    token from a stream seeded by SEED (the same seed, model and prompt give the same tokens on
    every machine). ON_TOKEN is called with each token as it is picked.

    Returns the report of ``kiln generate --json``: ``tokens`` (the new ids), ``prompt_tokens``,
    ``new_tokens``, ``stopped``, ``prefill_ms`` (= ``time_to_first_token_ms``),
    ``prefill_tokens_per_s``, ``decode_tokens_per_s`` and ``token_latency_ms`` (mean, median,
    p90, p99, ... of the decode steps; None after a single token). Token ids in, token ids out:
    tokenising text is the caller's."""
    draws = top_k is not None or top_p is not None or temperature is not None
    sampling = _kiln.SamplingOptions(
        greedy=not draws, top_k=0 if top_k is None else top_k,
        temperature=1.0 if temperature is None else temperature,
        top_p=1.0 if top_p is None else top_p, seed=seed)
    return _kiln.generate(executor._kiln_handle, [int(t) for t in prompt_ids],
                          int(max_new_tokens), sampling, [int(t) for t in stop_ids], on_token)
