#!/usr/bin/python3
"""Evaluates the default model as users run it (`ocr parse`) beside Tesseract 5: CER and word F1 on synthetic test
pages and real born-digital pages; prints a Markdown table."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.evaluate [--model models/default] [--data DATA/synth]
#        [--pages 6] [--real 4] [--seed 5] [--sets test,test-unseen] [--json FILE]
# Each page goes through the product: `ocr parse DOC --pages N --stdout` (our renderer at 150 DPI, the bundle's
# line front end, the native decoder). Tesseract (OMP_THREAD_LIMIT=1 --psm 3, eng) reads `ocr render`'s image of
# the same page at the same resolution. Synthetic truth: the generator's Markdown (scored as Markdown for the
# model, and as plain text for both); real truth: the PDF's text layer (pdftotext), plain text for both.
# CER = edit distance / truth length (can exceed 1); word F1 over whitespace-separated words.
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

from ocr_tools.paths import REPO_ROOT as ROOT
from ocr_tools.paths import add_data_option, require_data
from ocr_tools.train.metrics import edit_distance, markdown_to_text, normalise_ws, word_f1

OCR = os.path.join(ROOT, "bin", "ocr.js")
REAL = [  # (pdf, page): born-digital prose pages from Debian documentation
    ("r-doc-pdf--R-lang.pdf", 7),
    ("texlive-lang-spanish--lshort-a4.pdf", 17),  # (page 12, used until 2026-11-30, is blank)
    ("texlive-latex-base-doc--longtable.pdf", 3),
    ("r-doc-pdf--R-lang.pdf", 20),
]


def ocr_page(model, pdf, page, threads):
    t0 = time.time()
    out = subprocess.run(
        [
            "node",
            OCR,
            "parse",
            pdf,
            "--pages",
            str(page),
            "--stdout",
            "--quiet",
            "--model",
            model,
            "--threads",
            str(threads),
        ],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"evaluate: ocr parse {pdf} --pages {page} failed: {out.stderr.strip()}")
    md = out.stdout
    # --stdout marks pages with an HTML comment
    md = "\n".join(l for l in md.splitlines() if not l.startswith("<!-- page "))
    return md.strip(), time.time() - t0


def tesseract_page(pdf, page, tmp):
    out = os.path.join(tmp, f"{os.path.basename(pdf)}-{page}")
    subprocess.run(
        ["node", OCR, "render", pdf, "-o", out, "--dpi", "150", "--pages", str(page)], check=True, capture_output=True
    )
    png = glob.glob(os.path.join(out, "*.png"))[0]
    t0 = time.time()
    text = subprocess.run(
        ["tesseract", png, "-", "--psm", "3", "-l", "eng"],
        capture_output=True,
        env=dict(os.environ, OMP_THREAD_LIMIT="1"),
    ).stdout.decode("utf-8", "replace")
    return normalise_ws(text), time.time() - t0


def score(preds, truths):
    errs = sum(edit_distance(p, t) for p, t in zip(preds, truths))
    chars = sum(len(t) for t in truths)
    f1 = float(np.mean([word_f1(p, t) for p, t in zip(preds, truths)])) if truths else float("nan")
    return errs / max(1, chars), f1


def evaluate(rows, name, items, model, threads, tmp, markdown_truth):
    """items: [(pdf, page, truth)]."""
    preds, secs, tess, tsecs = [], [], [], []
    for pdf, page, _ in items:
        md, s = ocr_page(model, pdf, page, threads)
        preds.append(md)
        secs.append(s)
        t, ts = tesseract_page(pdf, page, tmp)
        tess.append(t)
        tsecs.append(ts)
    truths = [t for _, _, t in items]
    plain_truth = [markdown_to_text(t) if markdown_truth else normalise_ws(t) for t in truths]
    c, f1 = score([markdown_to_text(p) for p in preds], plain_truth)
    tc, tf1 = score(tess, plain_truth)
    row = {
        "set": name,
        "pages": len(items),
        "model_cer": c,
        "model_f1": f1,
        "model_s": float(np.mean(secs)),
        "tess_cer": tc,
        "tess_f1": tf1,
        "tess_s": float(np.mean(tsecs)),
        "example": {"model": preds[0][:300], "truth": truths[0][:300]},
        # per page: where the set's CER comes from (one bad page can dominate a small set)
        "per_page": [
            {
                "pdf": os.path.basename(pdf),
                "page": page,
                "chars": len(t),
                "model_cer": round(edit_distance(markdown_to_text(p), t) / max(1, len(t)), 4),
                "tess_cer": round(edit_distance(q, t) / max(1, len(t)), 4),
            }
            for (pdf, page, _), p, q, t in zip(items, preds, tess, plain_truth)
        ],
    }
    if markdown_truth:
        row["model_md_cer"], _ = score(preds, truths)
    rows.append(row)
    print(json.dumps({k: v for k, v in row.items() if k not in ("example", "per_page")}), file=sys.stderr)
    for r in row["per_page"]:
        print(
            f"  {r['pdf']} p{r['page']}: {r['chars']} chars, model CER {r['model_cer']:.3f}, Tesseract {r['tess_cer']:.3f}",
            file=sys.stderr,
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default=os.path.join(ROOT, "models", "default"))
    add_data_option(
        ap, "--data", "synth", help="synthetic sets: DATA/<set>/doc-*.pdf (needed when --sets is not empty)"
    )
    ap.add_argument(
        "--real-dir",
        default=os.path.join(ROOT, "..", "shared", "data", "real", "debian"),
        help="the real Debian PDFs (default: ../shared/data/real/debian beside the checkout)",
    )
    ap.add_argument("--pages", type=int, default=6, help="synthetic pages per test set")
    ap.add_argument("--real", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--seed", type=int, default=5, help="draw of synthetic pages (5: the table in models/default/README.md)"
    )
    ap.add_argument("--sets", default="test,test-unseen", help="synthetic sets, comma separated (empty: none)")
    args = ap.parse_args()
    if [n for n in args.sets.split(",") if n]:
        require_data(ap, args.data, "--data", "synth")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in [n for n in args.sets.split(",") if n]:
            folder = os.path.join(args.data, name)
            docs = sorted(glob.glob(os.path.join(folder, "doc-*.pdf")))
            pages = []
            for pdf in docs:
                truth = json.load(open(pdf[:-4] + ".json"))
                pages += [(pdf, i + 1, p["markdown"]) for i, p in enumerate(truth["pages"])]
            chosen = random.Random(args.seed).sample(pages, min(args.pages, len(pages)))
            evaluate(rows, f"synthetic {name}", chosen, args.model, args.threads, tmp, markdown_truth=True)
        if args.real:
            items = []
            for pdf, page in REAL[: args.real]:
                path = os.path.join(args.real_dir, pdf)
                truth = subprocess.run(
                    ["pdftotext", "-f", str(page), "-l", str(page), path, "-"], capture_output=True
                ).stdout.decode()
                items.append((path, page, truth))
            evaluate(rows, "real Debian prose (text layer)", items, args.model, args.threads, tmp, markdown_truth=False)
    model_json = json.load(open(os.path.join(args.model, "model.json")))
    tr = model_json.get("training", {})
    print(
        f"model: {tr.get('steps')} steps, {tr.get('train_minutes')} training minutes, {tr.get('tokens_trained')} text tokens trained"
    )
    fmt = lambda v, p=3: "—" if v is None else f"{v:.{p}f}"  # noqa: E731
    print(
        "| set | pages | model CER | model Markdown CER | model word F1 | model s/page | Tesseract CER | Tesseract word F1 | Tesseract s/page |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['set']} | {r['pages']} | {fmt(r['model_cer'])} | {fmt(r.get('model_md_cer'))} | {fmt(r['model_f1'])} | "
            f"{fmt(r['model_s'], 2)} | {fmt(r['tess_cer'])} | {fmt(r['tess_f1'])} | {fmt(r['tess_s'], 2)} |"
        )
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            json.dump({"model": args.model, "training": tr, "rows": rows}, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(args.json + ".tmp", args.json)


if __name__ == "__main__":
    main()
