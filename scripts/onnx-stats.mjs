// Tensor statistics of an ONNX model over input tensors, in onnxruntime-node (one thread): what the int8 quantiser
// (python/ocr_tools/train/quantize_ppocr.py) needs from the float model, and how far its result is from it.
//
//   node scripts/onnx-stats.mjs stats MODEL.onnx OUT.json INPUT.f32...
//     every float32 output of MODEL (the quantiser adds the tensors it wants as outputs): min and max over all
//     inputs, then a 2048-bin histogram over [min, max] and, for a rank-4 [N, C, H, W] tensor, the mean of each C.
//   node scripts/onnx-stats.mjs compare REFERENCE.onnx CANDIDATE.onnx INPUT.f32...
//     prints JSON: per float output its relative L2 error (‖cand − ref‖ / ‖ref‖); per integer output of rank 2
//     [rows, steps] (a CTC model's best class per step) the edit distance of the greedy CTC readings (runs
//     collapsed, class 0 dropped) over the reference's length.
//
// INPUT.f32 is raw little-endian float32 named NAME-D0xD1x…Dn.f32 (its shape), fed to the model's single input
// (scripts/vision-calib.mjs writes the line front end's).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ort from "onnxruntime-node";

const BINS = 2048;

function fail(message) {
  process.stderr.write(`onnx-stats: ${message}\n`);
  process.exit(2);
}

/** The tensor stored in FILE, its shape read from the name. */
function readInput(file) {
  const m = /-(\d+(?:x\d+)*)\.f32$/.exec(path.basename(file));
  if (!m) fail(`${file}: not NAME-D0xD1x…Dn.f32`);
  const dims = m[1].split("x").map(Number);
  const buf = readFileSync(file);
  const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  if (data.length !== dims.reduce((a, b) => a * b, 1)) fail(`${file}: ${data.length} floats, not ${dims.join("x")}`);
  return new ort.Tensor("float32", data, dims);
}

async function session(file) {
  const s = await ort.InferenceSession.create(file, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "basic" });
  if (s.inputNames.length !== 1) fail(`${file}: ${s.inputNames.length} inputs (one expected)`);
  return s;
}

async function stats(model, out, files) {
  const s = await session(model);
  const range = {};
  for (const f of files) {
    const r = await s.run({ [s.inputNames[0]]: readInput(f) });
    for (const [name, t] of Object.entries(r)) {
      if (!(t.data instanceof Float32Array)) continue;
      const e = (range[name] ??= { min: Infinity, max: -Infinity });
      for (const v of t.data) {
        if (v < e.min) e.min = v;
        if (v > e.max) e.max = v;
      }
    }
  }
  const hist = {};
  const sums = {};
  const counts = {};
  for (const f of files) {
    const r = await s.run({ [s.inputNames[0]]: readInput(f) });
    for (const [name, t] of Object.entries(r)) {
      const e = range[name];
      if (!e) continue;
      const h = (hist[name] ??= new Float64Array(BINS));
      const scale = e.max > e.min ? BINS / (e.max - e.min) : 0;
      for (const v of t.data) h[Math.min(BINS - 1, Math.floor((v - e.min) * scale))]++;
      if (t.dims.length !== 4) continue;
      const [n, c, hh, ww] = t.dims;
      const plane = hh * ww;
      const sum = (sums[name] ??= new Float64Array(c));
      counts[name] = (counts[name] ?? 0) + n * plane;
      for (let i = 0; i < n; i++)
        for (let j = 0; j < c; j++) {
          let a = 0;
          for (let q = (i * c + j) * plane, end = q + plane; q < end; q++) a += t.data[q];
          sum[j] += a;
        }
    }
  }
  const result = {};
  for (const [name, e] of Object.entries(range))
    result[name] = {
      min: e.min,
      max: e.max,
      hist: Array.from(hist[name]),
      ...(sums[name] ? { mean: Array.from(sums[name], (v) => v / counts[name]) } : {}),
    };
  writeFileSync(out, JSON.stringify(result));
}

/** The greedy CTC reading of row `j` of [rows, steps] classes: runs collapsed, class 0 (blank) dropped. */
function ctcReading(data, j, steps) {
  const out = [];
  for (let t = 0; t < steps; t++) {
    const c = Number(data[j * steps + t]);
    if (c !== 0 && (t === 0 || Number(data[j * steps + t - 1]) !== c)) out.push(c);
  }
  return out;
}

function editDistance(a, b) {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return d[b.length];
}

async function compare(reference, candidate, files) {
  const a = await session(reference);
  const b = await session(candidate);
  const acc = {};
  for (const f of files) {
    const x = readInput(f);
    const ra = await a.run({ [a.inputNames[0]]: x });
    const rb = await b.run({ [b.inputNames[0]]: x });
    for (const [name, ta] of Object.entries(ra)) {
      const tb = rb[name];
      if (!tb) fail(`${candidate} has no output ${name}`);
      if (ta.data instanceof Float32Array) {
        const e = (acc[name] ??= { err: 0, norm: 0 });
        for (let i = 0; i < ta.data.length; i++) {
          e.err += (ta.data[i] - tb.data[i]) ** 2;
          e.norm += ta.data[i] ** 2;
        }
      } else if (ta.dims.length === 2) {
        const e = (acc[name] ??= { edits: 0, length: 0 });
        const [rows, steps] = ta.dims;
        for (let j = 0; j < rows; j++) {
          const ref = ctcReading(ta.data, j, steps);
          e.edits += editDistance(ref, ctcReading(tb.data, j, steps));
          e.length += ref.length;
        }
      }
    }
  }
  const result = {};
  for (const [name, e] of Object.entries(acc))
    result[name] =
      "norm" in e ? { relL2: Math.sqrt(e.err / Math.max(e.norm, 1e-30)) } : { ctcCER: e.edits / Math.max(1, e.length), symbols: e.length };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === "stats" && args.length >= 3) await stats(args[0], args[1], args.slice(2));
else if (mode === "compare" && args.length >= 3) await compare(args[0], args[1], args.slice(2));
else fail("usage: node scripts/onnx-stats.mjs stats MODEL OUT.json INPUT.f32... | compare REFERENCE CANDIDATE INPUT.f32...");
