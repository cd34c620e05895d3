// Runs the line-unit vision front end of the default model (dist/vision/lines.js: detector, reading order,
// recogniser, CTC slots) over rasterised synthetic pages, so training sees exactly what inference computes.
// Usage: node scripts/train/extract-lines.mjs DIR [--bundle models/default] [--limit N] [--threads N] [--reorder | --boxes-only]
// For every DIR/doc-XXXXX.raster.json without lines yet writes DIR/doc-XXXXX.lines.json (per page: units with
// box, geometry, recogniser ids and text) and DIR/doc-XXXXX.lines.f32 (every slot's features, in unit order).
// --boxes-only writes DIR/doc-XXXXX.boxes.json instead: per page the detected line boxes the layout stage orders
// (deskew, detector, ink-gutter split, lines inside pictures left out; no recogniser), for training the learned
// reading order (layout-pairs.mjs). Both files keep each page's pictures and horizontal rules (`pictures`, `rules`:
// [x0, y0, x1, y1] in the page's pixels), which take part in XY-cut's order as they do when a page is read.
// --reorder instead puts the units of documents already extracted back into the reading order that
// dist/vision/lines.js gives their boxes now (and their geometry with it), without running the models again:
// for a change of reading order only.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import ort from "onnxruntime-node";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { detectedLines, orderLines, pageGeometry, pageUnits, parseDictionary } = await import(path.join(root, "dist/vision/lines.js"));
const { insidePicture, pictureRegions } = await import(path.join(root, "dist/vision/pictures.js"));
const { horizontalRules } = await import(path.join(root, "dist/layout/rules.js"));

const args = { dir: undefined, bundle: path.join(root, "models/default"), limit: Infinity, threads: 2, reorder: false, boxesOnly: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--bundle") args.bundle = process.argv[++i];
  else if (a === "--limit") args.limit = Number(process.argv[++i]);
  else if (a === "--threads") args.threads = Number(process.argv[++i]);
  else if (a === "--reorder") args.reorder = true;
  else if (a === "--boxes-only") args.boxesOnly = true;
  else args.dir = a;
}
if (!args.dir) throw new Error("usage: extract-lines.mjs DIR [--bundle DIR] [--limit N] [--threads N] [--reorder]");
if (args.reorder) {
  reorder(args.dir);
  process.exit(0);
}
const cfg = JSON.parse(fs.readFileSync(path.join(args.bundle, "model.json"), "utf8")).vision.lines;
const opts = { intraOpNumThreads: args.threads, graphOptimizationLevel: "all", enableMemPattern: false };
const det = await ort.InferenceSession.create(path.join(args.bundle, cfg.detector), opts);
const rec = await ort.InferenceSession.create(path.join(args.bundle, cfg.recogniser), opts);
const dictionary = parseDictionary(fs.readFileSync(path.join(args.bundle, cfg.dictionary), "utf8"));
const models = {
  async detect(t) {
    const r = await det.run({ pixels: new ort.Tensor("float32", t.data, t.dims) });
    const o = r.probability;
    return { data: o.data, dims: o.dims };
  },
  async recognise(t) {
    const r = await rec.run({ pixels: new ort.Tensor("float32", t.data, t.dims) });
    const out = (name) => ({ data: name === "best" ? Float32Array.from(r[name].data, Number) : r[name].data, dims: r[name].dims });
    return { best: out("best"), peak: out("peak"), features: out("features") };
  },
};

const docs = fs
  .readdirSync(args.dir)
  .filter((f) => /^doc-\d+\.raster\.json$/.test(f))
  .sort()
  .slice(0, args.limit);
