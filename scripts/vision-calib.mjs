// Calibration tensors for the int8 quantiser (python/ocr_tools/train/quantize_ppocr.py): the inputs the default
// model's line front end gives its detector and recogniser on real pages, exactly as `ocr parse` builds them
// (deskew, detector input, line crops grouped by width, margin marks), written as raw float32 files named by shape.
//
//   node scripts/vision-calib.mjs --out DIR [--model DIR] [--dpi 150] FILE[:PAGE] ...
//
// Writes DIR/detector/NNNNN-1x3xHxW.f32 and DIR/recogniser/NNNNN-NxCxHxW.f32 (one per recogniser call). Pages are
// PDFs (page 1 unless :PAGE) or images. Use pages that are not in an evaluation set. Needs npm run build.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: "string" },
    model: { type: "string", default: path.join(root, "models/default") },
    dpi: { type: "string", default: "150" },
  },
});
if (!o.out || positionals.length === 0) {
  process.stderr.write("usage: node scripts/vision-calib.mjs --out DIR [--model DIR] [--dpi 150] FILE[:PAGE] ...\n");
  process.exit(2);
}
const { openDocument } = await import(path.join(root, "dist/input/index.js"));
const { loadBundle } = await import(path.join(root, "dist/model/bundle.js"));
const { LineEncoder } = await import(path.join(root, "dist/vision/line-encoder.js"));
const bundle = await loadBundle(o.model);
if (!bundle.json.vision.lines) {
  process.stderr.write(`${o.model}: not a line-unit model (vision.lines)\n`);
  process.exit(2);
}
const dirs = { detector: path.join(o.out, "detector"), recogniser: path.join(o.out, "recogniser") };
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const written = { detector: 0, recogniser: 0 };
const save = (kind, t) => {
  const name = `${String(written[kind]++).padStart(5, "0")}-${t.dims.join("x")}.f32`;
  writeFileSync(path.join(dirs[kind], name), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
};
// the front end hands each input's buffer to the onnxruntime thread: write it before the call
const models = LineEncoder.prototype.models;
LineEncoder.prototype.models = function (...args) {
  const m = models.apply(this, args);
  return {
    ...m,
    detect: (t) => (save("detector", t), m.detect(t)),
    recognise: (t) => (save("recogniser", t), m.recognise(t)),
  };
};
const enc = await LineEncoder.open(bundle.dir, bundle.json.vision.lines, bundle.encoderPath, { threads: 1 });
const frame = { rowNewline: false, viewSeparator: false };
try {
  for (const spec of positionals) {
    const at = spec.lastIndexOf(":");
    const [file, page] = at > 1 && /^\d+$/.test(spec.slice(at + 1)) ? [spec.slice(0, at), Number(spec.slice(at + 1))] : [spec, 1];
    const doc = await openDocument(readFileSync(file), { name: file });
    try {
      await enc.views(await doc.renderPage(page, { dpi: Number(o.dpi) }), bundle.json.decoder.hidden_size, frame);
    } finally {
      await doc.close();
    }
  }
} finally {
  await enc.close();
}
process.stderr.write(`vision-calib: ${written.detector} detector and ${written.recogniser} recogniser inputs in ${o.out}\n`);
