#!/usr/bin/python3
"""Trains the line-unit default model on extracted synthetic pages; resumable from a weights-only checkpoint."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.train --data DATA/synth --budget-min 60 [--minutes N]
# (--data defaults to $OCR_DATA/synth when OCR_DATA is set)
# Data: DIR/{train,val}/doc-*.lines.json from scripts/train/extract-lines.mjs (the product's own front end).
# A sample is a window of consecutive well-aligned lines of one page, placed at the positions the document had
# reached there (the native decoder's positions keep growing through a document). The learning-rate schedule is a
# function of the training time stored in the checkpoint, so a run resumed elsewhere continues where it was.
import argparse
import json
import math
import os
import random
import shutil
import sys
import time

import numpy as np
import torch

from ocr_tools.paths import REPO_ROOT as ROOT
from ocr_tools.paths import add_data_option, require_data
from ocr_tools.train.data import load_pack, load_split
from ocr_tools.train.metrics import cer
from ocr_tools.train.model import ARCHS, LineOcrModel, bucket, decoder_config
from ocr_tools.train.tokenizer import ADDED, ADDED_FROM, CharTokenizer

CKPT = os.path.join(ROOT, "training", "default", "ckpt.pt")


def unit_cost(u):
    return bucket(len(u["ids"])) + 4 + len(u["target"]) + 1


def windows(docs, max_units):
    """All (doc, page, start, end) windows of consecutive good units, at most max_units long, with the
    number of sequence positions the page's earlier units used (the window's position offset)."""
    out = []
    for d, doc in enumerate(docs):
        for p, page in enumerate(doc):
            used, offsets = 0, []
            for u in page:
                offsets.append(used)
                used += bucket(len(u["ids"])) + 4 + (len(u["target"]) + 1 if u["target"] is not None else 40)
            i = 0
            while i < len(page):
                if page[i]["target"] is None:
                    i += 1
                    continue
                j = i
                while j < len(page) and j - i < max_units and page[j]["target"] is not None:
                    j += 1
                out.append((d, p, i, j, offsets[i]))
                i = j
    return out


def make_batch(docs, wins, rng, budget):
    """Samples of similar length (one target length per batch, so little of the batch is padding): a window
    grows from a random good line until it reaches the target or the run of good lines ends."""
    target = rng.choice((256, 512, 768))
    samples, total = [], 0
    while total < budget:
        d, p, i, j, off = rng.choice(wins)
        a = rng.randrange(i, j)
        page = docs[d][p]
        b, cost = a, 0
        while b < j and cost < target:
            cost += unit_cost(page[b])
            b += 1
        if cost < target // 2 and rng.random() < 0.7:
            continue
        page_offset = 0 if p == 0 and rng.random() < 0.5 else rng.randrange(0, 8000)
        samples.append(([augment(u, rng) for u in page[a:b]], off + page_offset + sum(unit_cost(u) for u in page[i:a])))
        total += max(cost, target) + 20
    return samples


RUN_FEATURES = slice(-4, -2)  # the last four features: blank steps before the slot, its run length (/8), peak, position


def augment(unit, rng, p_replace=0.05, p_drop=0.03, p_stretch=0.5, stretch=1.25):
    """Recogniser noise, so the decoder reads the evidence instead of trusting one symbol per character:
    a few slots get a random class (their features still show the glyph), a few disappear. Half the lines are
    stretched or squeezed (run lengths and gaps scaled by one factor up to `stretch`): a wider typeface gives
    longer runs, which must not read as a doubled letter ("Technicallly") or a word gap."""
    n = len(unit["ids"])
    if n == 0:
        return unit
    keep = np.array([rng.random() >= p_drop for _ in range(n)], dtype=bool)
    if not keep.any():
        keep[0] = True
    ids = unit["ids"][keep].copy()
    for k in range(len(ids)):
        if rng.random() < p_replace:
            ids[k] = rng.randrange(1, 6625)
    feats = unit["feats"][keep]
    if rng.random() < p_stretch:
        feats = feats.copy()
        feats[:, RUN_FEATURES] *= math.exp(rng.uniform(-math.log(stretch), math.log(stretch)))
    return dict(unit, ids=ids, feats=feats)


def save_ckpt(model, meta, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # weights in bf16 (small enough for git); the fixed feature projection stays exact
    state = {
        k: (v.detach().cpu().to(torch.bfloat16) if v.is_floating_point() and ".pca_" not in k else v.detach().cpu())
        for k, v in model.state_dict().items()
    }
    torch.save({"state_dict": state, "meta": meta, "kind": "lines"}, path + ".tmp")
    os.replace(path + ".tmp", path)


def grow_vocabulary(model, state):
    """A checkpoint trained before letters were added to the vocabulary (tokenizer.ADDED) has fewer rows of
    token embeddings and output weights than the model: its rows keep their ids, and each added letter starts
    from the row of the letter it looks like (tokenizer.ADDED_FROM)."""
    tok = CharTokenizer()
    own = model.state_dict()
    for key in ("decoder.model.embed_tokens.weight", "decoder.lm_head.weight"):
        if key not in state or key not in own or state[key].shape == own[key].shape:
            continue
        old, grown = state[key], own[key].clone()
        first = tok.ids[ADDED[0]]
        if old.shape[1:] != grown.shape[1:] or old.shape[0] < first or old.shape[0] > grown.shape[0]:
            raise SystemExit(f"{key}: {tuple(old.shape)} in the checkpoint, {tuple(grown.shape)} in the model")
        grown[:first] = old[:first]
        for ch in ADDED:
            grown[tok.ids[ch]] = old[tok.ids[ADDED_FROM[ch]]]
        state[key] = grown


def load_ckpt(model, path):
    if not os.path.exists(path):
        return None
    ck = torch.load(path, map_location="cpu", weights_only=False)
    if ck.get("kind") != "lines":
        return None
    state = {k: v.float() if v.is_floating_point() else v for k, v in ck["state_dict"].items()}
    grow_vocabulary(model, state)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected:
        raise SystemExit(f"{path}: unexpected weights {unexpected}")
    if missing:
        print(f"{path}: new weights start from their initialisation: {missing}", file=sys.stderr)
    return ck["meta"]


def build_model(arch=None):
    """arch: ARCHS entry (None: the small CPU model every checkpoint before the GPU run was)."""
    return LineOcrModel(decoder_config(CharTokenizer().vocab_size, arch), encoder=arch["encoder"] if arch else None)


def model_from_ckpt(path):
    """(model, meta) of a checkpoint, built in the architecture its meta records; (None, None) if there is none."""
    if not os.path.exists(path):
        return None, None
    meta = torch.load(path, map_location="cpu", weights_only=False).get("meta") or {}
    model = build_model(meta.get("arch"))
    return model, load_ckpt(model, path)


def validate(model, docs, wins, n=6, seed=0):
    """Greedy CER over n validation windows of up to 3 lines (concatenated text), and the recogniser's own."""
    rng = random.Random(seed)
    model.eval()
    errs, base, chars = 0.0, 0.0, 0
    for _ in range(n):
        d, p, i, j, off = rng.choice(wins)
        units = docs[d][p][i : min(j, i + 2)]
        got = "".join(model.read_units(units, offset=off))
        want = "".join(u["target"] for u in units)
        errs += cer(got, want) * len(want)
        if all(u["text"] is not None for u in units):  # packed data keep no recogniser text
            base += cer(" ".join(u["text"] for u in units), want.replace("\n", " ").strip()) * len(want)
        chars += len(want)
    model.train()
    return {
        "cer": round(errs / max(1, chars), 4),
        "recogniser_cer": round(base / max(1, chars), 4),
        "chars": chars,
        "sample": got[:120],
    }


