#!/usr/bin/python3
"""How well the corpus truth aligns with what the product's line front end finds: ocr_tools.train.data's alignment
(the share of detected lines that own a run of truth lines one to one and in order, the lines training uses), over
the extracted documents of a corpus split, in all and by package, renderer, scan-likeness and page kind; and the
same with the detected lines put in the truth's reading order, which separates reading-order disagreements (the
product's XY-cut against the checked content order) from truth or detection errors."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.corpus.alignment DATA/corpus/val [--json FILE] [--bad N]
import argparse
import collections
import json
import os

from ocr_tools.train.data import align_page, line_owners, load_doc, truth_boxes


def truth_order_rate(truth_page, raster_page, units):
    """Aligned units if the units were read in the truth's order: each unit placed by the first truth line it owns
    (data.py's ownership rule), the rest kept after. What is left unaligned is the truth's or the detector's doing
    (a missed, split or merged line), not the reading order's."""
    owner = line_owners(truth_boxes(truth_page, raster_page), units)
    first = [len(owner)] * len(units)
    for g, u in enumerate(owner):
        if u is not None:
            first[u] = min(first[u], g)
    order = sorted(range(len(units)), key=lambda u: (first[u], u))
    targets = align_page(truth_page, raster_page, [units[u] for u in order])
    return sum(t is not None for t in targets)


def multi_column(page):
    """At least 5 body lines wholly left of the page's middle beside (same height) 5 wholly right of it."""
    mid = page["width"] / 2
    body = [l["box"] for l in page["lines"] if l.get("kind") not in ("header", "footer", "pagenum")]
    left = [b for b in body if b[2] < mid]
    right = [b for b in body if b[0] > mid]
    beside = [b for b in left if any(r[1] < b[3] and r[3] > b[1] for r in right)]
    return len(beside) >= 5 and len(right) >= 5


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--json", default=None)
    ap.add_argument("--bad", type=int, default=0, help="print this many unaligned lines")
    args = ap.parse_args()
    names = sorted(f[: -len(".lines.json")] for f in os.listdir(args.dir) if f.endswith(".lines.json"))
    groups = collections.defaultdict(lambda: [0, 0, 0, 0])  # units, good, pages, good in the truth's order
    bad = []
    docs = 0
    for name in names:
        base = os.path.join(args.dir, name)
        truth = json.load(open(base + ".json"))
        raster = json.load(open(base + ".raster.json"))
        pages = load_doc(base)
        docs += 1
        for tp, rp, units in zip(truth["pages"], raster["pages"], pages):
            n, g = len(units), sum(u["target"] is not None for u in units)
            ordered = truth_order_rate(tp, rp, units)
            kinds = tp.get("kinds", {})
            keys = [
                "all",
                "package " + truth["package"],
                "renderer " + rp.get("renderer", "?"),
                "scan " + ("+".join(rp["scan"]) if rp.get("scan") else "clean"),
                "dpi " + ("<=150" if rp.get("dpi", 150) <= 150 else "<=225" if rp["dpi"] <= 225 else ">225"),
            ]
            keys.append("layout " + ("multi-column" if multi_column(tp) else "one column"))
            keys.append("source " + ("typeset LaTeX" if truth["package"] == "typeset" else "Debian PDF"))
            keys += [
                "has " + k
                for k in ("table", "code", "list", "heading", "header", "pagenum", "footer", "formula")
                if kinds.get(k)
            ]
            for k in keys:
                groups[k][0] += n
                groups[k][1] += g
                groups[k][2] += 1
                groups[k][3] += ordered
            for u in units:
                if u["target"] is None and len(bad) < args.bad:
                    bad.append(f"{name} p{tp.get('pdfPage')}: {u['text'][:80]!r}")
    rows = {
        k: {
            "pages": v[2],
            "lines": v[0],
            "aligned": v[1],
            "rate": round(v[1] / max(1, v[0]), 4),
            "aligned_in_truth_order": v[3],
            "rate_in_truth_order": round(v[3] / max(1, v[0]), 4),
        }
        for k, v in sorted(groups.items())
    }
    print(f"{args.dir}: {docs} documents")
    for k, r in rows.items():
        print(
            f"  {k:40s} pages {r['pages']:4d}  lines {r['lines']:6d}  aligned {r['aligned']:6d}  {100 * r['rate']:5.1f} %"
            f"   in the truth's order {100 * r['rate_in_truth_order']:5.1f} %"
        )
    for b in bad:
        print("  unaligned:", b)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"dir": args.dir, "documents": docs, "groups": rows}, f, indent=1)


if __name__ == "__main__":
    main()
