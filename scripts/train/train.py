#!/usr/bin/python3
"""Trains the default model on synthetic crops with a time-based curriculum; resumable from a weights-only checkpoint."""
# Usage: /usr/bin/python3 scripts/train/train.py --data /work/data/synth --budget-min 100 [--minutes 60]
# The schedule (learning rate, curriculum stage) is a function of the total training time spent so far,
# stored in the checkpoint, so a run stopped and resumed on another machine continues where it was.
# Optimizer state is not kept (the checkpoint stays small); it restarts with a short warm-up.
import argparse
import json
import math
import os
import random
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
from data import SampleMaker, load_split, to_tensor  # noqa: E402
from model import OcrModel, default_decoder_config  # noqa: E402
from tokenizer import CharTokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CKPT = os.path.join(ROOT, "models", "default", "ckpt.pt")

# (fraction of the budget where the stage starts, {kind: probability}, max visual tokens+text per batch)
CURRICULUM = [
    (0.0, {"line": 0.85, "block": 0.15}),
    (0.3, {"line": 0.35, "block": 0.35, "region": 0.3}),
    (0.6, {"line": 0.15, "block": 0.25, "region": 0.4, "multi": 0.2}),
]
TOKENS_PER_BATCH = 4200


def stage_at(frac, val_line_cer):
    """Time-based stages, but no stage past lines until validation lines read (CER < 0.3): blocks and
    pages teach nothing to a model that cannot yet align text with its visual tokens."""
    if val_line_cer is None or val_line_cer > 0.3:
        return CURRICULUM[0][1]
    return [s for s in CURRICULUM if frac >= s[0]][-1][1]


def lr_at(frac, step_since_start, base):
    warm = min(1.0, (step_since_start + 1) / 30)
    return base * warm * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0))))


def make_batch(maker, kind, tok, rng):
    """Returns samples [(pixels [P,3,H,W], [ids per page])] of one kind, sized to about TOKENS_PER_BATCH."""
    samples, total = [], 0
    line_h = 32 if rng.random() < 0.85 else 48  # one window height per line batch: no padded rows
    line_w = rng.choice([192, 320, 448, 576, 768])  # and lines of similar width, so little is padding
    while total < TOKENS_PER_BATCH and len(samples) < max(48, TOKENS_PER_BATCH // 80):
        if kind == "multi":
            n_pages = rng.choice([2, 3])
            sub = rng.choice(["line", "block", "region"])
            crops = [maker.draw(sub) for _ in range(n_pages)]
        else:
            if kind == "line":
                crops = [maker.draw("line", want_h=line_h, width_range=(line_w * 0.55, line_w))]
            else:
                crops = [maker.draw(kind)]
        arrays = [c[0] for c in crops]
        ids = [tok.encode(c[1]) for c in crops]
        if sum(len(i) for i in ids) > 1400:
            continue
        samples.append((arrays, ids))
        H = max(a.shape[0] for s in samples for a in s[0])
        W = max(a.shape[1] for s in samples for a in s[0])
        n_vis = (H // 16) * (W // 16 + 1) + 1
        total = sum(len(s[0]) * n_vis + sum(len(i) + 1 for i in s[1]) for s in samples)
    H = max(a.shape[0] for s in samples for a in s[0])
    W = max(a.shape[1] for s in samples for a in s[0])
    return [(to_tensor(arrays, W, H), ids) for arrays, ids in samples]


def save_ckpt(model, meta, path=CKPT):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    state = {k: (v.detach().cpu().to(torch.bfloat16) if v.is_floating_point() else v.cpu())
             for k, v in model.state_dict().items()}
    torch.save({"state_dict": state, "meta": meta}, path + ".tmp")
    os.replace(path + ".tmp", path)


def load_ckpt(model, path=CKPT):
    if not os.path.exists(path):
        return None
    ck = torch.load(path, map_location="cpu")
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in ck["state_dict"].items()})
    return ck["meta"]


