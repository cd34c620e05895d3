#!/usr/bin/python3
"""Exports the trained default model to the bundle of docs/bundle.md: encoder.onnx, model.safetensors, model.json, tokenizer.json."""
# Usage: /usr/bin/python3 scripts/train/export.py [--ckpt models/default/ckpt.pt] [--out models/default]
#        [--golden fixtures/model-default]   (also writes a small input/output pair for the ONNX-vs-torch test)
import argparse
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from model import PATCH  # noqa: E402  (puts scripts/reference on the path)
from deepseek_decoder import save_safetensors  # noqa: E402
from tokenizer import BOS, EOS, IMAGE, PAD, PAGE, PROMPT  # noqa: E402
from train import CKPT, ROOT, build_model, load_ckpt  # noqa: E402

PAGE_MODE = {"size": [928, 1280], "resize": "pad", "grid": [1280 // PATCH, 928 // PATCH]}  # size [W,H], grid [rows,cols]


class EncoderForExport(torch.nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, pixels):
        return self.encoder(pixels)


def model_json(model, meta):
    cfg = model.decoder.cfg.to_dict()
    return {
        "format": "ocr-model/1",
        "name": "default",
        "family": "deepseek-ocr",
        "decoder": cfg,
        "vision": {
            "encoder": "encoder.onnx",
            "mode": "page",
            "modes": {"page": PAGE_MODE},
            "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5],
            # Trained on white page margins: padding with white keeps the view in-distribution.
            "pad_color": [255, 255, 255],
            "row_newline": True, "view_separator": True,
        },
        "tokens": {"bos": BOS, "eos": EOS, "pad": PAD, "image": IMAGE, "page": PAGE},
        "prompts": {"page": "<image>" + PROMPT, "document": "<image>" + PROMPT},
        "layout": "streaming",
        "attention": {"kind": "rswa", "window": model.window, "focal": {"keep": 0.05, "layers": 2, "warmup": 8}},
        "decoding": {"max_tokens_per_page": 6000, "no_repeat_ngram": {"n": 35, "window": 128, "exempt": []}},
        "training": {"steps": meta.get("steps"), "train_minutes": round(meta.get("train_seconds", 0) / 60, 1),
                     "tokens_trained": meta.get("chars"), "data": "synthetic (scripts/synth), see docs in scripts/train"},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ckpt", default=CKPT)
    ap.add_argument("--out", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    ap.add_argument("--golden", default=os.path.join(ROOT, "fixtures", "model-default"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = build_model()
    meta = load_ckpt(model, args.ckpt)
    if meta is None:
        sys.exit(f"export: no checkpoint at {args.ckpt}")
    model.eval()
    os.makedirs(args.out, exist_ok=True)

    enc = EncoderForExport(model.encoder).eval()
    example = torch.zeros(1, 3, 64, 96)
    onnx_path = os.path.join(args.out, "encoder.onnx")
    torch.onnx.export(enc, example, onnx_path + ".tmp", input_names=["pixels"], output_names=["embeddings"],
                      dynamic_axes={"pixels": {0: "n_views", 2: "height", 3: "width"},
                                    "embeddings": {0: "n_views", 1: "rows", 2: "cols"}},
                      opset_version=17, do_constant_folding=True)
    os.replace(onnx_path + ".tmp", onnx_path)

    dtype = torch.float32 if args.dtype == "f32" else torch.bfloat16
    save_safetensors(model.decoder, os.path.join(args.out, "model.safetensors"), dtype)
    model.tok.save(os.path.join(args.out, "tokenizer.json"))
    mj = model_json(model, meta)
    with open(os.path.join(args.out, "model.json.tmp"), "w") as f:
        json.dump(mj, f, indent=2)
        f.write("\n")
    os.replace(os.path.join(args.out, "model.json.tmp"), os.path.join(args.out, "model.json"))

    if args.golden:
        # A small deterministic view: stripes and a text-like pattern, 2 views of 48x80 (3x5 tokens).
        os.makedirs(args.golden, exist_ok=True)
        g = torch.Generator().manual_seed(7)
        pixels = (torch.rand(2, 1, 48, 80, generator=g) > 0.8).float().mul(-2).add(1).expand(-1, 3, -1, -1).contiguous()
        with torch.no_grad():
            out = model.encoder(pixels)
        for name, t in (("pixels", pixels), ("embeddings", out)):
            arr = t.detach().numpy().astype("<f4")
            with open(os.path.join(args.golden, f"encoder-{name}.f32"), "wb") as f:
                f.write(arr.tobytes())
        with open(os.path.join(args.golden, "encoder-golden.json"), "w") as f:
            json.dump({"pixels": list(pixels.shape), "embeddings": list(out.shape),
                       "note": "torch output of models/default/encoder.onnx's source module for this input"}, f)
            f.write("\n")
    sizes = {f: os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out)}
    print(json.dumps({"exported": args.out, "bytes": sizes, "steps": meta.get("steps")}))


if __name__ == "__main__":
    main()
