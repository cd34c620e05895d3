// What the line recogniser reads for the letters and marks outside its alphabet (ß, ü, „ …): clean synthetic lines
// in 12 system fonts (sharp's SVG text, a fixed box, no blur or grain), read by the bundle's recogniser
// (line-reader.mjs), aligned with their text; for each character of CHARS, the recogniser's readings there and how
// sure they were. The merge (src/engines/model/faithful.ts MISREADS) keeps the decoder's letter over a sure
// misreading listed here.
// Usage: node scripts/train/recogniser-confusions.mjs [--lines N] [--chars "ßü„"] [--bundle DIR]
import sharp from "sharp";
import { alignPairs, DEFAULT_BUNDLE, escapeXml, openLineReader } from "./line-reader.mjs";

const args = { lines: 400, chars: "ßäöüÄÖÜ„“”‚‘’«»–—…", bundle: DEFAULT_BUNDLE, seed: 5 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--lines") args.lines = Number(process.argv[++i]);
  else if (a === "--chars") args.chars = process.argv[++i];
  else if (a === "--bundle") args.bundle = process.argv[++i];
}
let state = args.seed;
const rand = () => (state = (state * 1103515245 + 12345) >>> 0) / 4294967296;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const reader = await openLineReader(args.bundle);
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
const seen = new Map(targets.map((c) => [c, new Map()]));
for (let n = 0; n < args.lines; n++) {
  const text = Array.from({ length: 4 + Math.floor(rand() * 6) }, word).join(" ");
  const size = 16 + Math.floor(rand() * 20);
  const w = Math.ceil(text.length * size * 0.75) + 40,
    h = Math.ceil(size * 2.2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/><text x="20" y="${Math.round(size * 1.4)}" font-family="${pick(FONTS)}" font-size="${size}">${escapeXml(text)}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .flatten({ background: "#fff" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const box = { xMin: 10, xMax: info.width - 5, yMin: Math.round(size * 0.3), yMax: Math.round(size * 1.9) };
  const { slots, peaks } = await reader.read({ width: info.width, height: info.height, data }, box);
  const read = Array.from(slots.text);
  const truth = Array.from(text);
  for (const [i, j] of alignPairs(truth, read)) {
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
