"""Exports the torchvision classifiers kiln is tested on to ONNX (opset 13, batch 1, 3x224x224,
random weights from a fixed seed), so tests never download weights.

Batch-norm statistics are calibrated on a few random batches first: with freshly initialised
statistics (mean 0, variance 1) some networks' activations shrink layer by layer (MobileNetV2's
logits end near 1e-9), which would make the comparison with ONNX Runtime a weak test."""
import argparse
import os

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
}


def export(name: str, out_dir: str) -> str:
    path = os.path.join(out_dir, f"{name}.onnx")
    if os.path.exists(path):
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
    torch.onnx.export(model, x, tmp, opset_version=13, input_names=["input"],
                      output_names=["output"])
    os.replace(tmp, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("models", nargs="*", default=sorted(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.models:
        print(export(name, args.out_dir))


if __name__ == "__main__":
    main()
