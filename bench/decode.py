#!/usr/bin/env python3
"""Token generation against ONNX Runtime: a decoder exported as Hugging Face exports it
(tests/e2e/decoder_models.py, GPT-2-style and Llama-style, random weights from a fixed seed),
compiled once by kiln with bounded sequence and cache lengths, then a greedy generation of the
same prompt by `kiln generate --json` and by the same loop over ONNX Runtime
(bench/ort_generate.js), each after one untimed generation, alternating round by round at each
thread count. For the Llama-style decoder, llama.cpp runs the same loop on the same weights
written as a GGUF file (bench/gguf_writer.py; F32 with a float32 cache, or F16 matrices and
cache with --gguf-f16) through
node-llama-cpp (bench/llama_cpp_generate.js; install it once with `npm install --prefix bench
--ignore-scripts --omit=optional`). Prints the medians of prefill and decode tokens/s and kiln's
ratio to each peer, checks every engine picked the same tokens, and gives each engine's peak
resident memory (its process's, weights included) beside the key/value cache's bytes per token.

    /usr/bin/python3 bench/decode.py [--kinds gpt2,llama] [--threads 1,2] [--rounds 3]
        [--prompt 128] [--new-tokens 64] [--layers 4] [--d-model 768] [--heads 12]
        [--kv-heads 4] [--vocab 8192] [--no-llama-cpp] [--gguf-f16] [--json FILE]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import decoder_models  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer  # noqa: E402

KILN = os.path.join(ROOT, "build", "release", "bin", "kiln")


# Runs a command in a child of its own and prints its output, then that child's peak resident KiB.
PROBE = ("import resource, subprocess, sys\n"
         "r = subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True)\n"
         "print(r.stdout.strip())\n"
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def measured(cmd):
    """The JSON report CMD prints last, with "peak_rss_mib": its process's peak resident size."""
    lines = subprocess.run([sys.executable, "-c", PROBE] + cmd, check=True, capture_output=True,
                           text=True).stdout.splitlines()
    report = json.loads(lines[-2])
    report["peak_rss_mib"] = int(lines[-1]) / 1024
    return report


def kiln_generate(so, prompt, new_tokens, threads):
    return measured([KILN, "generate", so, "--prompt-ids", ",".join(map(str, prompt)),
                     "--max-new-tokens", str(new_tokens), "--threads", str(threads),
                     "--warmup", "1", "--json"])


def ort_generate(onnx, prompt, new_tokens, cache_dims, threads):
    return measured(["node", os.path.join(ROOT, "bench", "ort_generate.js"), onnx,
                     ",".join(map(str, prompt)), str(new_tokens), ",".join(map(str, cache_dims)),
                     "--threads", str(threads), "--warmup", "1"])


def llama_cpp_generate(gguf, prompt, new_tokens, threads, kv_cache):
    return measured(["node", os.path.join(ROOT, "bench", "llama_cpp_generate.js"), gguf,
                     ",".join(map(str, prompt)), str(new_tokens), "--threads", str(threads),
                     "--warmup", "1", "--kv-cache", kv_cache])


