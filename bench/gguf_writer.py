"""Writes a Llama-style decoder of tests/e2e/decoder_models.py as a GGUF file (llama.cpp's model
format, version 3) with the same weights, so llama.cpp runs the very model kiln and ONNX Runtime run
from its ONNX export.

The file holds the `llama` architecture's hyperparameters, a synthetic vocabulary of the model's
size (ids in, ids out: the control tokens <unk>, <s>, </s>, the 256 byte tokens llama.cpp's
SentencePiece vocabulary expects, then plain pieces), and the tensors under llama.cpp's names. The
query and key projections' rows are permuted from the rotate-half rotary layout the PyTorch module
(as Hugging Face's) uses to the interleaved pairs llama.cpp's `llama` architecture rotates, as
llama.cpp's own converter does. Matrices are F32 or F16; norms stay F32.

    /usr/bin/python3 bench/gguf_writer.py OUT.gguf [--f16] [decoder_models.build arguments]"""
import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tests", "e2e"))
import decoder_models  # noqa: E402

ALIGNMENT = 32
# GGUF metadata value types and tensor types.
UINT32, INT32, FLOAT32, STRING, ARRAY = 4, 5, 6, 8, 9
TYPE_F32, TYPE_F16 = 0, 1
# llama.cpp's token types.
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6


def gguf_string(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def kv_value(kind: int, value) -> bytes:
    if kind == UINT32:
        return struct.pack("<I", value)
    if kind == INT32:
        return struct.pack("<i", value)
    if kind == FLOAT32:
        return struct.pack("<f", value)
    if kind == STRING:
        return gguf_string(value)
    raise ValueError(f"unsupported GGUF value type {kind}")


def kv(key: str, kind: int, value, element: int = 0) -> bytes:
    out = gguf_string(key) + struct.pack("<I", kind)
    if kind != ARRAY:
        return out + kv_value(kind, value)
    out += struct.pack("<IQ", element, len(value))
    if element == FLOAT32:
        return out + np.asarray(value, dtype="<f4").tobytes()
    if element == INT32:
        return out + np.asarray(value, dtype="<i4").tobytes()
    return out + b"".join(kv_value(element, v) for v in value)


def vocabulary(size: int):
    """Tokens, scores and types of a synthetic SentencePiece vocabulary of SIZE entries."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256
    if size < len(tokens) + 1:
        raise ValueError(f"a GGUF vocabulary needs at least {len(tokens) + 1} tokens; got {size}")
    tokens += [f"\u2581t{i}" for i in range(len(tokens), size)]
    types += [NORMAL] * (size - len(types))
    scores = [0.0] * 3 + [0.0] * 256 + [-float(i) for i in range(size - 259)]
    return tokens, scores, types


def rope_rows(w: np.ndarray, heads: int) -> np.ndarray:
    """Rows of a query or key projection (HEADS heads) from rotate-half to interleaved pairs."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, w.shape[1]).swapaxes(1, 2).reshape(
        w.shape)


def tensors(model) -> list:
    """(name, float32 array) in llama.cpp's names; an array's numpy shape is GGUF's reversed."""
    t = lambda p: p.detach().numpy().astype(np.float32)  # noqa: E731
    out = [("token_embd.weight", t(model.tokens.weight))]
    for i, b in enumerate(model.blocks):
        out += [(f"blk.{i}.attn_norm.weight", t(b.norm1.weight)),
                (f"blk.{i}.attn_q.weight", rope_rows(t(b.q.weight), b.heads)),
                (f"blk.{i}.attn_k.weight", rope_rows(t(b.k.weight), b.kv_heads)),
                (f"blk.{i}.attn_v.weight", t(b.v.weight)),
                (f"blk.{i}.attn_output.weight", t(b.o.weight)),
                (f"blk.{i}.ffn_norm.weight", t(b.norm2.weight)),
                (f"blk.{i}.ffn_gate.weight", t(b.gate.weight)),
                (f"blk.{i}.ffn_up.weight", t(b.up.weight)),
                (f"blk.{i}.ffn_down.weight", t(b.down.weight))]
    return out + [("output_norm.weight", t(model.norm.weight)),
                  ("output.weight", t(model.head.weight))]


def write(model, path: str, f16: bool = False) -> None:
    """Writes MODEL (a decoder_models.Decoder of kind llama) to PATH."""
    if model.kind != "llama":
        raise ValueError(f"only Llama-style decoders have a GGUF form here; got {model.kind}")
    block = model.blocks[0]
    d = model.tokens.weight.shape[1]
    vocab = model.tokens.weight.shape[0]
    tokens, scores, types = vocabulary(vocab)
    meta = [kv("general.architecture", STRING, "llama"),
            kv("general.name", STRING, "kiln-bench-llama"),
            kv("general.alignment", UINT32, ALIGNMENT),
            kv("general.file_type", UINT32, 1 if f16 else 0),
            kv("llama.context_length", UINT32, model.cos.shape[0]),
            kv("llama.embedding_length", UINT32, d),
            kv("llama.block_count", UINT32, len(model.blocks)),
            kv("llama.feed_forward_length", UINT32, block.gate.weight.shape[0]),
            kv("llama.rope.dimension_count", UINT32, block.head_dim),
            kv("llama.rope.freq_base", FLOAT32, 10000.0),
            kv("llama.attention.head_count", UINT32, block.heads),
            kv("llama.attention.head_count_kv", UINT32, block.kv_heads),
            kv("llama.attention.layer_norm_rms_epsilon", FLOAT32, block.norm1.eps),
            kv("llama.vocab_size", UINT32, vocab),
            kv("tokenizer.ggml.model", STRING, "llama"),
            kv("tokenizer.ggml.tokens", ARRAY, tokens, STRING),
            kv("tokenizer.ggml.scores", ARRAY, scores, FLOAT32),
            kv("tokenizer.ggml.token_type", ARRAY, types, INT32),
            kv("tokenizer.ggml.unknown_token_id", UINT32, 0),
            kv("tokenizer.ggml.bos_token_id", UINT32, 1),
            kv("tokenizer.ggml.eos_token_id", UINT32, 2)]
    arrays = []
    for name, a in tensors(model):
        kind = TYPE_F16 if f16 and a.ndim == 2 else TYPE_F32
        arrays.append((name, a.astype("<f2" if kind == TYPE_F16 else "<f4"), kind))
    infos, offset = [], 0
    for name, a, kind in arrays:
        infos.append(gguf_string(name) + struct.pack("<I", a.ndim) +
                     struct.pack(f"<{a.ndim}Q", *reversed(a.shape)) +
                     struct.pack("<IQ", kind, offset))
        offset += -(-a.nbytes // ALIGNMENT) * ALIGNMENT
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, len(arrays), len(meta)))
        for m in meta + infos:
            f.write(m)
        f.write(b"\0" * (-f.tell() % ALIGNMENT))
        for _, a, _ in arrays:
            f.write(a.tobytes())
            f.write(b"\0" * (-a.nbytes % ALIGNMENT))
    os.replace(tmp, path)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("output")
    p.add_argument("--f16", action="store_true", help="matrices in float16 (norms stay float32)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    model = decoder_models.build("llama", a.layers, a.d_model, a.heads, a.kv_heads, a.vocab,
                                 a.context, a.seed)
    write(model, a.output, a.f16)


if __name__ == "__main__":
    main()
