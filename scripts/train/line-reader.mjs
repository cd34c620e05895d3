// The bundle's line recogniser over single synthetic lines, as the product reads a detected line (recogniserCrop,
// one padded batch, greedy CTC slots), and the alignment of its reading with the line's text: shared by
// scripts/train/diacritics-data.mjs and scripts/train/recogniser-confusions.mjs. Needs dist/ (npx tsc).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ort from "onnxruntime-node";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { recogniserCrop, recogniserBatch, collapseSlots, parseDictionary, slotPeaks, SLOT_EXTRA } = await import(
  path.join(root, "dist/vision/lines.js")
);

export const DEFAULT_BUNDLE = path.join(root, "models/default");

/** Text for an SVG <text> element. */
export const escapeXml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The bundle's recogniser on one thread. `read(page, box)` cuts the box from the page as a detected line is cut and
 * reads it: the crop, its slots (collapseSlots), each slot's peak probability, and the CTC steps over the padded
 * `width` (a slot's centre in crop columns is centres[j] * width / steps).
 */
export async function openLineReader(bundle = DEFAULT_BUNDLE) {
  const cfg = JSON.parse(fs.readFileSync(path.join(bundle, "model.json"), "utf8")).vision.lines;
  const rec = await ort.InferenceSession.create(path.join(bundle, cfg.recogniser), { intraOpNumThreads: 1 });
  const dictionary = parseDictionary(fs.readFileSync(path.join(bundle, cfg.dictionary), "utf8"));
  const height = cfg.rec_height;
  const read = async (page, box) => {
    const crop = recogniserCrop(page, box, height, cfg.rec_max_width);
    const width = Math.ceil(crop.width / 8) * 8;
    const r = await rec.run({ pixels: new ort.Tensor("float32", recogniserBatch([crop], height, width).data, [1, 3, height, width]) });
    const steps = r.best.dims[1];
    const fw = r.features.dims[2];
    const valid = Math.min(steps, Math.ceil((crop.width / width) * steps));
    const slots = collapseSlots(Float32Array.from(r.best.data, Number), r.peak.data, r.features.data, valid, fw, dictionary);
    const peaks = Array.from(slotPeaks(slots.ids, slots.features, fw + SLOT_EXTRA));
    return { crop, slots, peaks, steps, width };
  };
  return { cfg, read };
}

/** Edit-distance alignment of two character arrays: the [i in a, j in b] pairs matched or substituted, last first. */
export function alignPairs(a, b) {
  const n = a.length,
    m = b.length,
    W = m + 1;
  const d = new Int32Array((n + 1) * W);
  for (let i = 0; i <= n; i++) d[i * W] = i;
  for (let j = 0; j <= m; j++) d[j] = j;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++)
      d[i * W + j] = Math.min(d[(i - 1) * W + j] + 1, d[i * W + j - 1] + 1, d[(i - 1) * W + j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  const out = [];
  for (let i = n, j = m; i > 0 && j > 0; ) {
    if (d[i * W + j] === d[(i - 1) * W + j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)) out.push([--i, --j]);
    else if (d[i * W + j] === d[(i - 1) * W + j] + 1) i--;
    else j--;
  }
  return out;
}
