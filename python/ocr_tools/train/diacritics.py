"""Trains the diacritics model (src/vision/diacritics.ts): which diacritical mark a letter the line recogniser found carries,
from a window of the recogniser's line crop centred on the letter's CTC slot and the base letter, on the records
scripts/train/diacritics-data.mjs writes.

    PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.diacritics --train TRAIN.bin --val VAL.bin --out diacritics.onnx

Writes an ONNX model with inputs `patch` [N, 1, 48, 32] and `letter` [N, 27] (one-hot) and output `probability`
[N, 16] (softmax over DIACRITICS), and OUT.json with what it scored on the validation records."""

import argparse
import json
import time

import numpy as np
import torch

CLASSES = [
    "none",
    "acute",
    "grave",
    "circumflex",
    "caron",
    "diaeresis",
    "ring",
    "dot",
    "double-acute",
    "ogonek",
    "cedilla",
    "stroke",
    "breve",
    "tilde",
    "macron",
    "dotless",
]
HEIGHT, WIDTH, LETTERS = 48, 32, 27


def load(path):
    rec = 2 + HEIGHT * WIDTH
    raw = np.fromfile(path, dtype=np.int8)
    raw = raw[: len(raw) // rec * rec].reshape(-1, rec)
    labels = torch.from_numpy(raw[:, 0].astype(np.uint8).astype(np.int64))
    letters = torch.from_numpy(raw[:, 1].astype(np.int64))
    patches = torch.from_numpy(raw[:, 2:].astype(np.float32) / 127.0).reshape(-1, 1, HEIGHT, WIDTH)
    return patches, letters, labels


class Diacritics(torch.nn.Module):
    """Small on purpose: it reads every letter of the pages it is switched on for (84 k weights, 1.2 M multiply-adds a letter)."""

    def __init__(self, stride1=False):
        super().__init__()
        # (stride1: the first convolution at 48 x 32 and pooled to 24 x 16, so a thin stroke, ł's, is seen whole)
        self.stride1 = stride1
        self.c1 = torch.nn.Conv2d(1, 12, 3, stride=1 if stride1 else 2, padding=1)  # 24 x 16
        self.c2 = torch.nn.Conv2d(12, 16, 3, padding=1)  # pooled to 12 x 8
        self.c3 = torch.nn.Conv2d(16, 32, 3, padding=1)  # pooled to 6 x 4
        self.letter = torch.nn.Linear(LETTERS, 16)
        self.fc = torch.nn.Linear(32 * 6 * 4 + 16, 96)
        self.out = torch.nn.Linear(96, len(CLASSES))

    def forward(self, patch, letter):
        x = torch.relu(self.c1(patch))
        if self.stride1:
            x = torch.nn.functional.max_pool2d(x, 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.c3(x)), 2)
        x = torch.cat([x.flatten(1), torch.relu(self.letter(letter))], 1)
        return self.out(torch.relu(self.fc(x)))


class Exported(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, patch, letter):
        return torch.softmax(self.model(patch, letter), -1)


def load_onnx(path):
    """A model this script exported (stride 2 or, where c1's output is pooled, stride 1), its weights read back."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    weights = {
        i.name.removeprefix("model."): torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer
    }
    pools = sum(1 for n in graph.node if n.op_type == "MaxPool")
    model = Diacritics(stride1=pools == 3)
    model.load_state_dict(weights)
    return model


def one_hot(letters):
    return torch.nn.functional.one_hot(letters, LETTERS).float()


def evaluate(model, patches, letters, labels):
    model.eval()
    with torch.no_grad():
        p = torch.cat(
            [
                torch.softmax(model(patches[i : i + 4096], one_hot(letters[i : i + 4096])), -1)
                for i in range(0, len(labels), 4096)
            ]
        )
    pred = p.argmax(-1)
    sure = p.max(-1).values >= 0.9
    per = {}
    for k, name in enumerate(CLASSES):
        m = labels == k
        if int(m.sum()):
            per[name] = {"n": int(m.sum()), "recall": round(float((pred[m] == k).float().mean()), 4)}
    # what the merge acts on: sure, marked predictions; how many are right
    marked = sure & (pred != 0)
    return {
        "accuracy": round(float((pred == labels).float().mean()), 4),
        "sure_marked": int(marked.sum()),
        "sure_marked_precision": round(float((pred[marked] == labels[marked]).float().mean()), 4)
        if int(marked.sum())
        else None,
        "none_called_marked": round(float((marked & (labels == 0)).sum() / max(1, int((labels == 0).sum()))), 5),
        "classes": per,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", required=True, nargs="+", help="record files (diacritics-data.mjs), read as one")
    ap.add_argument("--val", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument(
        "--baseline", help="a diacritics.onnx of this architecture: scored on the same --val records, beside"
    )
    ap.add_argument("--stride1", action="store_true", help="first convolution at the window's full resolution")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    tp, tl, ty = (torch.cat(x) for x in zip(*(load(f) for f in a.train)))
    vp, vl, vy = load(a.val)
    baseline = None
    if a.baseline:
        baseline = evaluate(load_onnx(a.baseline), vp, vl, vy)
        print(json.dumps({"baseline": a.baseline, "val": baseline}), flush=True)
    model = Diacritics(stride1=a.stride1)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = a.epochs * ((len(ty) + a.batch - 1) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    started = time.time()
    for epoch in range(a.epochs):
        model.train()
        order = torch.randperm(len(ty))
        for i in range(0, len(ty), a.batch):
            idx = order[i : i + a.batch]
            x = tp[idx]
            # a shift of a pixel or two: the slot's centre is not the glyph's
            x = torch.roll(x, shifts=(int(torch.randint(-2, 3, ())), int(torch.randint(-3, 4, ()))), dims=(2, 3))
            loss = torch.nn.functional.cross_entropy(model(x, one_hot(tl[idx])), ty[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(
            json.dumps(
                {
                    "epoch": epoch + 1,
                    "loss": round(float(loss), 4),
                    "val": evaluate(model, vp, vl, vy)["accuracy"],
                    "s": round(time.time() - started),
                }
            ),
            flush=True,
        )
    report = {
        "train_records": len(ty),
        "val_records": len(vy),
        "epochs": a.epochs,
        "stride1": a.stride1,
        "val": evaluate(model, vp, vl, vy),
    }
    if baseline:
        report["baseline"] = {"model": a.baseline, "val": baseline}
    print(json.dumps(report["val"], indent=1))
    model.eval()
    torch.onnx.export(
        Exported(model),
        (torch.zeros(1, 1, HEIGHT, WIDTH), torch.zeros(1, LETTERS)),
        a.out,
        input_names=["patch", "letter"],
        output_names=["probability"],
        dynamic_axes={"patch": {0: "n"}, "letter": {0: "n"}, "probability": {0: "n"}},
        opset_version=13,
    )
    json.dump(report, open(a.out + ".json", "w"), indent=1)


if __name__ == "__main__":
    main()
