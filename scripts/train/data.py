"""Training samples cut from rendered synthetic pages: lines, blocks, page regions, multi-page sequences."""
# Every sample is pixels plus the exact Markdown of what is in them, taken from the generator's boxes.
# Pixels come from the product's renderer (scripts/synth/rasterise.mjs), already at the page mode's scale.
import glob
import io
import json
import math
import os
import random

import numpy as np
import torch
from PIL import Image, ImageFilter

PATCH = 16
MEAN, STD = 0.5, 0.5


class Page:
    def __init__(self, doc_dir, truth_page, raster_page, doc_name):
        self.path = os.path.join(doc_dir, raster_page["png"])
        self.sx, self.sy = raster_page["scaleX"], raster_page["scaleY"]
        self.width, self.height = raster_page["width"], raster_page["height"]
        self.truth = truth_page
        self.name = f"{doc_name}:{raster_page['png']}"
        self._pixels = None

    def pixels(self):
        if self._pixels is None:
            self._pixels = np.array(Image.open(self.path).convert("L"))
        return self._pixels

    def box_px(self, box):
        return [box[0] * self.sx, box[1] * self.sy, box[2] * self.sx, box[3] * self.sy]


def load_split(doc_dir, limit=None):
    pages = []
    for js in sorted(glob.glob(os.path.join(doc_dir, "doc-*.raster.json")))[:limit]:
        base = js[: -len(".raster.json")]
        raster = json.load(open(js))
        truth = json.load(open(base + ".json"))
        for tp, rp in zip(truth["pages"], raster["pages"]):
            pages.append(Page(doc_dir, tp, rp, os.path.basename(base)))
    return pages


def degrade(img: Image.Image, rng: random.Random) -> Image.Image:
    """Scan-like damage: slight rotation, blur, noise, JPEG; each with its own chance."""
    if rng.random() < 0.4:
        img = img.rotate(rng.uniform(-1.2, 1.2), resample=Image.BILINEAR, fillcolor=255)
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    if rng.random() < 0.5:
        a = np.asarray(img).astype(np.float32)
        a += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(4, 18), a.shape)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=rng.randrange(30, 75))
        img = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    return img


def crop(page: Page, box_px, win_w, win_h, rng, keep_box=None, whiteout=True):
    """Cuts a win_w x win_h window containing box_px at a random offset; outside keep_box (default box_px,
    grown by 2 px) is painted white so the window shows exactly the text of its target."""
    pix = page.pixels()
    x0, y0, x1, y1 = box_px
    slack_x = max(0, win_w - (x1 - x0))
    slack_y = max(0, win_h - (y1 - y0))
    left = int(math.floor(x0 - rng.uniform(0, min(slack_x, 12))))
    top = int(math.floor(y0 - rng.uniform(0, slack_y)))
    out = np.full((win_h, win_w), 255, dtype=np.uint8)
    sx0, sy0 = max(0, left), max(0, top)
    sx1, sy1 = min(pix.shape[1], left + win_w), min(pix.shape[0], top + win_h)
    if sx1 > sx0 and sy1 > sy0:
        out[sy0 - top: sy1 - top, sx0 - left: sx1 - left] = pix[sy0:sy1, sx0:sx1]
    if whiteout:
        kx0, ky0, kx1, ky1 = keep_box or box_px
        mask = np.ones_like(out, dtype=bool)
        a, b = max(0, int(ky0 - 2 - top)), max(0, int(math.ceil(ky1 + 2 - top)))
        c, d = max(0, int(kx0 - 2 - left)), max(0, int(math.ceil(kx1 + 2 - left)))
        mask[a:b, c:d] = False
        out[mask] = 255
    return out


def round_up(v, m=PATCH):
    return int(math.ceil(v / m) * m)


