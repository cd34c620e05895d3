#!/usr/bin/python3
"""Evaluates the default model beside Tesseract 5: CER and word F1 on synthetic test pages/crops and real pages; prints a table."""
# Usage: /usr/bin/python3 scripts/train/evaluate.py [--bundle models/default] [--data /work/data/synth]
#        [--pages 4] [--crops 32] [--real 3] [--json out.json]
# The model reads through the exported bundle's weights (decoder safetensors + the checkpoint's encoder);
# every page is the page mode's view (fit into 928x1280, white padding) of our own renderer's output, and
# Tesseract (OMP_THREAD_LIMIT=1 --psm 3, eng) reads the very same pixels. CER = edit distance / truth length.
# Decoding stops at <PAGE> or at 1.2 x truth length + 50 tokens (a runaway page is cut there, not hidden).
import argparse
import glob
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from PIL import Image

sys.path.insert(0, os.path.dirname(__file__))
from data import SampleMaker, load_split, to_tensor  # noqa: E402
from evaluate_lib import cer, edit_distance, greedy_read, markdown_to_text, normalise_ws, word_f1  # noqa: E402
from train import CKPT, ROOT, build_model, load_ckpt  # noqa: E402

FIT = (928, 1280)
REAL = [  # (pdf, page): born-digital prose pages from Debian documentation
    ("r-doc-pdf--R-lang.pdf", 7),
    ("texlive-lang-spanish--lshort-a4.pdf", 12),
    ("texlive-latex-base-doc--longtable.pdf", 3),
    ("r-doc-pdf--R-lang.pdf", 20),
]


def view(grey):
    """Page pixels (grey, already at the page mode's scale) -> the white-padded 928x1280 view."""
    out = np.full((FIT[1], FIT[0]), 255, dtype=np.uint8)
    h, w = min(grey.shape[0], FIT[1]), min(grey.shape[1], FIT[0])
    y0, x0 = (FIT[1] - h) // 2, (FIT[0] - w) // 2
    out[y0:y0 + h, x0:x0 + w] = grey[:h, :w]
    return out


def tesseract(grey):
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "page.png")
        Image.fromarray(grey).save(p)
        t0 = time.time()
        out = subprocess.run(["tesseract", p, "-", "--psm", "3", "-l", "eng"], capture_output=True,
                             env=dict(os.environ, OMP_THREAD_LIMIT="1")).stdout.decode("utf-8", "replace")
        return out, time.time() - t0


def model_pages(model, views, truths_md):
    preds, secs = [], []
    for v, truth in zip(views, truths_md):
        t0 = time.time()
        pred = greedy_read(model, [to_tensor([v])], [[int(len(truth) * 1.2) + 50]])[0][0]
        secs.append(time.time() - t0)
        preds.append(pred)
    return preds, secs


def score(preds, truths):
    errs = sum(edit_distance(p, t) for p, t in zip(preds, truths))
    chars = sum(len(t) for t in truths)
    f1 = float(np.mean([word_f1(p, t) for p, t in zip(preds, truths)])) if truths else float("nan")
    return errs / max(1, chars), f1


