#!/usr/bin/python3
"""Prints the training curve from training/default/train-log.jsonl: time, steps, tokens/s, loss, validation CER."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.curve [LOG]
import json
import os
import sys

from ocr_tools.paths import REPO_ROOT as ROOT


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "training", "default", "train-log.jsonl")
    recs = [json.loads(l) for l in open(path) if l.strip()]
    steps = [r for r in recs if "loss" in r]
    print(
        "| train min | steps | text tokens trained | tokens/s (last window) | train loss (last 20) | val CER | recogniser CER |"
    )
    print("|---|---|---|---|---|---|---|")
    last_t, last_tok, tokens = 0.0, 0, 0
    for r in recs:
        if "loss" in r:
            tokens += r["tokens"]
            continue
        if "interpolated" in r:  # ocr_tools.train.interpolate's record: the weights shipped are a mix
            print(f"| weights interpolated: {json.dumps(r['interpolated'])} |||||||")
            continue
        val = r.get("val") or r.get("final_val")
        if val is None or "step" not in r:
            continue
        window = [s for s in steps if s["step"] <= r["step"]][-20:]
        loss = sum(s["loss"] for s in window) / max(1, len(window))
        rate = (tokens - last_tok) / max(1e-9, (r["t_min"] - last_t) * 60)
        # The checkpoint's own count: steps replayed after a resume are counted once.
        tokens_kept = r.get("chars_trained", tokens)
        # older runs logged the CER of lines and of blocks; later ones the decoder's and the recogniser's
        cer, other = (
            (val["line"], val["block"]) if "line" in val else (val["cer"], val.get("recogniser_cer", float("nan")))
        )
        print(f"| {r['t_min']:.1f} | {r['step']} | {tokens_kept} | {rate:.0f} | {loss:.3f} | {cer:.3f} | {other:.3f} |")
        last_t, last_tok = r["t_min"], tokens
    if steps:
        tail = steps[-20:]
        print(
            f"\nlast step {steps[-1]['step']} at {steps[-1]['t_min']:.1f} min, loss (last 20) "
            f"{sum(s['loss'] for s in tail) / len(tail):.3f}, {tokens} text tokens"
        )


if __name__ == "__main__":
    main()
