#!/usr/bin/python3
"""Packs extracted training data into one small file a GPU machine can take along (the device tool carries at most
64 MiB, the extracted sets are ~700 MB): each slot's 120 recogniser features become their first K principal
components quantised to 4 bits (deflated in the .npz), the model learns on those, and the exported encoder applies
the same projection to the raw features (LineEncoder.pca_*), so inference sees exactly what training saw up to the
quantisation."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.pack --data DATA/synth --out pack.npz [--k 64]
# (--data defaults to $OCR_DATA/synth when OCR_DATA is set)
# Units that cannot be aligned (target None) keep their slot count (window offsets need it) but not their slots.
import argparse
import json
import lzma
import os
import time

import numpy as np

from ocr_tools.paths import add_data_option, require_data
from ocr_tools.train.data import FEATURES, load_split

RECOGNISER = 120  # features 0..119 come from the recogniser; 120..123 are run features kept exactly


def fit_pca(docs, k, every=7, fixed=None):
    """The first k principal components of the recogniser features (or `fixed` = (mean, basis)), and 4-bit
    quantisation ranges of the codes."""
    rows = [u["feats"][:, :RECOGNISER] for d in docs[::every] for p in d for u in p if len(u["ids"])]
    x = np.concatenate(rows).astype(np.float64)
    if fixed is None:
        mean = x.mean(0)
        w, v = np.linalg.eigh(np.cov((x - mean).T))
        order = np.argsort(w)[::-1][:k]
        basis = v[:, order]
        explained = float(w[order].sum() / w.sum())
    else:
        mean, basis = (a.astype(np.float64) for a in fixed)
        explained = float((((x - mean) @ basis) ** 2).sum() / ((x - mean) ** 2).sum())
    codes = (x - mean) @ basis
    lo, hi = np.quantile(codes, 0.001, axis=0), np.quantile(codes, 0.999, axis=0)
    step = (hi - lo) / 15.0
    q = np.clip(np.round((codes - lo) / step), 0, 15)
    back = (q * step + lo) @ basis.T + mean
    rel = float(((back - x) ** 2).sum() / ((x - mean) ** 2).sum())
    return (
        mean.astype(np.float32),
        basis.astype(np.float32),
        lo.astype(np.float32),
        step.astype(np.float32),
        explained,
        rel,
    )


def pack_split(docs, mean, basis, lo, step):
    doc_of, page_of, start, count, has, geometry, targets = [], [], [], [], [], [], []
    ids, codes, runs, peaks = [], [], [], []
    at = 0
    for d, doc in enumerate(docs):
        for p, page in enumerate(doc):
            for u in page:
                n = len(u["ids"])
                doc_of.append(d)
                page_of.append(p)
                count.append(n)
                geometry.append(u["geometry"])
                targets.append(u["target"])
                keep = u["target"] is not None
                has.append(keep)
                start.append(at)
                if keep and n:
                    f = u["feats"]
                    c = (f[:, :RECOGNISER] - mean) @ basis
                    q = np.clip(np.round((c - lo) / step), 0, 15).astype(np.uint8)
                    codes.append(q)
                    ids.append(u["ids"].astype(np.int16))
                    runs.append(np.round(f[:, 120:122] * 8).astype(np.uint8))  # blank steps /8 and run length /8
                    peaks.append(f[:, 122:124].astype(np.float16))  # peak probability, position in line
                    at += n
    q = np.concatenate(codes)
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)
    return {
        "doc": np.array(doc_of, np.int32),
        "page": np.array(page_of, np.int16),
        "start": np.array(start, np.int64),
        "count": np.array(count, np.int32),
        "has": np.array(has, bool),
        "geometry": np.array(geometry, np.float16),
        "ids": np.concatenate(ids),
        "codes": packed,
        "runs": np.concatenate(runs),
        "peaks": np.concatenate(peaks),
        "targets": np.frombuffer(lzma.compress(json.dumps(targets, ensure_ascii=False).encode()), np.uint8),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_data_option(ap, "--data", "synth", help="extracted synthetic pages: DATA/{train,val}/doc-*.lines.json")
    ap.add_argument("--out", required=True, help="the .npz file to write")
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument(
        "--basis-from",
        default=None,
        metavar="CKPT",
        help="take the projection from a checkpoint (to resume its training from a new pack) instead of fitting it",
    )
    args = ap.parse_args()
    require_data(ap, args.data, "--data", "synth")
    t = time.time()
    train = load_split(os.path.join(args.data, "train"), args.limit)
    val = load_split(os.path.join(args.data, "val"))
    fixed = None
    if args.basis_from:
        import torch

        state = torch.load(args.basis_from, map_location="cpu", weights_only=False)["state_dict"]
        fixed = (state["encoder.pca_mean"].float().numpy(), state["encoder.pca_basis"].float().numpy())
    mean, basis, lo, step, explained, rel = fit_pca(train, args.k if fixed is None else fixed[1].shape[1], fixed=fixed)
    out = {"pca_mean": mean, "pca_basis": basis, "pca_lo": lo, "pca_step": step}
    for name, docs in (("train", train), ("val", val)):
        for key, arr in pack_split(docs, mean, basis, lo, step).items():
            out[f"{name}_{key}"] = arr
    np.savez_compressed(args.out + ".tmp.npz", **out)  # the 4-bit codes still deflate by a fifth
    os.replace(args.out + ".tmp.npz", args.out)
    print(
        json.dumps(
            {
                "out": args.out,
                "bytes": os.path.getsize(args.out),
                "k": args.k,
                "variance_kept": round(explained, 4),
                "relative_error_after_4bit": round(rel, 4),
                "train_docs": len(train),
                "val_docs": len(val),
                "train_slots": int(out["train_ids"].shape[0]),
                "seconds": round(time.time() - t),
            }
        )
    )


if __name__ == "__main__":
    main()
