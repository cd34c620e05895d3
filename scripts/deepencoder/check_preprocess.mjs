// Our preprocessing (sharp) against the reference's PIL pipeline, per mode: tile grid, view shapes and pixel differences.
// usage: node scripts/deepencoder/check_preprocess.mjs IMAGE...   (after npm run build; runs python -m ocr_tools.deepencoder.reference_preprocess,
// which needs Pillow)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { DEEPSEEK_OCR_MODES } from "../../dist/model/checkpoint-config.js";
import { pythonEnv } from "../../dist/model/convert.js";
import { preparePage } from "../../dist/vision/preprocess.js";

const vision = {
  encoder: "encoder.onnx",
  mode: "base",
  modes: DEEPSEEK_OCR_MODES,
  mean: [0.5, 0.5, 0.5],
  std: [0.5, 0.5, 0.5],
  pad_color: [127, 127, 127],
  row_newline: true,
  view_separator: true,
};
const python = process.env.OCR_PYTHON ?? "/usr/bin/python3";
for (const image of process.argv.slice(2)) {
  const { data, info } = await sharp(image).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const page = { width: info.width, height: info.height, data };
  for (const mode of ["tiny", "small", "base", "large", "gundam"]) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "pre-"));
    execFileSync(python, ["-m", "ocr_tools.deepencoder.reference_preprocess", image, mode, dir], { env: pythonEnv() });
    const ref = JSON.parse(readFileSync(path.join(dir, "views.json"), "utf8"));
    const ours = await preparePage(page, vision, mode);
    const views = [ours.global.pixels];
    if (ours.tiles)
      for (let k = 0; k < ours.tiles.count; k++) views.push(ours.tiles.pixels.subarray(k * 3 * 640 * 640, (k + 1) * 3 * 640 * 640));
    const grid = ours.tiles ? [ours.tiles.cols, ours.tiles.rows] : [1, 1];
    let maxAbs = 0,
      sumAbs = 0,
      n = 0;
    const sameCount = views.length === ref.views.length;
    if (sameCount) {
      views.forEach((v, k) => {
        const buf = readFileSync(path.join(dir, `view-${k}.f32`));
        const r = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
        for (let i = 0; i < r.length; i++) {
          const d = Math.abs(v[i] - r[i]) * 127.5; // back to 0–255 pixel units
          maxAbs = Math.max(maxAbs, d);
          sumAbs += d;
          n++;
        }
      });
    }
    console.log(
      `${path.basename(image)} ${info.width}×${info.height} ${mode.padEnd(6)} views ${views.length} (PIL ${ref.views.length})` +
        (ref.grid ? ` grid ${grid.join("×")} (PIL ${ref.grid.join("×")})` : "") +
        (sameCount ? `  mean |diff| ${(sumAbs / n).toFixed(3)} px  max |diff| ${maxAbs.toFixed(1)} px` : "  VIEW COUNT DIFFERS"),
    );
  }
}