class SampleMaker:
    """Draws samples of one kind at a time; `kind` in line | block | region | multi | page."""

    def __init__(self, pages, seed=0, degrade_p=0.3, max_w=768, max_h=640):
        self.pages = pages
        self.rng = random.Random(seed)
        self.degrade_p = degrade_p
        self.max_w, self.max_h = max_w, max_h

    def _finish(self, arr):
        img = Image.fromarray(arr)
        if self.rng.random() < self.degrade_p:
            img = degrade(img, self.rng)
        return np.asarray(img)

    def line(self, want_h=None, width_range=None):
        tries = 0
        while True:
            tries += 1
            page = self.rng.choice(self.pages)
            lines = [l for l in page.truth["lines"] if l["lineMd"]]
            if not lines:
                continue
            ln = self.rng.choice(lines)
            b = page.box_px(ln["box"])
            h = b[3] - b[1]
            win_h = 32 if h <= 28 else 48
            win_w = round_up(min(b[2] - b[0] + self.rng.uniform(2, 14), self.max_w))
            if b[2] - b[0] > self.max_w - 4 or h > win_h or (want_h and want_h != win_h):
                continue
            if width_range and tries < 30 and not (width_range[0] <= win_w <= width_range[1]):
                continue
            return self._finish(crop(page, b, win_w, win_h, self.rng)), ln["lineMd"]

    def block(self):
        for _ in range(100):
            page = self.rng.choice(self.pages)
            blocks = page.truth["blocks"]
            blk = self.rng.choice(blocks)
            b = page.box_px(blk["box"])
            if b[2] - b[0] > self.max_w - 8 or b[3] - b[1] > self.max_h - 8:
                continue
            win_w = round_up(b[2] - b[0] + self.rng.uniform(4, 16))
            win_h = round_up(b[3] - b[1] + self.rng.uniform(4, 16))
            return self._finish(crop(page, b, win_w, win_h, self.rng)), blk["md"]
        return self.line()

    def region(self):
        """Consecutive blocks of one column (a page crop) in reading order."""
        for _ in range(100):
            page = self.rng.choice(self.pages)
            blocks = page.truth["blocks"]
            i = self.rng.randrange(len(blocks))
            chosen = [blocks[i]]
            box = page.box_px(blocks[i]["box"])
            target_h = self.rng.uniform(64, self.max_h - 16)
            for nxt in blocks[i + 1:]:
                if nxt.get("col", -1) != blocks[i].get("col", -1):
                    break
                nb = page.box_px(nxt["box"])
                merged = [min(box[0], nb[0]), min(box[1], nb[1]), max(box[2], nb[2]), max(box[3], nb[3])]
                if merged[3] - merged[1] > target_h or merged[2] - merged[0] > self.max_w - 8:
                    break
                chosen.append(nxt)
                box = merged
            if box[2] - box[0] > self.max_w - 8 or box[3] - box[1] > self.max_h - 8:
                continue
            win_w = round_up(box[2] - box[0] + self.rng.uniform(4, 16))
            win_h = round_up(box[3] - box[1] + self.rng.uniform(4, 16))
            return self._finish(crop(page, box, win_w, win_h, self.rng)), "\n\n".join(b["md"] for b in chosen)
        return self.block()

    def page(self, fit=(928, 1280)):
        page = self.rng.choice(self.pages)
        out = np.full((fit[1], fit[0]), 255, dtype=np.uint8)
        pix = page.pixels()
        out[: pix.shape[0], : pix.shape[1]] = pix[: fit[1], : fit[0]]
        return self._finish(out), page.truth["markdown"]

    def draw(self, kind, **kw):
        return getattr(self, kind)(**kw)


def to_tensor(arrays, width=None, height=None):
    """Grey crops -> normalised RGB batch [n,3,H,W], padded with white to a common size (multiples of 16)."""
    H = height or round_up(max(a.shape[0] for a in arrays))
    W = width or round_up(max(a.shape[1] for a in arrays))
    batch = np.full((len(arrays), H, W), 255, dtype=np.uint8)
    for i, a in enumerate(arrays):
        batch[i, : a.shape[0], : a.shape[1]] = a[:H, :W]
    t = torch.from_numpy(batch).float().div_(255.0).sub_(MEAN).div_(STD)
    return t[:, None].expand(-1, 3, -1, -1).contiguous()
