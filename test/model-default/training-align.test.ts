// The trainer's alignment of detected lines with the generator's truth (scripts/train/data.py align_page):
// hyphenated lines match the Markdown's whole word, and a page turned by rasterise.mjs turns its boxes with it.
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.js";

const python = process.env.OCR_PYTHON ?? "/usr/bin/python3";
const hasNumpy = spawnSync(python, ["-c", "import numpy"], { encoding: "utf8" }).status === 0;

// Three short lines at the right of a 1000 px page; the middle one ends in a hyphenated word. Units are the lines' boxes
// turned `units_turn` degrees (as the detector finds them on the turned image); the raster records `rotate`.
const SCRIPT = `
import json, sys
sys.path.insert(0, ${JSON.stringify(path.join(repoRoot, "scripts/train"))})
from data import align_page, _turn
md = "# Title\\n\\nfirst line of text and a long com" + "putation that ends here"
lines = [
  {"box": [700, 100, 980, 120], "text": "Title"},
  {"box": [700, 400, 980, 420], "text": "first line of text and a long com-", "md": "first line of text and a long com"},
  {"box": [700, 700, 980, 720], "text": "putation that ends here"},
]
out = {}
for name, units_turn, recorded in (("turned", 8.0, 8.0), ("unrecorded", 8.0, 0.0), ("flat", 0.0, 0.0)):
    units = [{"box": _turn(l["box"], units_turn, 500, 500)} for l in lines]
    raster = {"scaleX": 1.0, "scaleY": 1.0, "width": 1000, "height": 1000, "rotate": recorded}
    out[name] = align_page({"markdown": md, "lines": lines}, raster, units)
print(json.dumps({"md": md, **out}))
`;

describe("training alignment", () => {
  it.skipIf(!hasNumpy)("gives hyphenated and turned lines the Markdown they contribute", () => {
    const r = JSON.parse(execFileSync(python, ["-c", SCRIPT], { encoding: "utf8" })) as Record<string, (string | null)[]> & { md: string };
    expect(r.flat).toEqual(["# Title", "\n\nfirst line of text and a long com", "putation that ends here"]);
    expect(r.turned).toEqual(r.flat);
    expect(r.turned!.join("")).toBe(r.md);
    // the same units without the recorded rotation do not all match their lines
    expect(r.unrecorded!.some((t) => t === null)).toBe(true);
  });
});
