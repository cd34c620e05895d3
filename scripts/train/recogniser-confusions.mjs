// What the line recogniser reads for the letters and marks outside its alphabet (ß, ü, „ …): synthetic lines in the
// system's fonts (as scripts/train/diacritics-data.mjs renders them), read by the bundle's recogniser, aligned with
// their text; for each character of CHARS, the recogniser's readings there and how sure they were. The merge
// (src/engines/model/faithful.ts MISREADS) keeps the decoder's letter over a sure misreading listed here.
// Usage: node scripts/train/recogniser-confusions.mjs [--lines N] [--chars "ßü„"] [--bundle DIR]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import ort from "onnxruntime-node";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { recogniserCrop, recogniserBatch, collapseSlots, parseDictionary } = await import(path.join(root, "dist/vision/lines.js"));
const args = { lines: 400, chars: "ßäöüÄÖÜ„“”‚‘’«»–—…", bundle: path.join(root, "models/default"), seed: 5 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--lines") args.lines = Number(process.argv[++i]);
  else if (a === "--chars") args.chars = process.argv[++i];
  else if (a === "--bundle") args.bundle = process.argv[++i];
}
let state = args.seed;
const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 4294967296;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const cfg = JSON.parse(fs.readFileSync(path.join(args.bundle, "model.json"), "utf8")).vision.lines;
const rec = await ort.InferenceSession.create(path.join(args.bundle, cfg.recogniser), { intraOpNumThreads: 1 });
const dictionary = parseDictionary(fs.readFileSync(path.join(args.bundle, cfg.dictionary), "utf8"));
const FONTS = [
  "Latin Modern Roman",
  "CMU Serif",
  "DejaVu Serif",
  "DejaVu Sans",
  "Liberation Serif",
  "Liberation Sans",
  "TeX Gyre Termes",
  "TeX Gyre Pagella",
  "TeX Gyre Heros",
  "Nimbus Roman",
  "P052",
  "Latin Modern Mono",
];
const targets = Array.from(args.chars);
const plain = "abcdefghijklmnopqrstuvwxyz";
const word = () => {
  let w = "";
  const n = 2 + Math.floor(rand() * 7);
  for (let i = 0; i < n; i++) w += rand() < 0.25 ? pick(targets) : pick(Array.from(plain));
  return rand() < 0.2 ? w[0].toUpperCase() + w.slice(1) : w;
};
const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Edit-distance alignment: [i in a, j in b] pairs matched or substituted. */
function pairs(a, b) {
  const n = a.length,
    m = b.length,
    W = m + 1,
    d = new Int32Array((n + 1) * W);
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
const seen = new Map(targets.map((c) => [c, new Map()]));
for (let n = 0; n < args.lines; n++) {
  const text = Array.from({ length: 4 + Math.floor(rand() * 6) }, word).join(" ");
  const size = 16 + Math.floor(rand() * 20);
  const w = Math.ceil(text.length * size * 0.75) + 40,
    h = Math.ceil(size * 2.2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/><text x="20" y="${Math.round(size * 1.4)}" font-family="${pick(FONTS)}" font-size="${size}">${esc(text)}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .flatten({ background: "#fff" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const box = { xMin: 10, xMax: info.width - 5, yMin: Math.round(size * 0.3), yMax: Math.round(size * 1.9) };
  const crop = recogniserCrop({ width: info.width, height: info.height, data }, box, cfg.rec_height, cfg.rec_max_width);
  const width = Math.ceil(crop.width / 8) * 8;
  const r = await rec.run({
    pixels: new ort.Tensor("float32", recogniserBatch([crop], cfg.rec_height, width).data, [1, 3, cfg.rec_height, width]),
  });
  const steps = r.best.dims[1];
  const valid = Math.min(steps, Math.ceil((crop.width / width) * steps));
  const slots = collapseSlots(Float32Array.from(r.best.data, Number), r.peak.data, r.features.data, valid, r.features.dims[2], dictionary);
  const read = Array.from(slots.text);
  const peaks = slots.features.length ? Array.from(slots.ids, (_, j) => slots.features[(j + 1) * (r.features.dims[2] + 4) - 2]) : [];
  const truth = Array.from(text);
  for (const [i, j] of pairs(truth, read)) {
    const m = seen.get(truth[i]);
    if (!m) continue;
    const key = read[j] + (peaks[j] >= 0.7 ? " sure" : " unsure");
    m.set(key, (m.get(key) ?? 0) + 1);
  }
}
for (const [c, m] of seen)
  console.log(
    c,
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k}:${v}`)
      .join("  "),
  );
