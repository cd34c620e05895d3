// Training data for the diacritics model (src/vision/diacritics.ts): synthetic text lines in Latin scripts with diacritics,
// rendered in the system's fonts (sharp's SVG text), cut as a detected line is (recogniserCrop), read by the
// bundle's recogniser; each letter the recogniser found that lines up with the line's text gives the window of the
// crop at its slot, the base letter, and the mark the text has there.
// Usage: node scripts/train/diacritics-data.mjs OUT.bin [--lines N] [--seed S] [--sizes MIN:MAX] [--langs cs,pl,...] [--tex-share P] [--punct P] [--bundle models/default]
// --langs: the languages whose letters the lines are drawn from (default all of MARKED's, comma-separated)
// --tex-share: the share of lines set in TeX's faces (Latin Modern, Computer Modern), the faces of most typeset
// documents (default: their share of FONTS, 6 of 23)
// --punct: the share of words with a mark beside them (a comma or period after, a bracket or backslash before: TeX
// code's "{notwopart}," whose comma under a letter reads as an ogonek or cedilla to a model that never saw one; default 0)
// --sizes: the font sizes in pixels drawn from (default 14:43; 150-DPI body text is 17-25 px, 8-12 pt)
// OUT.bin: records of [label u8, letter u8, patch i8 × 48 × WINDOW_WIDTH] (patch = round(value × 127)).
// Nothing here comes from a document: the words are random strings over each language's letters.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { alignPairs, DEFAULT_BUNDLE, escapeXml, openLineReader } from "./line-reader.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { DIACRITICS, WINDOW_WIDTH, letterWindow, letterIndex, splitMark } = await import(path.join(root, "dist/vision/diacritics.js"));

const args = {
  out: undefined,
  lines: 4000,
  seed: 1,
  bundle: DEFAULT_BUNDLE,
  sizes: [14, 43],
  langs: undefined,
  texShare: undefined,
  punct: 0,
};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--lines") args.lines = Number(process.argv[++i]);
  else if (a === "--seed") args.seed = Number(process.argv[++i]);
  else if (a === "--bundle") args.bundle = process.argv[++i];
  else if (a === "--punct") args.punct = Number(process.argv[++i]);
  else if (a === "--tex-share") args.texShare = Number(process.argv[++i]);
  else if (a === "--langs") args.langs = process.argv[++i].split(",");
  else if (a === "--sizes") args.sizes = process.argv[++i].split(":").map(Number);
  else args.out = a;
}
if (!args.out || args.sizes.length !== 2 || !(args.sizes[0] >= 6 && args.sizes[1] >= args.sizes[0]))
  throw new Error(
    "usage: diacritics-data.mjs OUT.bin [--lines N] [--seed S] [--sizes MIN:MAX] [--langs cs,pl,...] [--tex-share P] [--punct P] [--bundle DIR]",
  );

let state = args.seed >>> 0 || 1;
const rand = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

const reader = await openLineReader(args.bundle);
const H = reader.cfg.rec_height;

// each language's marked letters (lower case; upper case is drawn too), beside the plain alphabet
const MARKED = {
  cs: "áčďéěíňóřšťúůýž",
  sk: "áäčďéíĺľňóôŕšťúýž",
  pl: "ąćęłńóśźż",
  hu: "áéíóöőúüű",
  tr: "çğıöşü",
  de: "äöü",
  fr: "àâçéèêëîïôùûüÿ",
  es: "áéíñóúü",
  pt: "áâãàçéêíóôõú",
  ro: "ăâîşţ",
  hr: "čćđšž",
  lv: "āčēģīķļņšūž",
  is: "áðéíóúýþæö",
  // (English: plain letters only, not drawn unless --langs names it; what a mark is not, in the faces of code)
  en: "",
};
const PLAIN = "abcdefghijklmnopqrstuvwxyz";
const AFTER = [",", ",", ".", ";", ":", ")", "}", "}{", "_", "%", "]"];
const BEFORE = ["(", "{", "\\", "[", "_"];
const LANGS = args.langs ?? Object.keys(MARKED).filter((l) => MARKED[l]);
for (const l of LANGS) if (MARKED[l] === undefined) throw new Error(`--langs: no letters for '${l}' (${Object.keys(MARKED).join(", ")})`);
const FONTS = [
  "Latin Modern Roman",
  "Latin Modern Sans",
  "Latin Modern Mono",
  "CMU Serif",
  "CMU Sans Serif",
  "CMU Typewriter Text",
  "DejaVu Serif",
  "DejaVu Sans",
  "DejaVu Sans Mono",
  "Liberation Serif",
  "Liberation Sans",
  "Liberation Mono",
  "TeX Gyre Termes",
  "TeX Gyre Pagella",
  "TeX Gyre Heros",
  "TeX Gyre Schola",
  "TeX Gyre Bonum",
  "TeX Gyre Cursor",
  "Nimbus Roman",
  "Nimbus Sans",
  "P052",
  "C059",
  "URW Bookman",
];

