// Global setup of `npm run test:train`: the training stack must be installed (scripts/ci-deps.sh), so that a
// missing package fails the run with one message instead of skipping tests.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const FONTS = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf",
  "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
  "/usr/share/fonts/truetype/cmu/cmunrm.ttf",
  "/usr/share/texmf/fonts/opentype/public/lm/lmroman10-regular.otf",
];

export default function setup(): void {
  const python = process.env.OCR_PYTHON ?? "/usr/bin/python3";
  const missing: string[] = [];
  const r = spawnSync(python, ["-c", "import torch, onnx, numpy"], { encoding: "utf8" });
  if (r.status !== 0)
    missing.push(`${python} with torch, onnx and numpy (${(r.stderr || r.error?.message || "").trim().split("\n").at(-1)})`);
  missing.push(...FONTS.filter((f) => !existsSync(f)));
  if (missing.length > 0)
    throw new Error(`npm run test:train needs the training stack; run scripts/ci-deps.sh. Missing:\n  ${missing.join("\n  ")}`);
}
