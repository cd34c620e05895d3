// The trainer scores exactly what greedy reading computes: same entries, masks, positions and one-step shift
// (scripts/train/check_layout.py). A trainer scoring the wrong position teaches a model that cannot read.
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.js";

const python = process.env.OCR_PYTHON ?? "/usr/bin/python3";
const hasTorch = spawnSync(python, ["-c", "import torch, onnx"], { encoding: "utf8" }).status === 0;

describe("training layout", () => {
  it.skipIf(!hasTorch)("trainer logits equal KV-cached reading logits at every scored token", () => {
    const out = execFileSync(python, [path.join(repoRoot, "scripts/train/check_layout.py")], { encoding: "utf8", timeout: 120_000 });
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as { ok: boolean; targets: number; same_targets: boolean; max_logit_diff: number };
    expect(r.same_targets).toBe(true);
    expect(r.targets).toBeGreaterThan(20);
    expect(r.max_logit_diff).toBeLessThan(1e-4);
    expect(r.ok).toBe(true);
  });
});
