#!/usr/bin/python3
"""What a corpus split holds: documents and pages (those rendered, i.e. with a .raster.json) by source package,
layout, block kinds, renderer, DPI and scan-likeness."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.corpus.summary DATA/corpus/train [DATA/corpus/val ...]
import collections
import json
import os
import sys

from ocr_tools.corpus.alignment import multi_column

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