class Batches(torch.utils.data.IterableDataset):
    """Endless collated training batches; each DataLoader worker draws from its own random stream."""

    def __init__(self, model, docs, wins, seed, budget):
        self.model, self.docs, self.wins, self.seed, self.budget = model, docs, wins, seed, budget

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = random.Random(self.seed * 1000 + (info.id if info else 0))
        while True:
            yield self.model.collate(make_batch(self.docs, self.wins, rng, self.budget))


def cpu_copy(model):
    """A float32 copy on the CPU for greedy validation (the KV-cached reader builds its tensors on the CPU)."""
    m = build_model(getattr(model, "arch", None))
    m.load_state_dict(
        {k: v.detach().float().cpu() if v.is_floating_point() else v.cpu() for k, v in model.state_dict().items()}
    )
    return m


def trainable_parameters(model, freeze_encoder=False):
    """The parameters the optimiser updates: all of them, or with `freeze_encoder` the decoder's only (the line
    encoder then keeps its weights exactly: it is left out of the optimiser, so weight decay cannot move it either)."""
    if freeze_encoder:
        model.encoder.requires_grad_(False)
    return [p for p in model.parameters() if p.requires_grad]


def learning_rate(peak, step, warmup, done, cycle):
    """Linear warm-up over `warmup` steps, then cosine from `peak` down to 5 % of it as `done` seconds of training
    reach `cycle` seconds."""
    frac = min(1.0, done / cycle)
    return peak * min(1.0, (step + 1) / warmup) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_data_option(ap, "--data", "synth", help="extracted synthetic pages: DATA/{train,val}/doc-*.lines.json")
    ap.add_argument(
        "--pack",
        default=None,
        help="train from ocr_tools.train.pack's file instead of --data (what a GPU machine takes along)",
    )
    ap.add_argument(
        "--arch",
        default=None,
        choices=sorted(ARCHS),
        help="model size of a fresh run (a resumed run keeps its checkpoint's)",
    )
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast (on a GPU)")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader processes building batches")
    ap.add_argument("--budget-min", type=float, default=60.0)
    ap.add_argument("--minutes", type=float, default=1e9)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=40, help="steps of linear learning-rate warm-up")
    ap.add_argument("--tokens", type=int, default=5000, help="sequence positions per batch")
    ap.add_argument("--max-units", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt", default=CKPT)
    ap.add_argument("--ckpt-every-min", type=float, default=3.0)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="train documents to load")
    ap.add_argument("--val-every-min", type=float, default=6.0)
    ap.add_argument("--val-windows", type=int, default=16, help="windows of the final validation")
    ap.add_argument(
        "--boost",
        default=None,
        metavar="FIRST:FACTOR",
        help="sample the windows of training documents from the FIRST-th on (sorted by name) FACTOR times as "
        "often: a newly added kind of document weighs more than its share while the model catches up",
    )
    ap.add_argument(
        "--freeze-encoder",
        action="store_true",
        help="train the decoder only: the line encoder keeps its weights (a fine-tune that teaches the decoder new "
        "letters without moving what the encoder tells it about a page's layout)",
    )
    ap.add_argument(
        "--cycle-min",
        type=float,
        default=None,
        help="a fine-tune of its own: train this many minutes more, the learning rate warming up and following a "
        "whole cosine over them (instead of the tail of --budget-min's cosine, which a resumed checkpoint has mostly "
        "spent)",
    )
    ap.add_argument(
        "--snapshots",
        action="store_true",
        help="keep each periodic checkpoint as CKPT-stepN.pt beside CKPT (to pick or interpolate among afterwards)",
    )
    ap.add_argument("--log", default=os.path.join(ROOT, "training", "default", "train-log.jsonl"))
    args = ap.parse_args()
    if not args.pack:
        require_data(ap, args.data, "--data", "synth")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    meta = None
    if not args.fresh:
        model, meta = model_from_ckpt(args.ckpt)
        if meta and args.arch and meta.get("arch") != ARCHS[args.arch]:
            sys.exit(
                f"{args.ckpt} is not a {args.arch!r} model: train it with --fresh, or leave --arch out to resume it"
            )
    if meta is None:
        arch = ARCHS[args.arch] if args.arch and args.arch != "small" else None
        model = build_model(arch)
        meta = {"train_seconds": 0.0, "steps": 0, "tokens": 0, "sessions": 0, **({"arch": arch} if arch else {})}
    model.arch = meta.get("arch")
    meta["sessions"] += 1
    t = time.time()
    if args.pack:
        train, val = load_pack(args.pack, "train", args.limit), load_pack(args.pack, "val")
        k = next(u["feats"].shape[1] for d in train for p in d for u in p if len(u["ids"])) - 4
        if model.encoder.pca != k:
            sys.exit(
                f"{args.pack} holds {k} principal components; the model takes {model.encoder.pca or 'raw features'}"
            )
        z = np.load(args.pack)
        if meta["steps"] == 0:
            model.encoder.pca_mean.copy_(torch.from_numpy(z["pca_mean"]))
            model.encoder.pca_basis.copy_(torch.from_numpy(z["pca_basis"]))
        elif not (
            np.allclose(model.encoder.pca_mean.numpy(), z["pca_mean"])
            and np.allclose(model.encoder.pca_basis.numpy(), z["pca_basis"])
        ):
            sys.exit(
                f"{args.pack} projects features on other components than {args.ckpt} was trained on: "
                "resume from --data (the model projects raw features itself), or pack.py --basis-from the checkpoint"
            )
    else:
        if model.encoder.pca and meta["steps"] == 0:
            sys.exit(
                "a fresh model that takes principal components trains from --pack (its projection is fitted there)"
            )
        train, val = load_split(os.path.join(args.data, "train"), args.limit), load_split(
            os.path.join(args.data, "val")
        )
    twins, vwins = windows(train, args.max_units), windows(val, args.max_units)
    if args.boost:
        first, factor = (int(v) for v in args.boost.split(":"))
        twins += [w for w in twins if w[0] >= first] * (factor - 1)
    print(
        f"params {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M; train docs {len(train)} windows {len(twins)}; "
        f"val windows {len(vwins)}; loaded in {time.time() - t:.0f} s; resumed at {meta['train_seconds'] / 60:.1f} min",
        file=sys.stderr,
    )
    device = torch.device(args.device)
    model.to(device)
    seed = meta["steps"] + 7919 * meta["sessions"]
    rng = random.Random(seed)
    loader = None
    if args.workers:
        loader = iter(
            torch.utils.data.DataLoader(
                Batches(model, train, twins, seed, args.tokens),
                batch_size=None,
                num_workers=args.workers,
                pin_memory=device.type == "cuda",
                prefetch_factor=4,
            )
        )
    trained = trainable_parameters(model, args.freeze_encoder)
    opt = torch.optim.AdamW(trained, lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    log = open(args.log, "a")
    start = last_val = last_ckpt = time.time()
    step = 0
    if args.cycle_min is not None:
        origin, cycle = meta["train_seconds"], args.cycle_min * 60
        meta["cycles"] = meta.get("cycles", []) + [{"from_steps": meta["steps"], "minutes": args.cycle_min}]
    else:
        origin, cycle = 0.0, args.budget_min * 60
    budget = origin + cycle
    while meta["train_seconds"] < budget and time.time() - start < args.minutes * 60:
        t0 = time.time()
        lr = learning_rate(args.lr, step, args.warmup, meta["train_seconds"] - origin, cycle)
        for g in opt.param_groups:
            g["lr"] = lr
        batch = next(loader) if loader is not None else model.collate(make_batch(train, twins, rng, args.tokens))
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=args.bf16):
            loss, n, acc = model.forward_collated(batch, device)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        opt.step()
        step += 1
        meta["steps"] += 1
        meta["tokens"] += n
        log_now = step % 10 == 0 or device.type == "cpu"
        if log_now:  # reading the loss waits for the device
            loss_v, acc_v = float(loss), float(acc)
        dt = time.time() - t0
        meta["train_seconds"] += dt
        if log_now:
            rec = {
                "step": meta["steps"],
                "t_min": round(meta["train_seconds"] / 60, 2),
                "loss": round(loss_v, 4),
                "acc": round(acc_v, 4),
                "tokens": n,
                "sec": round(dt, 3),
                "lr": round(lr, 6),
            }
            log.write(json.dumps(rec) + "\n")
            log.flush()
            if step % 10 == 0:
                print(json.dumps(rec), file=sys.stderr, flush=True)
        if time.time() - last_ckpt > args.ckpt_every_min * 60:
            save_ckpt(model, meta, args.ckpt)
            if args.snapshots:
                shutil.copyfile(args.ckpt, f"{os.path.splitext(args.ckpt)[0]}-step{meta['steps']}.pt")
            last_ckpt = time.time()
        if time.time() - last_val > args.val_every_min * 60:
            v = validate(cpu_copy(model), val, vwins)
            rec = {"step": meta["steps"], "t_min": round(meta["train_seconds"] / 60, 2), "val": v}
            print(json.dumps(rec, ensure_ascii=False), file=sys.stderr, flush=True)
            log.write(json.dumps(rec, ensure_ascii=False) + "\n")
            log.flush()
            last_val = time.time()
    save_ckpt(model, meta, args.ckpt)
    v = validate(cpu_copy(model), val, vwins, n=args.val_windows)
    rec = {"step": meta["steps"], "t_min": round(meta["train_seconds"] / 60, 2), "final_val": v}
    print(json.dumps(rec, ensure_ascii=False), file=sys.stderr, flush=True)
    log.write(json.dumps(rec, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
