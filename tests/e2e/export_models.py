"""Exports the networks kiln is tested on to ONNX (opset 13, batch 1, random weights from a fixed
seed), so tests never download weights: torchvision classifiers (3x224x224 images) and a
BERT-style encoder (torch.nn.TransformerEncoder: 4 layers, d=256, 4 heads, GELU, sequence 128,
int64 token ids through an embedding); and a recurrent network written as a TorchScript loop
(exported as an ONNX Loop over the time steps, with a data-dependent If in its body).

Batch-norm statistics are calibrated on a few random batches first: with freshly initialised
statistics (mean 0, variance 1) some networks' activations shrink layer by layer (MobileNetV2's
logits end near 1e-9), which would make the comparison with ONNX Runtime a weak test."""
import argparse
import os

import numpy as np
import torch
import torchvision

VOCAB = 30522
SEQ = 128


class BertEncoder(torch.nn.Module):
    """Token and learned position embeddings, LayerNorm, then a TransformerEncoder."""

    def __init__(self, d: int = 256, heads: int = 4, layers: int = 4):
        super().__init__()
        self.tokens = torch.nn.Embedding(VOCAB, d)
        self.positions = torch.nn.Parameter(torch.randn(1, SEQ, d) * 0.02)
        self.norm = torch.nn.LayerNorm(d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)

    def forward(self, ids):
        return self.encoder(self.norm(self.tokens(ids) + self.positions))


class ScriptedRecurrent(torch.nn.Module):
    """h_t = tanh(W x_t + U h_{t-1}), halved when its sum is positive, else shifted; a linear head
    on the last state. Scripted, so the time loop and the branch stay control flow in ONNX."""

    def __init__(self, d_in: int = 32, d: int = 64, d_out: int = 10):
        super().__init__()
        self.d = d
        self.inp = torch.nn.Linear(d_in, d)
        self.rec = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, d_out)

    def forward(self, x):
        h = torch.zeros(x.size(1), self.d)
        for t in range(x.size(0)):
            h = torch.tanh(self.inp(x[t]) + self.rec(h))
            if bool(h.sum() > 0):
                h = h * 0.5
            else:
                h = h + 0.25
        return self.out(h)


MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
    "bert_encoder": BertEncoder,
}

# The input each model takes: name, shape, dtype.
INPUTS = {name: ("input", (1, 3, 224, 224), "float32") for name in MODELS}
INPUTS["bert_encoder"] = ("input_ids", (1, SEQ), "int64")
# Networks that only the correctness tests use (not the speed comparison in bench/models.py).
TEST_ONLY = {"scripted_recurrent": ScriptedRecurrent}
INPUTS["scripted_recurrent"] = ("input", (12, 4, 32), "float32")


def model_input(model: str, rng) -> tuple:
    """The model's input name and a random value for it (token ids below VOCAB, or N(0, 1))."""
    name, shape, dtype = INPUTS[model]
    if dtype == "int64":
        return name, rng.integers(0, VOCAB, size=shape, dtype=np.int64)
    return name, rng.standard_normal(shape, dtype=np.float32)


def export_bert(path: str) -> None:
    torch.manual_seed(0)
    model = BertEncoder().eval()
    ids = torch.randint(0, VOCAB, (1, SEQ), dtype=torch.int64)
    tmp = path + ".tmp"
    torch.onnx.export(model, ids, tmp, opset_version=13, input_names=["input_ids"],
                      output_names=["output"])
    os.replace(tmp, path)


def export_scripted(name: str, path: str) -> None:
    torch.manual_seed(0)
    model = torch.jit.script(TEST_ONLY[name]().eval())
    _, shape, _ = INPUTS[name]
    tmp = path + ".tmp"
    torch.onnx.export(model, (torch.randn(*shape),), tmp, opset_version=16, input_names=["input"],
                      output_names=["output"])
    os.replace(tmp, path)


def export(name: str, out_dir: str, free_batch: bool = False) -> str:
    """Exports NAME to OUT_DIR (once); with FREE_BATCH, to NAME.batch.onnx with its batch dim named
    'batch' (torch's dynamic_axes), as models served with a dynamic batch are exported."""
    path = os.path.join(out_dir, f"{name}.batch.onnx" if free_batch else f"{name}.onnx")
    if os.path.exists(path):
        return path
    if name in TEST_ONLY:
        export_scripted(name, path)
        return path
    if name == "bert_encoder":
        export_bert(path)
        return path
    torch.manual_seed(0)
    model = MODELS[name](weights=None)
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(4, 3, 224, 224))
    model.eval()
    x = torch.randn(1, 3, 224, 224)
    tmp = path + ".tmp"
    axes = {"input": {0: "batch"}, "output": {0: "batch"}} if free_batch else None
    torch.onnx.export(model, x, tmp, opset_version=13, input_names=["input"],
                      output_names=["output"], dynamic_axes=axes)
    os.replace(tmp, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--free-batch", action="store_true",
                        help="name the batch dim 'batch' (to NAME.batch.onnx)")
    parser.add_argument("models", nargs="*", default=sorted(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.models:
        print(export(name, args.out_dir, args.free_batch))


if __name__ == "__main__":
    main()