let done = 0;
const started = performance.now();
if (args.boxesOnly) {
  for (const file of docs) {
    const base = path.join(args.dir, file.replace(/\.raster\.json$/, ""));
    if (fs.existsSync(base + ".boxes.json") || fs.existsSync(base + ".lines.json")) continue;
    const raster = JSON.parse(fs.readFileSync(path.join(args.dir, file), "utf8"));
    const pages = [];
    for (const pg of raster.pages) {
      const { page, found } = await detectedLines(await readPage(path.join(args.dir, pg.png)), models, cfg);
      // (as pageUnits reads a page: a picture's lines are not read, and pictures and rules take part in the order)
      const pictures = pictureRegions(page, found);
      const kept = pictures.length ? found.filter((b) => !insidePicture(b, pictures)) : found;
      pages.push({
        width: page.width,
        height: page.height,
        units: kept.map((b) => ({ box: boxOf(b) })),
        pictures: pictures.map(boxOf),
        rules: horizontalRules(page, kept).map(boxOf),
      });
    }
    fs.writeFileSync(base + ".boxes.json.tmp", JSON.stringify({ pages }));
    fs.renameSync(base + ".boxes.json.tmp", base + ".boxes.json");
    if (++done % 20 === 0)
      process.stderr.write(`${args.dir}: ${done} documents, ${((performance.now() - started) / done / 1000).toFixed(2)} s each\n`);
  }
  process.stderr.write(`${args.dir}: boxes of ${done} documents\n`);
  process.exit(0);
}
for (const file of docs) {
  const base = path.join(args.dir, file.replace(/\.raster\.json$/, ""));
  if (fs.existsSync(base + ".lines.json")) continue;
  const raster = JSON.parse(fs.readFileSync(path.join(args.dir, file), "utf8"));
  const pages = [];
  const chunks = [];
  for (const pg of raster.pages) {
    const page = await readPage(path.join(args.dir, pg.png));
    const { units, pictures, rules } = await pageUnits(page, models, cfg, dictionary);
    pages.push({
      width: page.width,
      height: page.height,
      pictures: pictures.map(boxOf),
      rules: rules.map(boxOf),
      units: units.map((u) => ({
        box: boxOf(u.box),
        score: Math.round(u.box.score * 1000) / 1000,
        geometry: round4(u.geometry),
        ids: Array.from(u.ids),
        text: u.text,
      })),
    });
    for (const u of units) chunks.push(Buffer.from(u.features.buffer, u.features.byteOffset, u.features.byteLength));
  }
  fs.writeFileSync(base + ".lines.f32.tmp", Buffer.concat(chunks));
  fs.renameSync(base + ".lines.f32.tmp", base + ".lines.f32");
  fs.writeFileSync(base + ".lines.json.tmp", JSON.stringify({ featureWidth: 124, pages }));
  fs.renameSync(base + ".lines.json.tmp", base + ".lines.json");
  if (++done % 20 === 0)
    process.stderr.write(`${args.dir}: ${done} documents, ${((performance.now() - started) / done / 1000).toFixed(2)} s each\n`);
}
process.stderr.write(`${args.dir}: extracted ${done} documents\n`);

/** A box as stored: [x0, y0, x1, y1], one decimal. */
function boxOf(b) {
  return [b.xMin, b.yMin, b.xMax, b.yMax].map((v) => Math.round(v * 10) / 10);
}

/** The page frame the layout stage orders a stored page's units in: its size, pictures and rules. */
function frameOf(page) {
  const extent = ([xMin, yMin, xMax, yMax]) => ({ xMin, yMin, xMax, yMax });
  return { width: page.width, height: page.height, pictures: (page.pictures ?? []).map(extent), rules: (page.rules ?? []).map(extent) };
}

/** Geometry as stored in .lines.json: four decimals. */
function round4(values) {
  return Array.from(values, (v) => Math.round(v * 1e4) / 1e4);
}

/** A page image as RGB pixels, as the product's front end takes them. */
async function readPage(file) {
  const { data, info } = await sharp(file).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: info.channels === 3 ? data : expand(data, info.channels) };
}

function expand(data, channels) {
  const n = data.length / channels;
  const out = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) out[i * 3] = out[i * 3 + 1] = out[i * 3 + 2] = data[i * channels];
  return out;
}

/** Re-sorts extracted units by the current reading order; rewrites (temporary file, then rename) only documents whose order changed. */
function reorder(dir) {
  let changed = 0,
    seen = 0;
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /^doc-\d+\.lines\.json$/.test(f))
    .sort()) {
    const base = path.join(dir, file.replace(/\.lines\.json$/, ""));
    const doc = JSON.parse(fs.readFileSync(base + ".lines.json", "utf8"));
    const feats = fs.readFileSync(base + ".lines.f32");
    const width = doc.featureWidth * 4;
    let offset = 0,
      moved = false;
    const chunks = [];
    for (const page of doc.pages) {
      const units = page.units.map((u) => {
        const bytes = u.ids.length * width;
        const at = offset;
        offset += bytes;
        return { ...u, xMin: u.box[0], yMin: u.box[1], xMax: u.box[2], yMax: u.box[3], chunk: feats.subarray(at, at + bytes) };
      });
      const ordered = orderLines(units, frameOf(page));
      if (ordered.some((u, i) => u !== units[i])) moved = true;
      const geometry = pageGeometry(ordered, page.width, page.height);
      page.units = ordered.map((u, k) => {
        chunks.push(u.chunk);
        return { box: u.box, score: u.score, geometry: round4(geometry[k]), ids: u.ids, text: u.text };
      });
    }
    if (offset !== feats.length) throw new Error(`${base}.lines.f32: ${feats.length} bytes, the units account for ${offset}`);
    seen++;
    if (!moved) continue;
    changed++;
    fs.writeFileSync(base + ".lines.f32.tmp", Buffer.concat(chunks));
    fs.renameSync(base + ".lines.f32.tmp", base + ".lines.f32");
    fs.writeFileSync(base + ".lines.json.tmp", JSON.stringify(doc));
    fs.renameSync(base + ".lines.json.tmp", base + ".lines.json");
  }
  process.stderr.write(`${dir}: ${changed} of ${seen} documents reordered\n`);
}