def render_real(pdf, page, tmp):
    """Our renderer at 150 DPI, then fitted into the page mode's size like rasterise.mjs does."""
    out = os.path.join(tmp, f"{os.path.basename(pdf)}-{page}")
    subprocess.run(["node", os.path.join(ROOT, "bin", "ocr.js"), "render", pdf, "-o", out, "--dpi", "150",
                    "--pages", str(page)], check=True, capture_output=True)
    img = Image.open(glob.glob(os.path.join(out, "*.png"))[0]).convert("L")
    f = min(FIT[0] / img.width, FIT[1] / img.height)
    img = img.resize((round(img.width * f), round(img.height * f)), Image.BICUBIC)
    truth = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), pdf, "-"], capture_output=True).stdout.decode()
    return np.array(img), normalise_ws(truth)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ckpt", default=CKPT)
    ap.add_argument("--data", default="/work/data/synth")
    ap.add_argument("--real-dir", default="/work/shared/data/real/debian")
    ap.add_argument("--pages", type=int, default=4, help="synthetic pages per test set")
    ap.add_argument("--crops", type=int, default=32, help="line and block crops per test set")
    ap.add_argument("--real", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = build_model()
    meta = load_ckpt(model, args.ckpt)
    if meta is None:
        sys.exit(f"evaluate: no checkpoint at {args.ckpt}")
    model.eval()
    rows = []

    for name in ("test", "test-unseen"):
        pages = load_split(os.path.join(args.data, name))
        # Crops: what the curriculum trained most (lines, blocks), scored on Markdown.
        for kind in ("line", "block"):
            maker = SampleMaker(pages, seed=99, degrade_p=0.0)
            samples = [maker.draw(kind) for _ in range(args.crops)]
            preds, t0 = [], time.time()
            for i in range(0, len(samples), 16):
                chunk = samples[i:i + 16]
                out = greedy_read(model, [to_tensor([c[0] for c in chunk])], [[int(len(c[1]) * 1.2) + 20 for c in chunk]])
                preds += [o[0] for o in out]
            c, f1 = score(preds, [s[1] for s in samples])
            rows.append({"set": f"synthetic {name}", "unit": f"{kind} crops (n={len(samples)})", "model_cer": c,
                         "model_f1": f1, "model_s": (time.time() - t0) / len(samples), "tess_cer": None,
                         "tess_f1": None, "tess_s": None, "example": (preds[0], samples[0][1])})
        # Whole pages, seeded choice, scored on Markdown (model) and on plain text (model and Tesseract).
        rng = random.Random(5)
        chosen = rng.sample(pages, min(args.pages, len(pages)))
        views = [view(p.pixels()) for p in chosen]
        truths = [p.truth["markdown"] for p in chosen]
        preds, secs = model_pages(model, views, truths)
        md_cer, _ = score(preds, truths)
        plain_pred = [markdown_to_text(p) for p in preds]
        plain_truth = [markdown_to_text(t) for t in truths]
        c, f1 = score(plain_pred, plain_truth)
        tess = [tesseract(v) for v in views]
        tc, tf1 = score([normalise_ws(t[0]) for t in tess], plain_truth)
        rows.append({"set": f"synthetic {name}", "unit": f"pages (n={len(chosen)})", "model_cer": c, "model_md_cer": md_cer,
                     "model_f1": f1, "model_s": float(np.mean(secs)), "tess_cer": tc, "tess_f1": tf1,
                     "tess_s": float(np.mean([t[1] for t in tess])), "example": (preds[0][:200], truths[0][:200])})

    if args.real:
        with tempfile.TemporaryDirectory() as tmp:
            real = [render_real(os.path.join(args.real_dir, pdf), pg, tmp) for pdf, pg in REAL[: args.real]]
        views = [view(r[0]) for r in real]
        truths = [r[1] for r in real]
        preds, secs = model_pages(model, views, truths)
        c, f1 = score([markdown_to_text(p) for p in preds], truths)
        tess = [tesseract(v) for v in views]
        tc, tf1 = score([normalise_ws(t[0]) for t in tess], truths)
        rows.append({"set": "real debian (text layer)", "unit": f"pages (n={len(real)})", "model_cer": c, "model_f1": f1,
                     "model_s": float(np.mean(secs)), "tess_cer": tc, "tess_f1": tf1,
                     "tess_s": float(np.mean([t[1] for t in tess])), "example": (preds[0][:200], truths[0][:200])})

    fmt = lambda v, p=3: "—" if v is None else f"{v:.{p}f}"  # noqa: E731
    print(f"model: {meta.get('steps')} steps, {meta.get('train_seconds', 0) / 60:.1f} training minutes, "
          f"{meta.get('chars')} text tokens trained")
    print("| set | unit | model CER | model word F1 | model s/unit | Tesseract CER | Tesseract word F1 | Tesseract s/page |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['unit']} | {fmt(r['model_cer'])} | {fmt(r['model_f1'])} | {fmt(r['model_s'], 2)} | "
              f"{fmt(r['tess_cer'])} | {fmt(r['tess_f1'])} | {fmt(r['tess_s'], 2)} |")
    for r in rows:
        print(f"example {r['set']} / {r['unit']}: model {r['example'][0][:120]!r} | truth {r['example'][1][:120]!r}",
              file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
