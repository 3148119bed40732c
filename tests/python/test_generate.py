"""kiln.generate: a Llama-style decoder exported as Hugging Face exports it, compiled once with
bounded sequence and cache lengths, generates the tokens PyTorch's greedy loop picks, here and in
a session on each test device; sampling is reproducible from its seed."""
import os
import sys

import pytest

import kiln

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
import decoder_models  # noqa: E402

SIZES = {"layers": 1, "d_model": 32, "heads": 2, "kv_heads": 1, "vocab": 64}
BOUNDS = "1<=seq<=8, past<=16"
PROMPT = [5, 17, 3, 60]


@pytest.fixture(scope="module")
def decoder(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("decoder") / "llama.onnx")
    decoder_models.export("llama", path, **SIZES)
    return path, decoder_models.build("llama", **SIZES)


def test_greedy_tokens_match_pytorch(decoder):
    path, model = decoder
    ex = kiln.compile(path, dim_bounds=BOUNDS)["default"](kiln.cpu())
    seen = []
    report = kiln.generate(ex, PROMPT, 14, on_token=seen.append)  # the last step caches 16
    assert report["tokens"] == decoder_models.greedy(model, PROMPT, 14)
    assert len(set(report["tokens"])) > 3  # a loop that repeated a token would not pass
    assert seen == report["tokens"] and report["new_tokens"] == 14 and not report["stopped"]
    assert report["prompt_tokens"] == 4 and report["token_latency_ms"]["runs"] == 13
    assert report["prefill_tokens_per_s"] > 0 and report["decode_tokens_per_s"] > 0
    stop = report["tokens"][2]
    stopped = kiln.generate(ex, PROMPT, 14, stop_ids=[stop])
    assert stopped["stopped"] and stopped["tokens"] == report["tokens"][:report["tokens"].index(stop) + 1]


def test_sampling_is_reproducible_from_its_seed(decoder):
    ex = kiln.compile(decoder[0], dim_bounds=BOUNDS)["default"](kiln.cpu())
    draws = [kiln.generate(ex, PROMPT, 10, top_k=20, temperature=50.0, seed=s)["tokens"]
             for s in (1, 1, 2)]
    assert draws[0] == draws[1] and draws[0] != draws[2]
    assert kiln.generate(ex, PROMPT, 10, top_k=1, seed=9)["tokens"] == \
        kiln.generate(ex, PROMPT, 10)["tokens"]  # the single most likely token is greedy's


def test_bounds_and_bad_arguments_are_refused(decoder):
    ex = kiln.compile(decoder[0], dim_bounds=BOUNDS)["default"](kiln.cpu())
    with pytest.raises(kiln.KilnError, match=r"need 17 tokens cached, but 'past_key_values.0.key' "
                                             r"holds at most 16 .*at most 14 new tokens"):
        kiln.generate(ex, PROMPT, 15)
    with pytest.raises(kiln.KilnError, match=r"the prompt has 9 tokens, but the decoder takes at "
                                             r"most 8 per run"):
        kiln.generate(ex, list(range(9)), 2)
    with pytest.raises(kiln.KilnError, match=r"temperature is 0; expected a number > 0"):
        kiln.generate(ex, PROMPT, 2, temperature=0.0)

    def stop_here(token):
        raise RuntimeError(f"stopped at {token}")
    with pytest.raises(RuntimeError, match="stopped at"):
        kiln.generate(ex, PROMPT, 3, on_token=stop_here)


def test_generation_runs_in_a_session(decoder, kiln_device, kiln_session, kiln_target):
    path, model = decoder
    artifact = kiln.compile(path, dim_bounds=BOUNDS, target=kiln_target)
    ex = kiln_session.get_executor_from_factory(artifact)
    assert kiln.generate(ex, PROMPT, 6)["tokens"] == decoder_models.greedy(model, PROMPT, 6)
