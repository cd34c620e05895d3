#!/usr/bin/python3
"""What a corpus split holds: documents and pages (those rendered, i.e. with a .raster.json) by source package,
layout, block kinds, renderer, DPI and scan-likeness."""
# Usage: /usr/bin/python3 scripts/corpus/summary.py /work/data/corpus/train [/work/data/corpus/val ...]
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from alignment import multi_column  # noqa: E402

for d in sys.argv[1:]:
    c = collections.Counter()
    docs = collections.Counter()
    for f in sorted(os.listdir(d)):
        if not (f.startswith("doc-") and f.endswith(".raster.json")):
            continue
        base = os.path.join(d, f[: -len(".raster.json")])
        truth, raster = json.load(open(base + ".json")), json.load(open(base + ".raster.json"))
        docs["documents"] += 1
        docs["package " + truth["package"]] += 1
        for tp, rp in zip(truth["pages"], raster["pages"]):
            c["pages"] += 1
            c["package " + truth["package"]] += 1
            c["layout " + ("multi-column" if multi_column(tp) else "one column")] += 1
            c["renderer " + rp.get("renderer", "?")] += 1
            c["scan " + ("+".join(rp["scan"]) if rp.get("scan") else "clean")] += 1
            c["dpi " + ("100-150" if rp["dpi"] <= 150 else "151-225" if rp["dpi"] <= 225 else "226-300")] += 1
            c["lines"] += len(tp["lines"])
            for k, v in tp.get("kinds", {}).items():
                c["pages with " + k] += 1
    print(f"{d}: {docs['documents']} documents, {c['pages']} pages, {c['lines']} truth lines")
    for k in sorted(k for k in c if k not in ("pages", "lines")):
        extra = f" ({docs[k]} documents)" if k.startswith("package ") else ""
        print(f"  {k:45s} {c[k]:5d}{extra}")
