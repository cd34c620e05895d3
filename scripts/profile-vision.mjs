#!/usr/bin/env node
// CPU time per stage of the default model's vision front end, pages one after another (no decoder running beside
// them), so the figures hold on a loaded machine where wall clock does not: process.cpuUsage() (every thread of
// the process, onnxruntime's included) read at each stage boundary of the page `timings` (src/vision/lines.ts).
//   node scripts/profile-vision.mjs [--model DIR] [--threads N] [--dpi D] FILE[:PAGE] ...
// Prints per page: render detect marks layout crops recognise project (ms CPU), lines, RSS after the page; then the
// totals with their shares, the recogniser's padded share of columns, and the CPU of imports and model load.
// Needs npm run build.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    model: { type: "string", default: path.join(root, "models/default") },
    threads: { type: "string", default: "1" },
    dpi: { type: "string", default: "150" },
  },
});
if (positionals.length === 0) {
  process.stderr.write("usage: node scripts/profile-vision.mjs [--model DIR] [--threads N] [--dpi D] FILE[:PAGE] ...\n");
  process.exit(2);
}
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const mib = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const c0 = cpu();
const { openDocument } = await import(path.join(root, "dist/input/index.js"));
const { loadBundle } = await import(path.join(root, "dist/model/bundle.js"));
const { LineEncoder } = await import(path.join(root, "dist/vision/line-encoder.js"));
const c1 = cpu();
const bundle = await loadBundle(o.model);
if (!bundle.json.vision.lines) {
  process.stderr.write(`${o.model}: not a line-unit model (vision.lines)\n`);
  process.exit(2);
}
const enc = await LineEncoder.open(bundle.dir, bundle.json.vision.lines, bundle.encoderPath, { threads: Number(o.threads) });
const c2 = cpu();

// the recogniser's input columns, and those that are padding (zero after normalisation, right of each line's last ink)
let columns = 0,
  padding = 0;
const models = LineEncoder.prototype.models;
LineEncoder.prototype.models = function (...args) {
  const m = models.apply(this, args);
  return {
    detect: m.detect,
    recognise: (t) => {
      const [n, , h, w] = t.dims;
      for (let j = 0; j < n; j++) {
        let last = 0;
        const plane = t.data.subarray(j * 3 * h * w, (j + 1) * 3 * h * w);
        for (let r = 0; r < 3 * h; r++)
          for (let x = w - 1; x > last; x--)
            if (plane[r * w + x] !== 0) {
              last = x;
              break;
            }
        padding += w - last - 1;
      }
      columns += n * w;
      return m.recognise(t);
    },
  };
};

const STAGES = ["render", "detect", "marks", "layout", "crops", "recognise", "project"];
const total = Object.fromEntries(STAGES.map((s) => [s, 0]));
const frame = { rowNewline: false, viewSeparator: false };
const pad = (s, n) => String(s).padStart(n);
console.log(`${"page".padEnd(36)}${STAGES.map((s) => pad(s, 10)).join("")}${pad("lines", 7)}${pad("RSS MiB", 9)}`);
for (const spec of positionals) {
  const at = spec.lastIndexOf(":");
  const [file, page] = at > 1 && /^\d+$/.test(spec.slice(at + 1)) ? [spec.slice(0, at), Number(spec.slice(at + 1))] : [spec, 1];
  const doc = await openDocument(readFileSync(file), { name: file });
  const stages = Object.fromEntries(STAGES.map((s) => [s, 0]));
  let last = cpu();
  const raster = await doc.renderPage(page, { dpi: Number(o.dpi) });
  stages.render = cpu() - last;
  last = cpu();
  // the front end adds each stage's wall time to its timings record: read the CPU clock at the same moments
  const clock = new Proxy(
    {},
    {
      set(t, k, v) {
        const now = cpu();
        stages[k] = (stages[k] ?? 0) + now - last;
        last = now;
        t[k] = v;
        return true;
      },
    },
  );
  const { views } = await enc.views(raster, bundle.json.decoder.hidden_size, frame, clock);
  await doc.close();
  for (const s of STAGES) total[s] += stages[s];
  console.log(
    `${`${path.basename(file)}:${page}`.padEnd(36)}${STAGES.map((s) => pad(stages[s].toFixed(0), 10)).join("")}${pad(views.length, 7)}${pad(mib(), 9)}`,
  );
}
const sum = STAGES.reduce((s, k) => s + total[k], 0);
console.log(`${"total ms CPU".padEnd(36)}${STAGES.map((s) => pad(total[s].toFixed(0), 10)).join("")}`);
console.log(`${"share".padEnd(36)}${STAGES.map((s) => pad(`${((100 * total[s]) / sum).toFixed(1)} %`, 10)).join("")}`);
console.log(`recogniser input: ${columns} columns, ${((100 * padding) / Math.max(1, columns)).toFixed(1)} % padding`);
console.log(`imports ${(c1 - c0).toFixed(0)} ms CPU, model load (3 ONNX sessions) ${(c2 - c1).toFixed(0)} ms CPU`);
await enc.close();