def build_model():
    tok = CharTokenizer()
    return OcrModel(default_decoder_config(tok.vocab_size))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="/work/data/synth")
    ap.add_argument("--budget-min", type=float, default=100.0, help="total training minutes the schedule spans")
    ap.add_argument("--minutes", type=float, default=1e9, help="stop this session after this many minutes")
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--ckpt-every-min", type=float, default=4.0)
    ap.add_argument("--val-every-min", type=float, default=8.0)
    ap.add_argument("--threads", type=int, default=1, help="1 is faster than 2 when other jobs share the cores")
    ap.add_argument("--log", default=os.path.join(ROOT, "models", "default", "train-log.jsonl"))
    ap.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    ap.add_argument("--ckpt", default=CKPT, help="weights-only checkpoint to resume from and save to")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda when a GPU is lent (same schedule, bigger batches)")
    ap.add_argument("--tokens-per-batch", type=int, default=4200)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    # oneDNN's convolution backward (torch 1.13 on this CPU) intermittently returns non-finite weight
    # gradients for the stem (half of the steps in one run); the plain path is ~25% slower but clean.
    torch.backends.mkldnn.enabled = False
    torch.manual_seed(0)

    globals()["TOKENS_PER_BATCH"] = args.tokens_per_batch
    model = build_model()
    meta = None if args.fresh else load_ckpt(model, args.ckpt)
    model.to(args.device)
    meta = meta or {"train_seconds": 0.0, "steps": 0, "chars": 0, "sessions": 0}
    meta["sessions"] += 1
    print(f"params: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M, resumed at "
          f"{meta['train_seconds'] / 60:.1f} min, {meta['steps']} steps", file=sys.stderr)

    train_pages = load_split(os.path.join(args.data, "train"))
    val_pages = load_split(os.path.join(args.data, "val"))
    print(f"train pages {len(train_pages)}, val pages {len(val_pages)}", file=sys.stderr)
    rng = random.Random(meta["steps"] + 1000 * meta["sessions"])
    maker = SampleMaker(train_pages, seed=rng.randrange(1 << 30))
    from evaluate_lib import val_cer  # late import: keeps the trainer usable when evaluation code changes

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    session_start = time.time()
    last_ckpt = last_val = time.time()
    step_in_session = 0
    budget_s = args.budget_min * 60
    log = open(args.log, "a")
    tok = model.tok
    while True:
        frac = meta["train_seconds"] / budget_s
        if frac >= 1.0 or time.time() - session_start > args.minutes * 60:
            break
        t0 = time.time()
        mix = stage_at(frac, meta.get("val_line_cer"))
        kind = rng.choices(list(mix), weights=list(mix.values()))[0]
        batch = make_batch(maker, kind, tok, rng)
        t_data = time.time() - t0
        for g in opt.param_groups:
            g["lr"] = lr_at(frac, step_in_session, args.lr)
        model.train()
        ctc_w = 0.5 if kind == "line" and frac < 0.6 else 0.0
        loss, n_tok, ce, ctc = model.forward_batch(batch, ctc_w)
        opt.zero_grad(set_to_none=True)
        skipped = not torch.isfinite(loss)
        if not skipped:
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            skipped = not torch.isfinite(gnorm)
            if not skipped:
                opt.step()
        if skipped:
            print(f"step {meta['steps'] + 1}: non-finite loss or gradient on a {kind} batch; update skipped", file=sys.stderr)
        dt = time.time() - t0
        meta["train_seconds"] += dt
        meta["steps"] += 1
        meta["chars"] += n_tok
        step_in_session += 1
        rec = {"step": meta["steps"], "t_min": round(meta["train_seconds"] / 60, 3), "kind": kind,
               "loss": round(ce, 4), "ctc": None if ctc is None else round(ctc, 3), "tokens": n_tok, "batch": len(batch), "sec": round(dt, 2),
               "data_sec": round(t_data, 2), "lr": round(opt.param_groups[0]["lr"], 6)}
        if meta["steps"] % 10 == 0:
            print(json.dumps(rec), file=sys.stderr)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        if time.time() - last_ckpt > args.ckpt_every_min * 60:
            save_ckpt(model, meta, args.ckpt)
            last_ckpt = time.time()
        if time.time() - last_val > args.val_every_min * 60:
            tv = time.time()
            model.cpu()  # the cached greedy decoder runs on the CPU; parameters keep their identity
            cer = val_cer(model, val_pages, n_lines=24, n_blocks=6)
            model.to(args.device)
            meta["val_line_cer"] = cer["line"]
            rec = {"step": meta["steps"], "t_min": round(meta["train_seconds"] / 60, 3), "val": cer,
                   "chars_trained": meta["chars"], "val_sec": round(time.time() - tv, 1)}
            print(json.dumps(rec), file=sys.stderr)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            last_val = time.time()
    save_ckpt(model, meta, args.ckpt)
    print("saved", args.ckpt, file=sys.stderr)


if __name__ == "__main__":
    main()
