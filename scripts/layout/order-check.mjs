// Reading order of the default model's detected lines on a born-digital PDF page, against the PDF's own content
// order (LaTeX writes text in reading order: header, body columns left to right, footer).
// Usage: node scripts/layout/order-check.mjs DOC.pdf PAGE [--dpi 300] [--app] [--skew DEG] [--noise] [--save FIXTURE.json]
//        node scripts/layout/order-check.mjs --fixture FIXTURE.json [--xycut OLD/xycut.js]   (order stored boxes)
// Renders the page grey at --dpi with pdftoppm (--app: with pdfjs, as ocr parse does), optionally rotates it by --skew degrees about its centre and adds
// scanner noise, runs the detector (models/default), orders the boxes with dist/vision/lines.js orderLines, and
// prints: lines with text, and the share of successive lines in the order that are successive in the PDF's order.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import sharp from "sharp";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { orderLines, boxesFromMap, detectorInput } = await import(path.join(root, "dist/vision/lines.js"));

const args = { dpi: 300, skew: 0, noise: false };
const rest = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--dpi") args.dpi = Number(process.argv[++i]);
  else if (a === "--skew") args.skew = Number(process.argv[++i]);
  else if (a === "--noise") args.noise = true;
  else if (a === "--app") args.app = true;
  else if (a === "--save") args.save = process.argv[++i];
  else if (a === "--fixture") args.fixture = process.argv[++i];
  else if (a === "--xycut") args.xycut = process.argv[++i];
  else rest.push(a);
}

/**
 * Lines in order: the share of successive lines of `ordered` (boxes, possibly split by the orderer) that are
 * successive in the PDF's order. A line's place in the PDF's order is that of the first text run whose middle
 * (`runs`: [x, y, index]) it holds; lines holding none are skipped.
 */
export function inOrder(ordered, runs) {
  const rank = ordered.map((b) => {
    let best = null;
    for (const [x, y, k] of runs) if (x >= b.xMin && x <= b.xMax && y >= b.yMin && y <= b.yMax && (best === null || k < best)) best = k;
    return best;
  });
  const known = ordered.map((_, i) => i).filter((i) => rank[i] !== null);
  const sorted = [...known].sort((a, b) => rank[a] - rank[b]);
  const pos = new Map(sorted.map((b, k) => [b, k]));
  let good = 0;
  for (let k = 0; k + 1 < known.length; k++) if (pos.get(known[k + 1]) === pos.get(known[k]) + 1) good++;
  return { good, pairs: known.length - 1, lines: known.length };
}

// --xycut FILE.js: another build of layout/xycut.js (e.g. the one before a change), with orderLines' gutter width
const order = args.xycut
  ? await import(path.resolve(args.xycut)).then((m) => (boxes) => {
      const hs = boxes.map((b) => b.yMax - b.yMin).sort((a, b) => a - b);
      return m.xyCut(boxes, 0.5 * (hs[Math.floor(hs.length / 2)] || 10));
    })
  : orderLines;

function report(label, boxes, runs) {
  const ordered = order(boxes.map((b) => ({ xMin: b[0], yMin: b[1], xMax: b[2], yMax: b[3], score: 1 })));
  const { good, pairs, lines } = inOrder(ordered, runs);
  console.log(
    `${label}: ${boxes.length} boxes, ordered as ${ordered.length} lines, ${lines} with text; successive lines in order ${good}/${pairs} = ${((100 * good) / pairs).toFixed(1)} %`,
  );
}

if (args.fixture) {
  const f = JSON.parse(fs.readFileSync(args.fixture, "utf8"));
  report(path.basename(args.fixture), f.boxes, f.runs);
  process.exit(0);
}
const [pdf, pageArg] = rest;
if (!pdf || !pageArg)
  throw new Error("usage: order-check.mjs DOC.pdf PAGE [--dpi N] [--skew DEG] [--noise] [--save F.json] | --fixture F.json");
