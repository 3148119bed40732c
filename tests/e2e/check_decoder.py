"""End-to-end check of a decoder with a key/value cache: export it the way Hugging Face exports
language models (decoder_models.py), compile it once with the sequence and cache lengths bounded,
and run a prompt then greedy decode steps through `kiln run`, each step's present keys and values
fed back as the next step's past. Every step's logits and presents are checked against the
PyTorch module the export came from, and the library must compile every node into a kernel
(none left to the runtime's ops, each layer's attention one fused kernel) with every tensor
planned at the bounds. Then `kiln generate`
must pick the tokens PyTorch's greedy loop picks, up to the cache's bound."""
import json
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import decoder_models  # noqa: E402
from e2e_common import parse_args, run  # noqa: E402

SIZES = {"layers": 2, "d_model": 64, "heads": 4, "kv_heads": 2, "vocab": 256}
PROMPT, STEPS = 5, 4


def check_compiled(kiln: str, so: str) -> bool:
    inspected = subprocess.run([kiln, "inspect", "--json", so], check=True, capture_output=True,
                               text=True).stdout
    meta = json.loads(inspected)["models"][0]["metadata"]
    in_runtime = {k["runtime_op"]["op"] for k in meta["kernels"] if "runtime_op" in k}
    sized_at_run_time = [t["name"] for t in meta["tensors"] if t.get("storage") == -2]
    attention = sum("kiln.Attention" in k.get("ops", []) for k in meta["kernels"])
    print(f"{len(meta['kernels'])} kernels, {attention} of them fused attention; run-time ops: "
          f"{sorted(in_runtime) or 'none'}")
    if in_runtime or sized_at_run_time:
        print(f"FAIL: run-time ops {sorted(in_runtime)} should be compiled kernels; "
              f"tensors sized at run time: {sized_at_run_time}")
        return False
    if attention != SIZES["layers"]:
        print(f"FAIL: expected one fused attention per layer ({SIZES['layers']}), got {attention}")
        return False
    return True


def main() -> int:
    args = parse_args(__doc__, "allowed |kiln - torch| relative to max |torch|")
    args.kind = args.model  # gpt2 or llama
    os.makedirs(args.work, exist_ok=True)
    stem = os.path.join(args.work, f"decoder_{args.kind}")
    decoder_models.export(args.kind, stem + ".onnx", **SIZES)
    run([args.kiln, "compile", stem + ".onnx", "-o", stem + ".so", "--dim-bounds",
         "1<=seq<=32, past<=32"])
    if not check_compiled(args.kiln, stem + ".so"):
        return 1

    model = decoder_models.build(args.kind, **SIZES)
    cache_heads = SIZES["kv_heads"] if args.kind == "llama" else SIZES["heads"]
    head_dim = SIZES["d_model"] // SIZES["heads"]
    names = [f"past_key_values.{i // 2}.{'key' if i % 2 == 0 else 'value'}"
             for i in range(2 * SIZES["layers"])]
    past = [np.zeros((1, cache_heads, 0, head_dim), np.float32) for _ in names]
    ids = np.random.default_rng(7).integers(0, SIZES["vocab"], (1, PROMPT)).astype(np.int64)
    for step in range(STEPS + 1):
        positions = {} if args.kind == "gpt2" else {"position_ids": np.arange(
            past[0].shape[2], past[0].shape[2] + ids.shape[1], dtype=np.int64)[None]}
        np.savez(stem + ".in.npz", input_ids=ids, **positions, **dict(zip(names, past)))
        run([args.kiln, "run", stem + ".so", "--inputs", stem + ".in.npz", "--outputs",
             stem + ".out.npz"])
        out = np.load(stem + ".out.npz")
        got = [out["logits"]] + [out[n.replace("past_key_values", "present")] for n in names]
        with torch.no_grad():
            want = [t.numpy() for t in model(torch.from_numpy(ids),
                                             *[torch.from_numpy(p) for p in positions.values()],
                                             *[torch.from_numpy(p) for p in past])]
        for name, g, w in zip(["logits"] + names, got, want):
            if g.shape != w.shape:
                print(f"FAIL: step {step}: {name} is {g.shape}, expected {w.shape}")
                return 1
            err = float(np.abs(g - w).max() / max(1.0, float(np.abs(w).max())))
            if not err <= args.rtol:
                print(f"FAIL: step {step}: {name} differs by {err:.2e} (allowed {args.rtol})")
                return 1
        print(f"step {step}: {ids.shape[1]} tokens after {past[0].shape[2]} cached agree")
        past = got[1:]
        ids = np.array([[int(np.argmax(got[0][0, -1]))]], np.int64)
    return check_generate(args, stem + ".so", model)


def check_generate(args, so: str, model) -> int:
    """`kiln generate` picks the same tokens as greedy decoding in PyTorch, up to the cache's
    bound, and refuses one token more with the bound named. The 20-token prompt is long enough
    for the attention kernel's tiles of query rows; the decode steps take its row pass."""
    prompt = [int(t) for t in np.random.default_rng(11).integers(0, SIZES["vocab"], 20)]
    new_tokens = 32 - len(prompt) + 2  # the last step caches 32 tokens, the bound
    report = json.loads(subprocess.run(
        [args.kiln, "generate", so, "--prompt-ids", ",".join(map(str, prompt)),
         "--max-new-tokens", str(new_tokens), "--json"], check=True, capture_output=True,
        text=True).stdout.splitlines()[-1])
    want = decoder_models.greedy(model, prompt, new_tokens)
    if report["tokens"] != want:
        print(f"FAIL: kiln generate gave {report['tokens']}, PyTorch's greedy loop {want}")
        return 1
    print(f"kiln generate: {new_tokens} tokens as PyTorch's greedy loop picks them; prefill "
          f"{report['prefill_tokens_per_s']:.0f} tokens/s, decode "
          f"{report['decode_tokens_per_s']:.0f} tokens/s")
    over = subprocess.run(
        [args.kiln, "generate", so, "--prompt-ids", ",".join(map(str, prompt)),
         "--max-new-tokens", str(new_tokens + 1)], capture_output=True, text=True)
    if over.returncode == 0 or "holds at most 32" not in over.stderr:
        print(f"FAIL: one token past the bound should be refused naming it: {over.stderr}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
