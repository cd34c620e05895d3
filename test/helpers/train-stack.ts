// Global setup of `npm run test:train`: the training stack must be installed (scripts/ci-deps.sh), so that a
// missing package fails the run with one message instead of skipping tests.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { findPython } from "../../src/model/convert.js";

const FONTS = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf",
  "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
  "/usr/share/fonts/truetype/cmu/cmunrm.ttf",
  "/usr/share/texmf/fonts/opentype/public/lm/lmroman10-regular.otf",
];

export default function setup(): void {
  const missing: string[] = [];
  // the interpreter the suites run, found as `ocr models convert` finds it ($OCR_PYTHON, python3, /usr/bin/python3)
  let python: string | undefined;
  try {
    python = findPython();
  } catch (err) {
    missing.push((err as Error).message);
  }
  const r = python ? spawnSync(python, ["-c", "import numpy"], { encoding: "utf8" }) : undefined;
  if (python && r?.status !== 0) missing.push(`${python} with numpy (${(r?.stderr || r?.error?.message || "").trim().split("\n").at(-1)})`);
  missing.push(...FONTS.filter((f) => !existsSync(f)));
  if (missing.length > 0)
    throw new Error(`npm run test:train needs the training stack; run scripts/ci-deps.sh. Missing:\n  ${missing.join("\n  ")}`);
}
