#!/usr/bin/env python3
"""Token generation against ONNX Runtime: a decoder exported as Hugging Face exports it
(tests/e2e/decoder_models.py, GPT-2-style and Llama-style, random weights from a fixed seed),
compiled once by kiln with bounded sequence and cache lengths, then a greedy generation of the
same prompt by `kiln generate --json` and by the same loop over ONNX Runtime
(bench/ort_generate.js), each after one untimed generation, alternating round by round at each
thread count. Prints the medians of prefill and decode tokens/s and kiln/ORT for each, checks both
picked the same tokens, and gives each engine's peak resident memory (its process's, weights
included) beside the key/value cache's bytes per token.

    /usr/bin/python3 bench/decode.py [--kinds gpt2,llama] [--threads 1,2] [--rounds 3]
        [--prompt 128] [--new-tokens 64] [--layers 4] [--d-model 768] [--heads 12]
        [--kv-heads 4] [--vocab 8192] [--json FILE]"""
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
    p.add_argument("--json")
    a = p.parse_args()
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
            for threads in map(int, a.threads.split(",")):
                runs = {"kiln": [], "ort": []}
                for _ in range(a.rounds):
                    runs["kiln"].append(kiln_generate(so, prompt, a.new_tokens, threads))
                    runs["ort"].append(ort_generate(onnx, prompt, a.new_tokens, cache_dims,
                                                    threads))
                same = runs["kiln"][0]["tokens"] == runs["ort"][0]["tokens"]
                # keys and values, float32, per layer
                row = {"kind": kind, "threads": threads, "same_tokens": same,
                       "cache_bytes_per_token": 2 * a.layers * cache_dims[1] * cache_dims[3] * 4}
                for engine, reports in runs.items():
                    for key in ("prefill_tokens_per_s", "decode_tokens_per_s", "peak_rss_mib"):
                        row[f"{engine}_{key}"] = statistics.median(r[key] for r in reports)
                for key in ("prefill_tokens_per_s", "decode_tokens_per_s"):
                    row[f"kiln_over_ort_{key}"] = row[f"kiln_{key}"] / row[f"ort_{key}"]
                results.append(row)
                print(f"{kind} t={threads}: prefill {row['kiln_prefill_tokens_per_s']:.0f} vs "
                      f"{row['ort_prefill_tokens_per_s']:.0f} tokens/s "
                      f"(kiln/ORT {row['kiln_over_ort_prefill_tokens_per_s']:.2f}), decode "
                      f"{row['kiln_decode_tokens_per_s']:.1f} vs "
                      f"{row['ort_decode_tokens_per_s']:.1f} tokens/s "
                      f"(kiln/ORT {row['kiln_over_ort_decode_tokens_per_s']:.2f}); "
                      f"{'same tokens' if same else 'TOKENS DIFFER'}; peak RSS "
                      f"{row['kiln_peak_rss_mib']:.0f} vs {row['ort_peak_rss_mib']:.0f} MiB, "
                      f"cache {row['cache_bytes_per_token'] / 1024:.0f} KiB per token",
                      flush=True)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(a), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