const pageNumber = Number(pageArg);
const { openDocument } = await import(path.join(root, "dist/input/index.js"));
let grey, info;
if (args.app) {
  // --app: the page as `ocr parse` renders it (pdfjs, RGB), made grey
  const d = await openDocument(fs.readFileSync(pdf), { name: pdf });
  const r = await d.renderPage(pageNumber, { dpi: args.dpi });
  await d.close();
  ({ data: grey, info } = await sharp(r.data, { raw: { width: r.width, height: r.height, channels: 3 } })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true }));
} else {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "order-"));
  execFileSync("pdftoppm", [
    "-r",
    String(args.dpi),
    "-gray",
    "-f",
    String(pageNumber),
    "-l",
    String(pageNumber),
    "-png",
    pdf,
    path.join(tmp, "p"),
  ]);
  const png = fs.readdirSync(tmp).find((f) => f.endsWith(".png"));
  ({ data: grey, info } = await sharp(path.join(tmp, png)).greyscale().raw().toBuffer({ resolveWithObject: true }));
  fs.rmSync(tmp, { recursive: true });
}
const W = info.width,
  H = info.height;
// rotate about the centre (bilinear, white outside), as a page scanned a little askew; then noise
const theta = (args.skew * Math.PI) / 180,
  cos = Math.cos(theta),
  sin = Math.sin(theta);
const rotate = (x, y) => [W / 2 + (x - W / 2) * cos - (y - H / 2) * sin, H / 2 + (x - W / 2) * sin + (y - H / 2) * cos];
let pixels = grey;
if (theta !== 0 || args.noise) {
  pixels = Buffer.alloc(W * H);
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      // inverse rotation: where this output pixel comes from
      const sx = W / 2 + (x - W / 2) * cos + (y - H / 2) * sin,
        sy = H / 2 - (x - W / 2) * sin + (y - H / 2) * cos;
      const x0 = Math.floor(sx),
        y0 = Math.floor(sy),
        fx = sx - x0,
        fy = sy - y0;
      const at = (xx, yy) => (xx >= 0 && yy >= 0 && xx < W && yy < H ? grey[yy * W + xx] : 255);
      let v = (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
      if (args.noise) v = 0.9 * v + 12 + (rnd() - 0.5) * 40;
      pixels[y * W + x] = Math.max(0, Math.min(255, Math.round(v)));
    }
}
const rgb = Buffer.alloc(W * H * 3);
for (let i = 0; i < W * H; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = pixels[i];
if (args.save)
  await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toFile(args.save.replace(/\.json$/, ".png"));

const ort = (await import("onnxruntime-node")).default;
const bundle = path.join(root, "models/default");
const cfg = JSON.parse(fs.readFileSync(path.join(bundle, "model.json"), "utf8")).vision.lines;
const det = await ort.InferenceSession.create(path.join(bundle, cfg.detector), { intraOpNumThreads: 2 });
const page = { width: W, height: H, data: rgb };
const input = detectorInput(page, cfg.det_limit);
const r = await det.run({ pixels: new ort.Tensor("float32", input.input.data, input.input.dims) });
const found = boxesFromMap({ data: r.probability.data, dims: r.probability.dims }, input.scaleX, input.scaleY, cfg, W, H);

// the PDF's text in content order, each run's middle mapped into the page pixels
const doc = await openDocument(fs.readFileSync(pdf), { name: pdf });
const text = await doc.textContent(pageNumber);
await doc.close();
const s = args.dpi / 72;
const boxes = found.map((b) => [b.xMin, b.yMin, b.xMax, b.yMax].map((v) => Math.round(v)));
const runs = [];
text.runs.forEach((run, k) => {
  if (!run.text.trim()) return;
  const [x, y] = rotate((run.x + run.width / 2) * s, (run.baseline - 0.3 * run.fontSize) * s);
  runs.push([Math.round(x), Math.round(y), k]);
});
report(
  `${path.basename(pdf)} p${pageNumber} at ${args.dpi} DPI${args.app ? " (pdfjs)" : ""}${theta ? `, skew ${args.skew}°` : ""}${args.noise ? ", noise" : ""}`,
  boxes,
  runs,
);
if (args.save) {
  fs.writeFileSync(
    args.save,
    JSON.stringify({
      source: `${path.basename(pdf)} p${pageNumber}, ${args.dpi} DPI ${args.app ? "pdfjs" : "pdftoppm"} grey${theta ? `, rotated ${args.skew}°` : ""}${args.noise ? ", noise" : ""}`,
      width: W,
      height: H,
      boxes,
      runs,
    }) + "\n",
  );
}