def require_llama_cpp():
    if not os.path.isdir(os.path.join(ROOT, "bench", "node_modules", "node-llama-cpp")):
        sys.exit("llama.cpp is not installed for the bench: run `npm install --prefix bench "
                 "--ignore-scripts --omit=optional` (or pass --no-llama-cpp)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kinds", default="gpt2,llama")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--new-tokens", type=int, default=64)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d-model", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=8192)
    p.add_argument("--no-llama-cpp", action="store_true",
                   help="leave llama.cpp out (it runs the Llama-style decoder only)")
    p.add_argument("--gguf-f16", action="store_true",
                   help="llama.cpp's matrices and key/value cache in float16, as it is usually "
                   "run (else float32, as kiln and ORT compute)")
    p.add_argument("--json")
    a = p.parse_args()
    with_llama_cpp = "llama" in a.kinds.split(",") and not a.no_llama_cpp
    if with_llama_cpp:
        require_llama_cpp()
    past = a.prompt + a.new_tokens  # at least what the last step caches
    context = past + a.prompt  # the model's position table covers past + seq at the bounds
    results = []
    with tempfile.TemporaryDirectory() as work:
        for kind in a.kinds.split(","):
            onnx, so = os.path.join(work, kind + ".onnx"), os.path.join(work, kind + ".so")
            decoder_models.export(kind, onnx, a.layers, a.d_model, a.heads, a.kv_heads, a.vocab,
                                  context)
            subprocess.run([KILN, "compile", onnx, "-o", so, "--dim-bounds",
                            f"1<=seq<={a.prompt}, past<={past}"], check=True,
                           capture_output=True)
            heads = a.kv_heads if kind == "llama" else a.heads
            cache_dims = [1, heads, 0, a.d_model // a.heads]
            prompt = [(7 * i + 3) % a.vocab for i in range(a.prompt)]
            engines = {"kiln": lambda t: kiln_generate(so, prompt, a.new_tokens, t),
                       "ort": lambda t: ort_generate(onnx, prompt, a.new_tokens, cache_dims, t)}
            if kind == "llama" and with_llama_cpp:
                gguf = os.path.join(work, kind + ".gguf")
                gguf_writer.write(decoder_models.build(kind, a.layers, a.d_model, a.heads,
                                                       a.kv_heads, a.vocab, context), gguf,
                                  a.gguf_f16)
                kv_cache = "F16" if a.gguf_f16 else "F32"  # F32: the others' arithmetic
                engines["llama_cpp"] = lambda t: llama_cpp_generate(gguf, prompt, a.new_tokens, t,
                                                                    kv_cache)
            for threads in map(int, a.threads.split(",")):
                results.append(compare(kind, threads, engines, a, cache_dims))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(a), "results": results}, f, indent=1)


def compare(kind, threads, engines, a, cache_dims):
    """Runs ENGINES alternately A.rounds times at THREADS; prints and returns the medians."""
    runs = {name: [] for name in engines}
    for _ in range(a.rounds):
        for name, generate in engines.items():
            runs[name].append(generate(threads))
    # keys and values, float32, per layer
    row = {"kind": kind, "threads": threads,
           "cache_bytes_per_token": 2 * a.layers * cache_dims[1] * cache_dims[3] * 4}
    for engine, reports in runs.items():
        tokens, ours = reports[0]["tokens"], runs["kiln"][0]["tokens"]
        row[f"{engine}_same_tokens"] = tokens == ours
        row[f"{engine}_first_different_token"] = next(
            (i for i, (x, y) in enumerate(zip(tokens, ours)) if x != y),
            None if len(tokens) == len(ours) else min(len(tokens), len(ours)))
        for key in ("prefill_tokens_per_s", "decode_tokens_per_s", "peak_rss_mib"):
            row[f"{engine}_{key}"] = statistics.median(r[key] for r in reports)
    line = []
    for key in ("prefill_tokens_per_s", "decode_tokens_per_s"):
        figures = []
        for peer in (e for e in engines if e != "kiln"):
            row[f"kiln_over_{peer}_{key}"] = row[f"kiln_{key}"] / row[f"{peer}_{key}"]
            figures.append(f"{peer} {row[f'{peer}_{key}']:.1f} (kiln/{peer} "
                           f"{row[f'kiln_over_{peer}_{key}']:.2f})")
        line.append(f"{key.split('_')[0]} kiln {row[f'kiln_{key}']:.1f} vs " +
                    ", ".join(figures) + " tokens/s")
    same = all(row[f"{e}_same_tokens"] for e in engines)
    differ = ", ".join(f"{e} from token {row[f'{e}_first_different_token']}" for e in engines
                       if not row[f"{e}_same_tokens"])
    rss = ", ".join(f"{e} {row[f'{e}_peak_rss_mib']:.0f}" for e in engines)
    print(f"{kind} t={threads}: " + "; ".join(line) +
          f"; {'same tokens' if same else 'TOKENS DIFFER: ' + differ}; peak RSS MiB: {rss}; cache "
          f"{row['cache_bytes_per_token'] / 1024:.0f} KiB per token", flush=True)
    return row


if __name__ == "__main__":
    main()