const TEX_FONTS = FONTS.filter((f) => /^(Latin Modern|CMU) /.test(f));
const OTHER_FONTS = FONTS.filter((f) => !TEX_FONTS.includes(f));

function word(lang) {
  const marked = MARKED[lang];
  const n = 1 + Math.floor(rand() * 9);
  let w = "";
  for (let i = 0; i < n; i++) w += marked && rand() < 0.3 ? pick(Array.from(marked)) : pick(Array.from(PLAIN));
  const r = rand();
  if (r < 0.1) return w.toUpperCase().replace("I\u0307", "İ");
  if (r < 0.3) return w[0].toUpperCase() + w.slice(1);
  return w;
}
function line() {
  const lang = pick(LANGS);
  const words = [];
  const n = 3 + Math.floor(rand() * 8);
  for (let i = 0; i < n; i++) {
    let w = rand() < 0.08 ? String(Math.floor(rand() * 2000)) : word(lang);
    if (args.punct && rand() < args.punct) w = rand() < 0.3 ? pick(BEFORE) + w : w + pick(AFTER);
    words.push(w);
  }
  return words.join(" ");
}
/** The line rendered and cut as the detector's box would be: a page of its own, and the box around its ink. */
async function render(text) {
  const size = args.sizes[0] + Math.floor(rand() * (args.sizes[1] - args.sizes[0] + 1));
  const font = args.texShare === undefined ? pick(FONTS) : rand() < args.texShare ? pick(TEX_FONTS) : pick(OTHER_FONTS);
  const style = rand() < 0.15 ? ' font-style="italic"' : "";
  const weight = rand() < 0.15 ? ' font-weight="bold"' : "";
  const w = Math.ceil(text.length * size * 0.75) + 40;
  const h = Math.ceil(size * 2.2);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/>` +
    `<text x="20" y="${Math.round(size * 1.4)}" font-family="${font}" font-size="${size}"${style}${weight}>${escapeXml(text)}</text></svg>`;
  let img = sharp(Buffer.from(svg)).flatten({ background: "#fff" });
  const blur = rand();
  if (blur < 0.3) img = img.blur(0.3 + rand() * 0.7);
  const { data, info } = await img.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // ink extent
  let x0 = info.width,
    x1 = 0,
    y0 = info.height,
    y1 = 0;
  for (let y = 0; y < info.height; y++)
    for (let x = 0; x < info.width; x++)
      if (data[(y * info.width + x) * 3] < 160) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  if (x1 <= x0) return undefined;
  const ink = y1 - y0 + 1;
  // the detector's boxes (unclip 1.5) reach a fraction of the line's height beyond its ink
  const padY = ink * (0.1 + rand() * 0.3),
    padX = ink * (0.1 + rand() * 0.4);
  const box = {
    xMin: Math.max(0, x0 - padX),
    xMax: Math.min(info.width, x1 + 1 + padX),
    yMin: Math.max(0, y0 - padY),
    yMax: Math.min(info.height, y1 + 1 + padY),
  };
  // grain of a scan, now and then
  if (rand() < 0.2) for (let i = 0; i < data.length; i++) data[i] = Math.max(0, Math.min(255, data[i] + (rand() - 0.5) * 40));
  return { page: { width: info.width, height: info.height, data }, box };
}

const fold = (ch) => splitMark(ch).base.toLowerCase();
const REC = 2 + H * WINDOW_WIDTH;
const out = fs.openSync(args.out, "w");
const counts = new Array(DIACRITICS.length).fill(0);
let samples = 0;
for (let n = 0; n < args.lines; n++) {
  const text = line();
  const r = await render(text);
  if (!r) continue;
  const { crop, slots, steps, width } = await reader.read(r.page, r.box);
  const read = Array.from(slots.text).map(fold);
  if (read.length !== slots.centres.length) continue;
  const truth = Array.from(text);
  const folded = truth.map(fold);
  const buf = Buffer.alloc(REC);
  for (const [j, i] of alignPairs(read, folded)) {
    if (read[j] !== folded[i]) continue;
    const { base, mark } = splitMark(truth[i]);
    if (!/[A-Za-z]/.test(base)) continue;
    const label = DIACRITICS.indexOf(mark);
    // plain letters are most of any page: a third of them is plenty
    if (label === 0 && rand() > 0.35) continue;
    const patch = letterWindow(crop, H, (slots.centres[j] * width) / steps);
    buf[0] = label;
    buf[1] = letterIndex(base);
    for (let k = 0; k < patch.length; k++) buf.writeInt8(Math.max(-127, Math.min(127, Math.round(patch[k] * 127))), 2 + k);
    fs.writeSync(out, buf);
    counts[label]++;
    samples++;
  }
  if ((n + 1) % 500 === 0) console.error(`${n + 1} lines, ${samples} samples`);
}
fs.closeSync(out);
console.log(JSON.stringify({ lines: args.lines, samples, counts: Object.fromEntries(DIACRITICS.map((c, k) => [c, counts[k]])) }));
