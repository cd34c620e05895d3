"""Trains the formula reader (issue 17: display formulas written as LaTeX) on generate.py's samples.

A small image-to-LaTeX model: a convolutional stem (96 rows in, 6 rows × width/8 out), one transformer layer over the
visual tokens with row and column embeddings, and a three-layer transformer decoder over the vocabulary of
vocab.py. Its first decoded token says whether the region is a formula at all (<text> when it is prose).

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.formula.train DATA_DIR OUT.pt --minutes 60 [--resume OUT.pt]

The learning rate follows the fraction of the time budget spent (warm-up, then cosine), so a run of any length ends
annealed. It prints the loss, and every few minutes the held-out samples' exact-match rate and token accuracy under
greedy decoding, with the samples seen so far.
"""
import argparse
import json
import math
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ocr_tools.formula.vocab import BOS, EOS, HEIGHT, INDEX, PAD, TEXT, VOCAB

MAX_LEN = 160
MAX_WIDTH = 1024


def sincos(n, d):
    """Fixed sinusoidal position codes, n positions × d channels, values in [-1, 1]."""
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)
    return pe


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Reader(nn.Module):
    def __init__(self, d=192, heads=4, ff=512, layers=3):
        super().__init__()
        self.d = d
        self.stem = nn.Sequential(block(1, 24, 2), block(24, 48, 2), block(48, 96, 2), block(96, d, (2, 1)))
        # where each visual token sits: fixed 2-D sinusoids (rows in half the channels, columns in the other half),
        # plus learned corrections; a decoder that does not know where a token is cannot learn to read in order
        pe_rows = torch.zeros(HEIGHT // 16, d)
        pe_rows[:, : d // 2] = sincos(HEIGHT // 16, d // 2)
        pe_cols = torch.zeros(MAX_WIDTH // 8, d)
        pe_cols[:, d // 2 :] = sincos(MAX_WIDTH // 8, d // 2)
        self.register_buffer("pe_rows", pe_rows)
        self.register_buffer("pe_cols", pe_cols)
        self.register_buffer("pe_tokens", sincos(MAX_LEN + 1, d))
        self.rows = nn.Parameter(torch.zeros(HEIGHT // 16, d))
        self.cols = nn.Parameter(torch.zeros(MAX_WIDTH // 8, d))
        self.enc = nn.TransformerEncoderLayer(d, heads, ff, 0.0, batch_first=True, norm_first=True)
        self.emb = nn.Embedding(len(VOCAB), d)
        nn.init.normal_(self.emb.weight, std=0.3)
        self.pos = nn.Parameter(torch.zeros(MAX_LEN + 1, d))
        layer = nn.TransformerDecoderLayer(d, heads, ff, 0.0, batch_first=True, norm_first=True)
        self.dec = nn.TransformerDecoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.out = nn.Linear(d, len(VOCAB))

    def encode(self, img):
        """img: (B, 1, 96, W) floats, ink 1 and paper 0 → memory (B, 6·W/8, d)."""
        f = self.stem(img)  # B, d, 6, W/8
        b, d, h, w = f.shape
        rows = self.rows[:h] + self.pe_rows[:h]
        cols = self.cols[:w] + self.pe_cols[:w]
        f = f + rows.t()[None, :, :, None] + cols.t()[None, :, None, :]
        return self.enc(f.flatten(2).transpose(1, 2))

    def decode(self, memory, tokens):
        """tokens: (B, L) → logits (B, L, V), each position seeing only those before it."""
        L = tokens.shape[1]
        x = self.emb(tokens) + self.pos[:L] + self.pe_tokens[:L]
        mask = torch.triu(torch.full((L, L), float("-inf")), 1)
        return self.out(self.norm(self.dec(x, memory, tgt_mask=mask)))

    def forward(self, img, tokens):
        return self.decode(self.encode(img), tokens)


class Data:
    def __init__(self, root):
        self.index = json.load(open(os.path.join(root, "index.json")))
        self.blob = np.memmap(os.path.join(root, "images.u8"), dtype=np.uint8, mode="r")

    def image(self, k):
        e = self.index[k]
        return np.asarray(self.blob[e["offset"] : e["offset"] + e["height"] * e["width"]]).reshape(
            e["height"], e["width"]
        )

    def batches(self, ids, columns, rng):
        """Batches of similar width, at most `columns` image columns each (so wide formulas come fewer at once)."""
        ids = sorted(ids, key=lambda k: self.index[k]["width"] + rng.random() * 24)
        out, cur, widest = [], [], 0
        for k in ids:
            w = min(MAX_WIDTH, self.index[k]["width"])
            if cur and max(widest, w) * (len(cur) + 1) > columns:
                out.append(cur)
                cur, widest = [], 0
            cur.append(k)
            widest = max(widest, w)
        if cur:
            out.append(cur)
        rng.shuffle(out)
        return out

    def tensors(self, ids, augment, rng):
        imgs = [self.image(k) for k in ids]
        if augment:
            imgs = [jitter(a, rng) for a in imgs]
        imgs = [a[:, :MAX_WIDTH] for a in imgs]
        w = max(a.shape[1] for a in imgs)
        w = (w + 7) // 8 * 8
        x = np.zeros((len(ids), 1, HEIGHT, w), np.float32)
        for i, a in enumerate(imgs):
            x[i, 0, :, : a.shape[1]] = 1.0 - a.astype(np.float32) / 255.0
        x = torch.from_numpy(x)
        if augment:
            x = degrade(x, rng)
        toks = [[INDEX[BOS]] + [INDEX[t] for t in self.index[k]["tokens"]][: MAX_LEN - 1] + [INDEX[EOS]] for k in ids]
        L = max(len(t) for t in toks)
        y = torch.full((len(ids), L), INDEX[PAD], dtype=torch.long)
        for i, t in enumerate(toks):
            y[i, : len(t)] = torch.tensor(t)
        return x, y


def jitter(a, rng):
    """A horizontal stretch of ±12 % (fonts set wider or narrower), by nearest-column sampling."""
    s = 1.0 + rng.uniform(-0.12, 0.12)
    w = max(8, int(a.shape[1] * s))
    cols = np.minimum((np.arange(w) / s).astype(int), a.shape[1] - 1)
    return a[:, cols]


def degrade(x, rng):
    """Print and scan: blur, contrast, noise, sometimes a hard threshold."""
    if rng.random() < 0.5:
        k = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0
        x = F.conv2d(x, k[None, None], padding=1)
    x = x * rng.uniform(0.6, 1.0)
    if rng.random() < 0.5:
        x = x + torch.randn_like(x) * rng.uniform(0.0, 0.12)
    if rng.random() < 0.15:
        x = (x > rng.uniform(0.3, 0.6)).float()
    return x.clamp(0, 1)


@torch.no_grad()
def greedy(model, img, limit=MAX_LEN):
    memory = model.encode(img)
    toks = torch.full((img.shape[0], 1), INDEX[BOS], dtype=torch.long)
    done = torch.zeros(img.shape[0], dtype=torch.bool)
    for _ in range(limit):
        nxt = model.decode(memory, toks)[:, -1].argmax(-1)
        nxt[done] = INDEX[PAD]
        toks = torch.cat([toks, nxt[:, None]], 1)
        done |= nxt == INDEX[EOS]
        if done.all():
            break
    return [[VOCAB[i] for i in row[1:] if i not in (INDEX[PAD],)] for row in toks.tolist()]


@torch.no_grad()
def evaluate(model, data, ids, greedy_count=48):
    """Greedy exact-match rate over the first `greedy_count` held-out samples, teacher-forced token accuracy over all."""
    model.eval()
    exact = right = total = 0
    for s in range(0, len(ids), 32):
        part = ids[s : s + 32]
        x, y = data.tensors(part, False, None)
        pred = model(x, y[:, :-1]).argmax(-1)
        mask = y[:, 1:] != INDEX[PAD]
        right += ((pred == y[:, 1:]) & mask).sum().item()
        total += mask.sum().item()
    for s in range(0, greedy_count, 16):
        part = ids[s : min(s + 16, greedy_count)]
        x, _ = data.tensors(part, False, None)
        for k, out in zip(part, greedy(model, x, limit=100)):
            want = data.index[k]["tokens"] + [EOS]
            exact += (out[: out.index(EOS) + 1] if EOS in out else out) == want
    model.train()
    return exact / greedy_count, right / total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("out")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--lr", type=float, default=1.5e-3)
    ap.add_argument("--columns", type=int, default=9000)
    ap.add_argument("--resume")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--eval-every", type=float, default=8, help="minutes")
    ap.add_argument(
        "--simple-first",
        type=float,
        default=0.0,
        help="fraction of the time spent first on formulas set on one baseline (no fractions, roots, limits; ≤ 40 tokens)",
    )
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = random.Random(0)
    data = Data(a.data)
    ids = list(range(len(data.index)))
    n = min(400, len(ids) // 5)
    held = ids[-n:]
    train = ids[:-n]
    model = Reader()
    if a.resume:
        model.load_state_dict(torch.load(a.resume))
    params = sum(p.numel() for p in model.parameters())
    print(f"{params / 1e6:.2f}M parameters, {len(train)} training samples, {len(held)} held out", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    start = time.time()
    budget = a.minutes * 60
    seen = step = 0
    next_eval = a.eval_every * 60
    losses = []
    epoch = 0
    stacked = {
        r"\frac",
        r"\sqrt",
        r"\sum",
        r"\prod",
        r"\int",
        r"\iint",
        r"\iiint",
        r"\oint",
        r"\bigcup",
        r"\bigcap",
        r"\coprod",
        r"\lim",
    }
    simple = [
        k
        for k in train
        if not (set(data.index[k]["tokens"]) & stacked)
        and len(data.index[k]["tokens"]) <= 40
        and (data.index[k]["tokens"] != [TEXT] or k % 4 == 0)
    ]
    if a.simple_first:
        print(f"first {a.simple_first:.0%} of the time on {len(simple)} one-baseline samples", flush=True)
    while True:
        first_phase = (time.time() - start) / budget < a.simple_first
        for batch in data.batches(simple if first_phase else train, a.columns, rng):
            spent = (time.time() - start) / budget
            if spent >= 1 or (first_phase and spent >= a.simple_first):
                break
            lr = a.lr * min(1.0, spent / 0.04) * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * spent)))
            for g in opt.param_groups:
                g["lr"] = lr
            x, y = data.tensors(batch, True, rng)
            logits = model(x, y[:, :-1])
            loss = F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]),
                y[:, 1:].reshape(-1),
                ignore_index=INDEX[PAD],
                label_smoothing=0.05,
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            seen += len(batch)
            step += 1
            if step % 50 == 0:
                m = (time.time() - start) / 60
                print(
                    f"step {step} epoch {epoch} seen {seen} min {m:.1f} lr {lr:.2e} loss {np.mean(losses[-50:]):.3f}",
                    flush=True,
                )
            if time.time() - start >= next_eval:
                next_eval += a.eval_every * 60
                ex, acc = evaluate(model, data, held[:160])
                print(
                    f"eval seen {seen} min {(time.time() - start) / 60:.1f} exact {ex:.3f} token-acc {acc:.3f}",
                    flush=True,
                )
                torch.save(model.state_dict(), a.out)
        else:
            epoch += 1
            continue
        if (time.time() - start) / budget >= 1:
            break
    torch.save(model.state_dict(), a.out)
    ex, acc = evaluate(model, data, held, greedy_count=len(held))
    print(
        f"final seen {seen} steps {step} min {(time.time() - start) / 60:.1f} exact {ex:.3f} token-acc {acc:.3f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
