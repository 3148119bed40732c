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


def test_caches_carried_inside_the_executor_match_caches_copied_through_python(decoder):
    path, _ = decoder
    lib = kiln.compile(path, dim_bounds=BOUNDS)
    carried, copied = lib["default"](kiln.cpu()), lib["default"](kiln.cpu())
    pasts = [i for i in carried.get_input_info() if i["name"].startswith("past")]
    for ex in (carried, copied):
        ex.run(input_ids=[PROMPT], position_ids=[list(range(len(PROMPT)))],
               **{p["name"]: kiln.empty([1, 1, 0, 16]) for p in pasts})
    for step, token in enumerate((7, 9, 11), 1):
        for ex in (carried, copied):
            ex.set_input(input_ids=[[token]], position_ids=[[len(PROMPT) + step - 1]])
        for position, p in enumerate(pasts, 1):
            carried.set_input_from_output(p["name"], position)
            copied.set_input(p["name"], copied.get_output(position))
        carried.run()
        copied.run()
        assert carried.get_output(0).numpy().tolist() == copied.get_output(0).numpy().tolist()
        assert carried.get_output(1).shape == (1, 1, len(PROMPT) + step, 16)


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
