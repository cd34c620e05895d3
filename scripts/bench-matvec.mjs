#!/usr/bin/env node
// Single-thread matrix-vector probe of the kernel sets (decode's inner loop, bench addon `linearRows`): weights of a
// random [rows, in] matrix in each dtype, best of REPS x CALLS calls, in G weights/s and GB/s of weights read.
// Usage: node scripts/bench-matvec.mjs [rows=16384] [in=1280] [sets=avx2,avx512] [dtypes=bf16,q8_0,q4_1]
//        env REPS (5), CALLS (20), INT8=0 (the f32 path for quantised weights instead of int8 activations), VBMI=0
//        (the 512-bit int8 loops without AVX512-VBMI where the CPU has it).
// Needs `npm run build` and the native addons. Not a test: the figures depend on the machine and its load.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { loadBenchAddon } = await import(pathToFileURL(path.join(repo, "dist/native/index.js")).href);
const { quantizeRows, quantRowBytes } = await import(pathToFileURL(path.join(repo, "dist/model/quantize.js")).href);
const t = loadBenchAddon().testing;
const rows = Number(process.argv[2] ?? 16384);
const inF = Number(process.argv[3] ?? 1280);
const sets = (process.argv[4] ?? "avx2,avx512").split(",");
const dtypes = (process.argv[5] ?? "bf16,q8_0,q4_1").split(",");
const calls = Number(process.env.CALLS ?? 20);
const reps = Number(process.env.REPS ?? 5);
const int8 = process.env.INT8 !== "0";
const vbmi = t.setInt8Q4Vbmi(process.env.VBMI !== "0");

let seed = 1;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
const wf = Float32Array.from({ length: rows * inF }, () => rnd() * 0.04);
const x = Float32Array.from({ length: inF }, () => rnd());
const bytes = {};
for (const dt of dtypes) {
  if (dt === "q8_0" || dt === "q4_1") {
    bytes[dt] = new Uint8Array(rows * quantRowBytes(dt, inF));
    quantizeRows(dt, wf, rows, inF, bytes[dt]);
  } else bytes[dt] = t.toDtype(dt, wf);
}
const out = [];
for (const dt of dtypes)
  for (const set of sets) {
    const path8 = t.setInt8Decode(int8, set);
    let best = Number.POSITIVE_INFINITY;
    for (let r = 0; r < reps; r++) {
      const t0 = process.hrtime.bigint();
      for (let c = 0; c < calls; c++) t.linearRows(set, x, 1, inF, dt, bytes[dt], 0, rows);
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9 / calls);
    }
    const gw = (rows * inF) / best / 1e9;
    const q = dt.startsWith("q") ? (path8 ? (vbmi && set.startsWith("avx512") ? " int8 vbmi" : " int8") : " f32") : "";
    out.push(`${dt} ${set}${q}: ${gw.toFixed(1)} Gw/s ${((gw * bytes[dt].length) / (rows * inF)).toFixed(1)} GB/s`);
  }
console.log(`matvec ${rows} x ${inF}, 1 thread: ${out.join(" | ")}`);
