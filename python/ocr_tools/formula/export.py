"""Exports a trained formula reader (train.py) into a bundle: formula-encoder.onnx (pixels → visual memory),
formula-decoder.onnx (memory and the tokens so far → log-probabilities of the next token) and formula.json (the
vocabulary and input geometry src/vision/formula.ts reads them with).

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.formula.export CHECKPOINT.pt BUNDLE_DIR

Checks that onnxruntime is not needed here: the export is compared with torch on a sample by the Node test
(test/vision/formula.test.ts) and by the bench.
"""
import json
import os
import sys

import torch
import torch.nn as nn

from ocr_tools.formula.vocab import BOS, EOS, HEIGHT, PAD, TEXT, VOCAB
from ocr_tools.formula.train import MAX_LEN, MAX_WIDTH, Reader


class Encoder(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, pixels):
        return self.m.encode(pixels)


class Step(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, memory, tokens):
        return torch.log_softmax(self.m.decode(memory, tokens)[:, -1], -1)


def main():
    ckpt, out = sys.argv[1], sys.argv[2]
    m = Reader()
    m.load_state_dict(torch.load(ckpt))
    m.eval()
    # the encoder layer's fused inference path does not export; in training mode it takes the reference path,
    # the same arithmetic here (the reader has no dropout)
    m.enc.train()
    m.dec.train()
    pixels = torch.rand(1, 1, HEIGHT, 200)
    with torch.no_grad():
        memory = m.encode(pixels)
        tokens = torch.tensor([[VOCAB.index(BOS), 5, 6]])
        torch.onnx.export(
            Encoder(m),
            (pixels,),
            os.path.join(out, "formula-encoder.onnx"),
            input_names=["pixels"],
            output_names=["memory"],
            dynamic_axes={"pixels": {3: "width"}, "memory": {1: "tokens"}},
            opset_version=17,
            training=torch.onnx.TrainingMode.PRESERVE,
        )
        torch.onnx.export(
            Step(m),
            (memory, tokens),
            os.path.join(out, "formula-decoder.onnx"),
            input_names=["memory", "tokens"],
            output_names=["logprobs"],
            dynamic_axes={"memory": {1: "tokens"}, "tokens": {1: "length"}},
            opset_version=17,
            training=torch.onnx.TrainingMode.PRESERVE,
        )
    cfg = {
        "encoder": "formula-encoder.onnx",
        "decoder": "formula-decoder.onnx",
        "height": HEIGHT,
        "max_width": MAX_WIDTH,
        "max_tokens": MAX_LEN,
        "line_pitch": 24,
        "vocab": VOCAB,
        "bos": VOCAB.index(BOS),
        "eos": VOCAB.index(EOS),
        "pad": VOCAB.index(PAD),
        "text": VOCAB.index(TEXT),
    }
    with open(os.path.join(out, "formula.json"), "w") as fh:
        json.dump(cfg, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
