"""Decoder-only transformers exported to ONNX the way Hugging Face exports language models: token
ids and one past key and value per layer in, logits and one present key and value per layer out,
the sequence (`seq`) and cache (`past`) lengths free dims. Random weights from a fixed seed; no
`transformers` package and no download.

- `gpt2`: GPT-2's block (pre-LayerNorm, fused QKV projection, a causal mask sliced out of a
  constant buffer by the cache and sequence lengths, tanh-free GELU, learned positions).
- `llama`: a Llama block (RMSNorm, rotary position embeddings, grouped-query attention with
  fewer key/value heads than query heads, a SiLU-gated MLP, untied output head), with the
  `position_ids` input of Hugging Face's Llama exports (the rotary angles and the causal mask
  follow the positions given).

    python3 decoder_models.py gpt2 out.onnx --layers 2 --d-model 64 --heads 4 --vocab 256
"""
import argparse
import math

import torch


class Gpt2Block(torch.nn.Module):
    def __init__(self, d: int, heads: int, context: int):
        super().__init__()
        self.heads, self.head_dim = heads, d // heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, 4 * d)
        self.out = torch.nn.Linear(4 * d, d)
        # GPT-2's "bias" buffer: the lower triangle of the largest context.
        self.register_buffer("bias", torch.tril(torch.ones(context, context)).view(
            1, 1, context, context), persistent=False)

    def split(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x, past_k, past_v):
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        query_len, key_len = q.shape[-2], k.shape[-2]
        mask = self.bias[:, :, key_len - query_len:key_len, :key_len]
        scores = torch.where(mask.bool(), scores, torch.tensor(-1e4, dtype=scores.dtype))
        attn = torch.softmax(scores, dim=-1) @ v
        b, h, s, hd = attn.shape
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, h * hd))
        x = x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))
        return x, k, v


