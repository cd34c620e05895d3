"""Trains the learned reading order (src/layout/learned.ts): a pairwise MLP g over the features of an ordered
pair of detected lines, with P(a before b) = sigmoid(g(a, b) - g(b, a)), on the rows layout-pairs.mjs writes.

    PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.layout_train --train TRAIN.bin --val VAL.bin --out layout.json

Writes the model file the bundle names in vision.lines.layout (PairOrderModel): weights as plain numbers, the
hidden sizes, and what it scored on the validation pairs. Standalone: no other module of the project is needed."""
import argparse
import json
import os
import time

import numpy as np
import torch


def load(path):
    meta = json.load(open(path + ".json"))
    f = meta["features"]
    rows = np.fromfile(path, dtype=np.float32).reshape(-1, 2 * f + 1)
    return (
        torch.from_numpy(rows[:, :f].copy()),
        torch.from_numpy(rows[:, f : 2 * f].copy()),
        torch.from_numpy(rows[:, 2 * f].copy()),
        f,
    )


class PairOrder(torch.nn.Module):
    def __init__(self, features, h1, h2):
        super().__init__()
        self.l1 = torch.nn.Linear(features, h1)
        self.l2 = torch.nn.Linear(h1, h2)
        self.l3 = torch.nn.Linear(h2, 1)

    def g(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x))))).squeeze(-1)

    def forward(self, ab, ba):
        return self.g(ab) - self.g(ba)


def accuracy(model, ab, ba, y):
    with torch.no_grad():
        s = model(ab, ba)
    return float(((s > 0).float() == y).float().mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, nargs=2, default=[32, 16])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--margin",
        type=float,
        default=None,
        help="per-line gain over XY-cut the learned order needs (choose with layout-pairs.mjs score --margins)",
    )
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    ab, ba, y, f = load(args.train)
    vab, vba, vy, vf = load(args.val)
    if vf != f:
        raise SystemExit(f"{args.val}: {vf} features, {args.train} has {f}")
    model = PairOrder(f, *args.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * ((len(y) + args.batch - 1) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    started = time.time()
    # XY-cut's own answer is a feature (the sign of the rank difference): its accuracy is the baseline to beat
    xy = float(((vab[:, 19] > 0).float() == vy).float().mean())
    for epoch in range(args.epochs):
        perm = torch.randperm(len(y))
        total = 0.0
        for i in range(0, len(y), args.batch):
            idx = perm[i : i + args.batch]
            loss = loss_fn(model(ab[idx], ba[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
        print(
            f"epoch {epoch + 1}: loss {total / len(y):.4f}  val pairs right {100 * accuracy(model, vab, vba, vy):.2f} % (XY-cut {100 * xy:.2f} %)",
            flush=True,
        )
    sd = {k: v.detach().double().numpy() for k, v in model.state_dict().items()}
    out = {
        "kind": "pairwise-order",
        "version": 1,
        "features": f,
        **({"margin": args.margin} if args.margin is not None else {}),
        "hidden": list(args.hidden),
        "w1": sd["l1.weight"].reshape(-1).round(6).tolist(),
        "b1": sd["l1.bias"].round(6).tolist(),
        "w2": sd["l2.weight"].reshape(-1).round(6).tolist(),
        "b2": sd["l2.bias"].round(6).tolist(),
        "w3": sd["l3.weight"].reshape(-1).round(6).tolist(),
        "b3": sd["l3.bias"].round(6).tolist(),
        "trained": {
            "train_pairs": int(len(y)),
            "val_pairs": int(len(vy)),
            "val_pairs_right": round(accuracy(model, vab, vba, vy), 4),
            "val_pairs_right_xy_cut": round(xy, 4),
            "epochs": args.epochs,
            "seconds": round(time.time() - started, 1),
            "train": os.path.basename(args.train),
        },
    }
    tmp = args.out + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(out, fh, separators=(",", ":"))
        fh.write("\n")
    os.replace(tmp, args.out)
    print(
        f"wrote {args.out}: val pairs right {100 * out['trained']['val_pairs_right']:.2f} % (XY-cut {100 * xy:.2f} %)"
    )


if __name__ == "__main__":
    main()
