"""A torchvision network exported in memory (torch.onnx.export into a buffer, random weights from a
fixed seed), compiled from the ModelProto and run, against PyTorch's own output."""
import io

import numpy as np
import onnx
import torch
import torchvision

import kiln


def test_resnet18_matches_pytorch():
    torch.manual_seed(0)
    network = torchvision.models.resnet18().eval()
    image = torch.randn(1, 3, 224, 224)
    buffer = io.BytesIO()
    torch.onnx.export(network, image, buffer, input_names=["input"], output_names=["logits"],
                      opset_version=13)
    model = onnx.load_from_string(buffer.getvalue())
    with torch.no_grad():
        expected = network(image).numpy()

    artifact = kiln.compile(model)
    ex = artifact["default"](kiln.cpu())
    assert ex.get_input_info()[0] == {"name": "input", "shape": [1, 3, 224, 224],
                                      "dtype": "float32"}
    (logits,) = ex(input=image)  # a torch tensor goes in through DLPack
    assert logits.shape == (1, 1000) and logits.dtype == np.float32
    error = np.abs(logits - expected).max()
    assert error <= 1e-4 * np.abs(expected).max(), error
    assert int(logits.argmax()) == int(expected.argmax())