class RmsNorm(torch.nn.Module):
    def __init__(self, d: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1 + 0.1 * torch.randn(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat([-t[..., half:], t[..., :half]], dim=-1)


class LlamaBlock(torch.nn.Module):
    def __init__(self, d: int, heads: int, kv_heads: int, hidden: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, d // heads
        self.norm1 = RmsNorm(d)
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.v = torch.nn.Linear(d, kv_heads * self.head_dim, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.norm2 = RmsNorm(d)
        self.gate = torch.nn.Linear(d, hidden, bias=False)
        self.up = torch.nn.Linear(d, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, d, bias=False)

    def repeat_kv(self, t):
        """Each key/value head serves HEADS / KV_HEADS query heads (Hugging Face's repeat_kv)."""
        group = self.heads // self.kv_heads
        if group == 1:
            return t
        b, kvh, length, hd = t.shape
        return t[:, :, None, :, :].expand(b, kvh, group, length, hd).reshape(
            b, kvh * group, length, hd)

    def forward(self, x, cos, sin, mask, past_k, past_v):
        b, s, _ = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        kk, vv = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ kk.transpose(-1, -2) / math.sqrt(self.head_dim) + mask
        attn = torch.softmax(scores, dim=-1) @ vv
        x = x + self.o(attn.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
        h = self.norm2(x)
        x = x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))
        return x, k, v


class Decoder(torch.nn.Module):
    def __init__(self, kind: str, layers: int, d: int, heads: int, kv_heads: int, vocab: int,
                 context: int):
        super().__init__()
        self.kind, self.layers = kind, layers
        self.tokens = torch.nn.Embedding(vocab, d)
        if kind == "gpt2":
            self.positions = torch.nn.Embedding(context, d)
            self.blocks = torch.nn.ModuleList(Gpt2Block(d, heads, context) for _ in range(layers))
            self.norm = torch.nn.LayerNorm(d)
        else:
            self.blocks = torch.nn.ModuleList(
                LlamaBlock(d, heads, kv_heads, 8 * d // 3 // 32 * 32) for _ in range(layers))
            self.norm = RmsNorm(d)
            self.head = torch.nn.Linear(d, vocab, bias=False)
            head_dim = d // heads
            inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
            angles = torch.outer(torch.arange(context).float(), inv)
            self.register_buffer("cos", torch.cat([angles, angles], -1).cos(), persistent=False)
            self.register_buffer("sin", torch.cat([angles, angles], -1).sin(), persistent=False)

    def forward(self, ids, *inputs):
        """gpt2: (ids, *past); llama: (ids, position_ids, *past)."""
        x = self.tokens(ids)
        presents = []
        if self.kind == "gpt2":
            past = inputs
            past_len, seq = past[0].shape[2], ids.shape[1]
            positions = torch.arange(past_len, past_len + seq, dtype=torch.long).unsqueeze(0)
            x = x + self.positions(positions)
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, past[2 * i], past[2 * i + 1])
                presents += [k, v]
            logits = self.norm(x) @ self.tokens.weight.t()
        else:
            position_ids, past = inputs[0], inputs[1:]
            cos = self.cos[position_ids].unsqueeze(1)
            sin = self.sin[position_ids].unsqueeze(1)
            # Query at position p sees the keys at positions <= p.
            cols = torch.arange(past[0].shape[2] + ids.shape[1]).view(1, 1, 1, -1)
            mask = torch.where(cols <= position_ids[:, None, :, None], torch.tensor(0.0),
                               torch.tensor(-1e4))
            for i, block in enumerate(self.blocks):
                x, k, v = block(x, cos, sin, mask, past[2 * i], past[2 * i + 1])
                presents += [k, v]
            logits = self.head(self.norm(x))
        return (logits, *presents)


def build(kind: str, layers: int = 2, d_model: int = 64, heads: int = 4, kv_heads: int = 2,
          vocab: int = 256, context: int = 128, seed: int = 0) -> Decoder:
    """The decoder export() writes, with the same weights for the same arguments."""
    torch.manual_seed(seed)
    return Decoder(kind, layers, d_model, heads, kv_heads if kind == "llama" else heads, vocab,
                   context).eval()


def greedy(model: Decoder, prompt: list, new_tokens: int) -> list:
    """Greedy decoding with the PyTorch module: the prompt, then one token per step over its
    cache (with the positions a Llama block takes), as `kiln generate` runs the export."""
    block = model.blocks[0]
    cache_heads = getattr(block, "kv_heads", block.heads)
    past = [torch.zeros(1, cache_heads, 0, block.head_dim) for _ in range(2 * model.layers)]
    ids, tokens = torch.tensor([prompt]), []
    with torch.no_grad():
        while len(tokens) < new_tokens:
            cached = past[0].shape[2]
            positions = [] if model.kind == "gpt2" else [
                torch.arange(cached, cached + ids.shape[1])[None]]
            logits, *past = model(ids, *positions, *past)
            tokens.append(int(torch.argmax(logits[0, -1])))
            ids = torch.tensor([[tokens[-1]]])
    return tokens


def export(kind: str, path: str, layers: int = 2, d_model: int = 64, heads: int = 4,
           kv_heads: int = 2, vocab: int = 256, context: int = 128, seed: int = 0) -> None:
    model = build(kind, layers, d_model, heads, kv_heads, vocab, context, seed)
    cache_heads = kv_heads if kind == "llama" else heads
    head_dim = d_model // heads
    ids = torch.randint(0, vocab, (1, 3))
    past = [torch.randn(1, cache_heads, 2, head_dim) for _ in range(2 * layers)]
    past_names = [f"past_key_values.{i // 2}.{'key' if i % 2 == 0 else 'value'}"
                  for i in range(2 * layers)]
    present_names = [n.replace("past_key_values", "present") for n in past_names]
    axes = {"input_ids": {1: "seq"}, "logits": {1: "seq"}}
    axes.update({n: {2: "past"} for n in past_names})
    axes.update({n: {2: "total"} for n in present_names})
    inputs, names = (ids,), ["input_ids"]
    if kind == "llama":
        inputs += (torch.arange(2, 5).unsqueeze(0),)
        names += ["position_ids"]
        axes.update({"position_ids": {1: "seq"}})
    with torch.no_grad():
        torch.onnx.export(model, (*inputs, *past), path, input_names=[*names, *past_names],
                          output_names=["logits", *present_names], dynamic_axes=axes,
                          opset_version=17, do_constant_folding=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("kind", choices=["gpt2", "llama"])
    p.add_argument("output")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    export(a.kind, a.output, a.layers, a.d_model, a.heads, a.kv_heads, a.vocab, a.context, a.seed)


if __name__ == "__main__":
    main()
