"""Training data of the line-unit default model: the front end's units (extract-lines.mjs) aligned with the
generator's exact Markdown, so each detected line gets the Markdown it contributes (separators and markup included)."""
# A unit's target is the page Markdown from the end of the previous unit's text to the end of its own, so the
# targets of a page's units concatenate to the page's Markdown. Units whose lines cannot be matched one to one,
# in order, with the generator's lines (a missed or split line, a spurious box, a table read column-wise) are
# marked bad: training windows never contain them.
import json
import math
import os

import numpy as np

FEATURES = 124


def _overlap(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def _area(b):
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _turn(box, degrees, cx, cy):
    """The axis-aligned box around `box` turned `degrees` clockwise (y down) about (cx, cy), as a page is when
    rasterise.mjs rotates it."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
        xs.append(cx + (x - cx) * c - (y - cy) * s)
        ys.append(cy + (x - cx) * s + (y - cy) * c)
    return [min(xs), min(ys), max(xs), max(ys)]


def truth_boxes(truth, raster):
    """The truth page's line boxes (points) in the raster's pixels, turned with the page when it was rotated."""
    sx, sy = raster["scaleX"], raster["scaleY"]
    boxes = [[l["box"][0] * sx, l["box"][1] * sy, l["box"][2] * sx, l["box"][3] * sy] for l in truth["lines"]]
    if raster.get("rotate"):
        boxes = [_turn(b, raster["rotate"], raster["width"] / 2, raster["height"] / 2) for b in boxes]
    return boxes


def line_owners(boxes, units):
    """Per truth box, the unit that overlaps it most when that covers at least half of it, else None."""
    owner = []
    for gb in boxes:
        best, best_ov = None, 0.0
        for u, unit in enumerate(units):
            ov = _overlap(gb, unit["box"])
            if ov > best_ov:
                best, best_ov = u, ov
        owner.append(best if best is not None and best_ov >= 0.5 * _area(gb) else None)
    return owner


def align_page(truth, raster, units):
    """truth: generator page (markdown, lines with point boxes); raster: {scaleX, scaleY}; units: extracted
    units of the page in reading order. Returns one target string per unit, None for bad units."""
    md = truth["markdown"]
    glines = truth["lines"]
    boxes = truth_boxes(truth, raster)
    ends, cur = [], 0
    for l in glines:
        text = l.get("md", l["text"])  # a hyphenated line's text as the Markdown has it (no hyphen)
        i = md.find(text, cur) if text else -1
        if i < 0:
            ends.append(None)
        else:
            cur = i + len(text)
            ends.append(cur)
    owner = line_owners(boxes, units)
    members = [[] for _ in units]
    for g, u in enumerate(owner):
        if u is not None:
            members[u].append(g)
    targets = []
    expected, prev_end = 0, 0
    for u, unit in enumerate(units):
        gs = members[u]
        # a generator line this unit covers in part but does not own: a split line
        split = any(
            owner[g] != u and _overlap(boxes[g], unit["box"]) > 0.2 * _area(unit["box"]) for g in range(len(boxes))
        )
        ok = (
            bool(gs)
            and not split
            and gs == list(range(expected, expected + len(gs)))
            and all(ends[g] is not None for g in gs)
        )
        if ok:
            # the page's last line also takes the Markdown after it (closing tags)
            end = len(md) if gs[-1] == len(glines) - 1 else ends[gs[-1]]
            targets.append(md[prev_end:end])
            prev_end = end
            expected = gs[-1] + 1
        else:
            targets.append(None)
            if gs:
                expected = max(gs) + 1
                if ends[max(gs)] is not None:
                    prev_end = ends[max(gs)]
    return targets


def load_doc(base):
    """base: DIR/doc-XXXXX. Returns a list of pages, each a list of units
    {ids int32 [S], feats float32 [S, 124], geometry [8], box, text, target (str or None)}."""
    lines = json.load(open(base + ".lines.json"))
    truth = json.load(open(base + ".json"))
    raster = json.load(open(base + ".raster.json"))
    feats = np.fromfile(base + ".lines.f32", dtype=np.float32).reshape(-1, FEATURES)
    pages, at = [], 0
    for pi, page in enumerate(lines["pages"]):
        units = page["units"]
        targets = align_page(truth["pages"][pi], raster["pages"][pi], units)
        out = []
        for u, t in zip(units, targets):
            n = len(u["ids"])
            out.append(
                {
                    "ids": np.asarray(u["ids"], dtype=np.int64),
                    "feats": feats[at : at + n],
                    "geometry": np.asarray(u["geometry"], dtype=np.float32),
                    "box": u["box"],
                    "text": u["text"],
                    "target": t,
                }
            )
            at += n
        pages.append(out)
    assert at == feats.shape[0], f"{base}: {feats.shape[0]} slots in .lines.f32, {at} in .lines.json"
    return pages


def load_split(doc_dir, limit=None):
    names = sorted(f[: -len(".lines.json")] for f in os.listdir(doc_dir) if f.endswith(".lines.json"))
    docs = []
    for name in names[:limit]:
        docs.append(load_doc(os.path.join(doc_dir, name)))
    return docs


def load_pack(path, split, limit=None):
    """Documents of one split from ocr_tools.train.pack's file, in load_split's form; a unit's features are the
    dequantised principal components and the four run features ([S, k + 4]), for a LineEncoder with pca = k."""
    import lzma

    z = np.load(path)
    lo, step = z["pca_lo"], z["pca_step"]
    g = lambda key: z[f"{split}_{key}"]  # noqa: E731
    packed = g("codes")
    q = np.empty((packed.shape[0], packed.shape[1] * 2), np.float32)
    q[:, 0::2] = packed & 15
    q[:, 1::2] = packed >> 4
    feats = np.concatenate([q * step + lo, g("runs").astype(np.float32) / 8, g("peaks").astype(np.float32)], 1)
    ids = g("ids").astype(np.int64)
    targets = json.loads(lzma.decompress(g("targets").tobytes()).decode())
    docs = []
    for u, (d, p, start, n, has, geo) in enumerate(
        zip(g("doc"), g("page"), g("start"), g("count"), g("has"), g("geometry"))
    ):
        if limit is not None and d >= limit:
            break
        while len(docs) <= d:
            docs.append([])
        while len(docs[d]) <= p:
            docs[d].append([])
        unit = {"geometry": geo.astype(np.float32), "target": targets[u], "text": None}
        if has:
            unit["ids"], unit["feats"] = ids[start : start + n], feats[start : start + n]
        else:  # not aligned: never trained on, only its slot count matters (window offsets)
            unit["ids"], unit["feats"] = np.zeros(n, np.int64), np.zeros((n, feats.shape[1]), np.float32)
        docs[d][p].append(unit)
    return docs


if __name__ == "__main__":
    import sys

    docs = load_split(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
    units = [u for d in docs for p in d for u in p]
    good = [u for u in units if u["target"] is not None]
    slots = np.array([len(u["ids"]) for u in units])
    print(
        f"docs {len(docs)} pages {sum(len(d) for d in docs)} units {len(units)} good {len(good)} ({len(good) / max(1, len(units)):.1%})"
    )
    print(
        "slots p50/p90/p99/max",
        np.percentile(slots, [50, 90, 99]).tolist(),
        slots.max(),
        "over 128:",
        int((slots > 128).sum()),
    )
    tl = np.array([len(u["target"]) for u in good])
    print("target chars p50/p90/max", np.percentile(tl, [50, 90]).tolist(), tl.max())
    if len(sys.argv) > 3:
        for u in units[: int(sys.argv[3])]:
            print(repr(u["text"]), "->", repr(u["target"]))
