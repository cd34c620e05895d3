// Each SIMD kernel set against the plain reference kernels: shapes around the vector width, tails, ties.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadBenchAddon, type NativeDtype } from "../../src/native/binding.js";
import { dequantizeRows, f16ToF32, quantizeRows, quantRowBytes } from "../../src/model/quantize.js";
import type { QuantFormat } from "../../src/model/safetensors.js";
import { nmse } from "../native/helpers.js";

const addon = loadBenchAddon();
const t = addon.testing;
const fastSets = addon.cpuFeatures.split(" ").filter((s) => s === "avx2" || s === "avx512" || s === "avx512bf16");

/**
 * Error bound of one output of a linear kernel, per unit of the sum of absolute products sum_i |x_i w_i|
 * (measuring against the result itself fails whenever the sum cancels: one row of 31 random products can
 * land near zero, and then any rounding is a large relative error).
 * - avx512bf16 with bf16 weights rounds each activation to bf16 (round to nearest even: relative error at
 *   most 2^-9) before its bf16 x bf16 products, which are exact in f32; each product is then off by at most
 *   2^-9 of its size, and the f32 sums add well under 2^-16 more: 2^-8 bounds it with room.
 * - Every other set computes the same f32 products as the reference and only sums them in another order
 *   (vector lanes, then a tree): at most n * 2^-24 of the absolute sum (Higham's gamma_n), doubled for
 *   the f16/bf16 -> f32 widening order.
 */
const productBound = (set: string, dt: NativeDtype, inF: number) => (set === "avx512bf16" && dt === "bf16" ? 2 ** -8 : inF * 2 ** -23);

/** Each output of `got` is within the set's bound of `want`, relative to its sum of absolute products. */
function expectWithinProducts(
  set: string,
  dt: NativeDtype,
  inF: number,
  got: Float32Array,
  want: Float32Array,
  absSum: Float32Array,
  what: string,
) {
  const bound = productBound(set, dt, inF);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!) / Math.max(absSum[i]!, 1e-30));
  expect(worst, what).toBeLessThanOrEqual(bound);
}

/** Rounds every value to bf16 (nearest even), as avx512bf16 rounds activations before its dot products. */
function roundBf16(x: Float32Array): Float32Array {
  const bits = new Uint32Array(Float32Array.from(x).buffer);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i]!;
    bits[i] = ((b + 0x7fff + ((b >>> 16) & 1)) & 0xffff0000) >>> 0;
  }
  return new Float32Array(bits.buffer);
}

/**
 * The set against the reference. avx512bf16 with bf16 weights is held to two bounds: against the reference
 * on bf16-rounded activations only the summation order differs (n * 2^-23, as every other set), which a
 * dropped or doubled product would break even for long rows; against the f32 reference, the rounding
 * itself (2^-8).
 */
function expectLinear(set: string, dt: NativeDtype, x: Float32Array, n: number, inF: number, wf: Float32Array, rows: number, what: string) {
  const w = weightBytes(dt, wf);
  const got = t.linearRows(set, x, n, inF, dt, w, 0, rows);
  const absSum = absProducts(x, n, inF, dt, wf, rows);
  expectWithinProducts(set, dt, inF, got, t.linearRows("ref", x, n, inF, dt, w, 0, rows), absSum, what);
  if (set === "avx512bf16" && dt === "bf16") {
    const rounded = t.linearRows("ref", roundBf16(x), n, inF, dt, w, 0, rows);
    expectWithinProducts("ref", dt, inF, got, rounded, absSum, `${what} (bf16-rounded activations)`);
  }
}

/** sum_i |x_i w_i| per output, through the reference kernel on absolute values (rounding is sign-symmetric). */
function absProducts(x: Float32Array, n: number, inF: number, dt: NativeDtype, w: Float32Array, rows: number): Float32Array {
  return t.linearRows("ref", x.map(Math.abs), n, inF, dt, weightBytes(dt, w.map(Math.abs)), 0, rows);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

function randomF32(n: number, r: () => number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => r() * 2 * scale);
}

function weightBytes(dtype: NativeDtype, values: Float32Array): Uint8Array {
  return t.toDtype(dtype, values);
}

describe("kernel sets on this CPU", () => {
  it("include at least the portable reference", () => {
    expect(addon.cpuFeatures.split(" ")).toContain("ref");
  });

  it("include every set the CPU's flags allow, so each is tested below (Linux: /proc/cpuinfo)", () => {
    let flags: Set<string>;
    try {
      flags = new Set((readFileSync("/proc/cpuinfo", "utf8").match(/^flags\s*:(.*)$/m)?.[1] ?? "").trim().split(/\s+/));
    } catch {
      return; // no /proc: the addon's own cpuid check is all there is
    }
    const has = (...f: string[]) => f.every((x) => flags.has(x));
    const expected = [
      ...(has("avx2", "fma", "f16c") ? ["avx2"] : []),
      ...(has("avx512f", "avx512bw", "avx512vl", "fma", "f16c") ? ["avx512"] : []),
      ...(has("avx512f", "avx512bw", "avx512vl", "fma", "f16c", "avx512_bf16") ? ["avx512bf16"] : []),
    ];
    expect([...fastSets].sort()).toEqual(expected.sort());
  });
});

describe.each(fastSets)("%s kernels vs reference", (set) => {
  const dtypes: NativeDtype[] = ["f32", "f16", "bf16"];
  it.each(dtypes)("linear_rows with %s weights: widths around the vector size, token and row tails (matrix-vector path)", (dt) => {
    const r = rng(42);
    for (const inF of [1, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100]) {
      for (const n of [1, 2, 3, 4, 5, 7]) {
        for (const rows of [1, 3, 4, 5, 9]) {
          expectLinear(set, dt, randomF32(n * inF, r), n, inF, randomF32(rows * inF, r), rows, `in=${inF} n=${n} rows=${rows}`);
        }
      }
    }
  });

  it.each(dtypes)("linear_rows with %s weights: packed prefill panels (n >= 32), k-blocks, panel and token tails", (dt) => {
    const r = rng(43);
    for (const inF of [5, 16, 255, 256, 257, 600]) {
      for (const n of [32, 37, 45]) {
        for (const rows of [1, 15, 16, 17, 33, 50]) {
          expectLinear(set, dt, randomF32(n * inF, r), n, inF, randomF32(rows * inF, r), rows, `in=${inF} n=${n} rows=${rows}`);
        }
      }
    }
  });

  it("silu_mul: lengths around the vector width, gates far into both tails", () => {
    const r = rng(44);
    for (const len of [1, 7, 8, 9, 15, 16, 17, 33, 100, 1000]) {
      for (const scale of [1, 8, 120]) {
        const g = randomF32(len, r, scale);
        const u = randomF32(len, r);
        const want = t.siluMul("ref", g, u);
        const got = t.siluMul(set, g, u);
        // The polynomial exp (~1 ulp) is the only difference from the reference's std::exp.
        expect(nmse(got, want), `len=${len} scale=${scale}`).toBeLessThan(1e-12);
        for (let i = 0; i < len; i++) {
          if (g[i]! > 30) expect(got[i]).toBeCloseTo(g[i]! * u[i]!, 3); // silu(g) = g when exp(-g) is negligible
          if (g[i]! < -30) expect(Math.abs(got[i]!)).toBeLessThan(1e-9); // and 0 far below
        }
      }
    }
  });

  it.each(["f32", "bf16"] as NativeDtype[])("linear_rows with %s weights: a row split never changes a result (bitwise)", (dt) => {
    for (const n of [6, 40]) splitCheck(dt, n);
  });

  function splitCheck(dt: NativeDtype, n: number) {
    const r = rng(7);
    const inF = 37,
      rows = 11;
    const x = randomF32(n * inF, r);
    const w = weightBytes(dt, randomF32(rows * inF, r));
    const whole = t.linearRows(set, x, n, inF, dt, w, 0, rows);
    for (const cut of [1, 4, 5, 10]) {
      const a = t.linearRows(set, x, n, inF, dt, w, 0, cut);
      const b = t.linearRows(set, x, n, inF, dt, w, cut, rows);
      for (let tok = 0; tok < n; tok++)
        for (let o = 0; o < rows; o++) {
          const got = o < cut ? a[tok * cut + o] : b[tok * (rows - cut) + (o - cut)];
          expect(got).toBe(whole[tok * rows + o]);
        }
    }
  }

  it.each(dtypes)("attention with a %s cache: slot lists, GQA, window edges, a fully masked query", (kvDt) => {
    const r = rng(3);
    for (const [heads, kvHeads, d] of [
      [4, 2, 16],
      [2, 2, 9],
      [3, 1, 33],
    ] as const) {
      const cap = 20;
      const k = randomF32(cap * kvHeads * d, r, 2);
      const v = randomF32(cap * kvHeads * d, r);
      // Keys in a scrambled slot order (as after retiring and reusing slots).
      const slots = Int32Array.from([5, 0, 19, 7, 3, 11, 12, 1, 8, 2, 17, 16]);
      const visible = Int32Array.from([0, 1, 2, slots.length - 1, slots.length, 7]);
      const nq = visible.length;
      const q = randomF32(nq * heads * d, r, 2);
      const want = t.attention("reference", q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 1);
      for (const threads of [1, 2]) {
        const got = t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, threads);
        expect(nmse(got, want), `h=${heads}/${kvHeads} d=${d} threads=${threads}`).toBeLessThan(1e-11);
        // The query that sees nothing gets zeros, not NaN.
        expect(Array.from(got.subarray(0, heads * d)).every((x) => x === 0)).toBe(true);
      }
    }
  });

  it.each(dtypes)("decode-step attention with a %s cache: 10 heads x 128, hundreds of keys in scrambled slots", (kvDt) => {
    // One query, as a decode step: long enough for the score and weighted-sum passes' prefetch (16 keys ahead)
    // and their 8- and 4-key blocks to run many times, with key counts that leave every remainder.
    const r = rng(4);
    const heads = 10,
      d = 128,
      cap = 400;
    const k = randomF32(cap * heads * d, r, 0.5);
    const v = randomF32(cap * heads * d, r);
    const perm = Int32Array.from({ length: cap }, (_, i) => (i * 151 + 7) % cap);
    for (const n of [17, 24, 299, 331]) {
      const slots = perm.slice(0, n);
      const visible = Int32Array.of(n);
      const q = randomF32(heads * d, r, 0.5);
      const want = t.attention("reference", q, 1, heads, heads, d, kvDt, k, v, slots, visible, 1);
      const one = t.attention(set, q, 1, heads, heads, d, kvDt, k, v, slots, visible, 1);
      expect(nmse(one, want), `n=${n}`).toBeLessThan(1e-11);
      expect(t.attention(set, q, 1, heads, heads, d, kvDt, k, v, slots, visible, 2), `n=${n}`).toEqual(one);
    }
  });
});

// Prefill takes the blocked path (query tiles of 48 / group rows against key tiles of 64, online softmax); the
// per-query path and the plain reference stay the ground truth. Key lists are built the way the session builds them.
describe.each(["ref", ...fastSets])("%s blocked prefill attention vs the per-query reference", (set) => {
  // Keys as a session lists them for a prefill of nq entries: `old` live entries before it (a prefix, retired
  // ranges left out, an R-SWA ring of generated entries in ring order), then the new entries, each query seeing
  // the old keys and the new ones up to itself. Slots are scrambled, as after retiring and reusing them.
  function prefillCase(r: () => number, old: number, nq: number) {
    const n = old + nq;
    const cap = n + 37;
    const perm = Int32Array.from({ length: cap }, (_, i) => i);
    for (let i = cap - 1; i > 0; i--) {
      const j = Math.floor((r() + 0.5) * (i + 1)) % (i + 1);
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    const slots = perm.slice(0, n);
    const visible = Int32Array.from({ length: nq }, (_, i) => old + i + 1);
    return { cap, slots, visible };
  }

  const shapes = [
    [4, 2, 16],
    [2, 2, 9],
    [3, 1, 33],
    [5, 5, 40],
  ] as const;
  it.each(["f32", "f16", "bf16"] as NativeDtype[])("%s cache: tile remainders, causal diagonal, GQA, odd head sizes", (kvDt) => {
    const r = rng(11);
    for (const [heads, kvHeads, d] of shapes) {
      // old/nq around the key tile (64) and the query tile (48 / group rows), a single query, a long tail.
      for (const [old, nq] of [
        [0, 1],
        [0, 8],
        [0, 23],
        [63, 9],
        [64, 48],
        [65, 49],
        [0, 130],
        [130, 97],
      ] as const) {
        const { cap, slots, visible } = prefillCase(r, old, nq);
        const k = randomF32(cap * kvHeads * d, r, 2);
        const v = randomF32(cap * kvHeads * d, r);
        const q = randomF32(nq * heads * d, r, 2);
        const want = t.attention("reference", q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 1);
        const perQuery = t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 1, "per-query");
        const one = t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 1, "blocked");
        const two = t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 2, "blocked");
        const what = `h=${heads}/${kvHeads} d=${d} old=${old} nq=${nq}`;
        expect(nmse(one, want), what).toBeLessThan(1e-11);
        expect(nmse(one, perQuery), what).toBeLessThan(1e-11);
        expect(two, what).toEqual(one); // any thread count, the same bits
        if (nq >= 8) expect(t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 2), what).toEqual(one);
      }
    }
  });

  it("any visible counts: zeros, a window boundary mid-tile, non-monotone rows, a key tile seen by one row only", () => {
    const r = rng(12);
    const heads = 4,
      kvHeads = 2,
      d = 24;
    const cap = 300;
    const slots = Int32Array.from({ length: 200 }, (_, i) => (i * 37 + 11) % cap);
    const visible = Int32Array.from([0, 1, 63, 64, 65, 0, 128, 127, 129, 200, 5, 0, 100, 64, 190, 17, 2, 3, 199, 0, 66]);
    const nq = visible.length;
    const k = randomF32(cap * kvHeads * d, r, 3);
    const v = randomF32(cap * kvHeads * d, r);
    const q = randomF32(nq * heads * d, r, 3);
    for (const kvDt of ["f32", "bf16"] as NativeDtype[]) {
      const want = t.attention("reference", q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 1);
      const got = t.attention(set, q, nq, heads, kvHeads, d, kvDt, k, v, slots, visible, 2, "blocked");
      expect(nmse(got, want), kvDt).toBeLessThan(1e-11);
      visible.forEach((vis, i) => {
        if (vis === 0) expect(Array.from(got.subarray(i * heads * d, (i + 1) * heads * d)).every((x) => x === 0)).toBe(true);
      });
    }
  });

  it("scores far apart (a large running max early, a larger one later) keep the online softmax exact", () => {
    const r = rng(13);
    const heads = 2,
      kvHeads = 1,
      d = 16,
      n = 200;
    const k = randomF32(n * d, r, 1);
    for (let i = 0; i < d; i++) {
      k[10 * d + i] = 6; // key 10 dominates the first tile, key 150 (third tile) dominates later
      k[150 * d + i] = 9;
    }
    const v = randomF32(n * d, r);
    const q = Float32Array.from({ length: n * heads * d }, () => 1 + r());
    const slots = Int32Array.from({ length: n }, (_, i) => i);
    const visible = Int32Array.from({ length: n }, (_, i) => i + 1);
    const want = t.attention("reference", q, n, heads, kvHeads, d, "f32", k, v, slots, visible, 1);
    const got = t.attention(set, q, n, heads, kvHeads, d, "f32", k, v, slots, visible, 2, "blocked");
    expect(got.every(Number.isFinite)).toBe(true);
    expect(nmse(got, want)).toBeLessThan(1e-11);
  });
});

describe("reference kernels", () => {
  it("attention of one visible key returns its value row", () => {
    const heads = 2,
      kvHeads = 1,
      d = 4;
    const k = Float32Array.from([1, 2, 3, 4, 9, 9, 9, 9]);
    const v = Float32Array.from([0.5, -1, 2, 3, 7, 7, 7, 7]);
    const q = Float32Array.from([1, 0, 0, 1, 0, 1, 1, 0]);
    const out = t.attention("reference", q, 1, heads, kvHeads, d, "f32", k, v, Int32Array.from([0]), Int32Array.from([1]), 1);
    expect(Array.from(out)).toEqual([0.5, -1, 2, 3, 0.5, -1, 2, 3]);
  });

  it("silu_mul is silu(g) * u", () => {
    const g = Float32Array.from([-100, -3, -0.5, 0, 0.25, 2, 40]);
    const u = Float32Array.from([2, -1, 3, 5, -2, 0.5, 1]);
    const h = t.siluMul("ref", g, u);
    g.forEach((a, i) => expect(h[i]).toBeCloseTo((a / (1 + Math.exp(-a))) * u[i]!, 5));
  });

  it("MoE routing: softmax top-k with ties broken by the lowest expert index", () => {
    const logits = Float32Array.from([0.5, 2, 1, 2, 2, -1]);
    const r = t.routeTopk(logits, 3, false, 1);
    expect(Array.from(r.ids)).toEqual([1, 3, 4]);
    const e = Array.from(logits, Math.exp);
    const z = e.reduce((a, b) => a + b, 0);
    for (const w of r.weights) expect(w).toBeCloseTo(Math.exp(2) / z, 6);
    const tie2 = t.routeTopk(Float32Array.from([1, 1, 1, 1]), 2, false, 1);
    expect(Array.from(tie2.ids)).toEqual([0, 1]);
  });

  it("MoE routing: renormalised top-k ignores the scaling factor; otherwise the factor multiplies", () => {
    const logits = Float32Array.from([3, 1, 0, 2]);
    const norm = t.routeTopk(logits, 2, true, 2.5);
    expect(Array.from(norm.ids)).toEqual([0, 3]);
    expect(norm.weights[0]! + norm.weights[1]!).toBeCloseTo(1, 6);
    expect(norm.weights[0]! / norm.weights[1]!).toBeCloseTo(Math.E, 5);
    const scaled = t.routeTopk(logits, 2, false, 2.5);
    const z = Array.from(logits, Math.exp).reduce((a, b) => a + b, 0);
    expect(scaled.weights[0]).toBeCloseTo((2.5 * Math.exp(3)) / z, 6);
  });

  it("focal selection: linear-time top-k equals the full sort, ties to the lowest index, ascending", () => {
    const r = rng(11);
    // Ties on purpose: values from a small set, so many keys share the k-th largest mean.
    const coarse = (n: number) => Float32Array.from({ length: n }, () => Math.round((r() + 0.5) * 4) / 8);
    for (const [heads, n, k] of [
      [1, 1, 1],
      [3, 7, 1],
      [3, 7, 3],
      [10, 40, 2],
      [10, 40, 39],
      [10, 40, 40],
      [4, 257, 13],
      [2, 1000, 50],
    ] as const) {
      for (const probs of [coarse(heads * n), randomF32(heads * n, r)]) {
        const fast = t.focalSelect(probs, heads, k, false);
        expect(Array.from(fast)).toEqual(Array.from(t.focalSelect(probs, heads, k, true)));
        expect(fast.length).toBe(k);
        for (let i = 1; i < k; i++) expect(fast[i]!).toBeGreaterThan(fast[i - 1]!);
      }
    }
    // All equal: the first k indices.
    expect(Array.from(t.focalSelect(new Float32Array(2 * 9).fill(0.25), 2, 4, false))).toEqual([0, 1, 2, 3]);
    // One key ahead, the rest tied: it, then the lowest tied indices.
    const p = new Float32Array(6).fill(0.1);
    p[4] = 0.5;
    expect(Array.from(t.focalSelect(p, 1, 3, false))).toEqual([0, 1, 4]);
  });

  it("f32 to bf16 rounds to nearest even", () => {
    const f = new Float32Array(4);
    const u = new Uint32Array(f.buffer);
    u[0] = 0x3f808000; // exactly halfway between 0x3f80 and 0x3f81: ties to even (0x3f80)
    u[1] = 0x3f818000; // halfway between 0x3f81 and 0x3f82: ties to even (0x3f82)
    u[2] = 0x3f808001; // above halfway: rounds up
    u[3] = 0x7fc00001; // NaN stays NaN
    const b = new Uint16Array(t.toDtype("bf16", f).buffer);
    expect(Array.from(b.subarray(0, 3))).toEqual([0x3f80, 0x3f82, 0x3f81]);
    expect((b[3]! & 0x7f80) === 0x7f80 && (b[3]! & 0x7f) !== 0).toBe(true);
  });

  it("f32 to f16 handles normals, subnormals, overflow", () => {
    const h = new Uint16Array(t.toDtype("f16", Float32Array.from([1, -2, 65504, 1e6, 2 ** -24, 0.1])).buffer);
    expect(Array.from(h)).toEqual([0x3c00, 0xc000, 0x7bff, 0x7c00, 0x0001, 0x2e66]);
  });
});

/**
 * Block-quantised weights (q8_0, q4_1; ops/common.h), quantised by the bundle quantiser (src/model/quantize.ts).
 * The reference reads each weight as d * q (+ m), which the JS dequantiser reproduces bit for bit, so on the reference
 * set a quantised matrix gives exactly the f32 result on its dequantised weights. The SIMD sets dequantise the same
 * values in registers (n > 1) or, for the matrix-vector path, sum q * x per 32-weight block and scale the block sum by
 * d (plus m times the block's sum of x): only the order and grouping of the f32 operations differ, so every output is
 * within in * 2^-23 of the reference relative to sum_k |x_k| (|d q_k| + |m|) (Higham's gamma_n on the terms as grouped).
 */
const quantFormats: QuantFormat[] = ["q8_0", "q4_1"];

function quantized(format: QuantFormat, wf: Float32Array, rows: number, cols: number): Uint8Array {
  const out = new Uint8Array(rows * quantRowBytes(format, cols));
  quantizeRows(format, wf, rows, cols, out);
  return out;
}

/** |d q| + |m| per weight: the size of the terms the quantised kernels add. */
function quantTermSizes(format: QuantFormat, bytes: Uint8Array, rows: number, cols: number): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(rows * cols);
  const bb = format === "q8_0" ? 34 : 20;
  for (let b = 0; b < (rows * cols) / 32; b++) {
    const d = Math.abs(f16ToF32(view.getUint16(b * bb, true)));
    const m = format === "q4_1" ? Math.abs(f16ToF32(view.getUint16(b * bb + 2, true))) : 0;
    for (let j = 0; j < 32; j++) {
      const q =
        format === "q8_0"
          ? Math.abs(view.getInt8(b * bb + 2 + j))
          : j < 16
            ? bytes[b * bb + 4 + j]! & 15
            : bytes[b * bb + 4 + j - 16]! >> 4;
      out[b * 32 + j] = d * q + m;
    }
  }
  return out;
}

/**
 * One kernel set on quantised weights against the reference over shapes and token counts. With the int8 decode path
 * on (n = 1 on a CPU with AVX-VNNI) the activations are rounded to int8 blocks (dx_b = max|x_b| / 127), which moves
 * each output by at most sum_b (dx_b / 2) sum_j |w_j| beyond the f32 bound; everything else is held to the f32 bound.
 */
function checkQuant(set: string, format: QuantFormat, seed: number, tokenCounts: number[], int8: boolean) {
  const r = rng(seed);
  expect(t.setInt8Decode(int8, set)).toBe(int8);
  for (const inF of [32, 64, 96, 256, 1280]) {
    for (const n of tokenCounts) {
      for (const rows of [1, 3, 4, 5, 9, 17, 33]) {
        const x = randomF32(n * inF, r);
        // a per-row offset, so q4_1's minimum is far from zero in some blocks
        const wf = Float32Array.from({ length: rows * inF }, (_, i) => r() * 2 + (Math.floor(i / inF) % 3) * 0.75);
        const wq = quantized(format, wf, rows, inF);
        const what = `${format} in=${inF} n=${n} rows=${rows}`;
        const want = t.linearRows("ref", x, n, inF, "f32", t.toDtype("f32", dequantizeRows(format, wq, rows, inF)), 0, rows);
        const got = t.linearRows(set, x, n, inF, format, wq, 0, rows);
        if (set === "ref") expect(Array.from(got), what).toEqual(Array.from(want));
        else {
          const sizes = t.toDtype("f32", quantTermSizes(format, wq, rows, inF));
          const absSum = t.linearRows("ref", x.map(Math.abs), n, inF, "f32", sizes, 0, rows);
          const bound = productBound(set, "f32", inF);
          const extra =
            int8 && n === 1 ? t.linearRows("ref", activationSteps(x), 1, inF, "f32", sizes, 0, rows) : new Float32Array(rows * n);
          let worst = 0;
          for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!) - extra[i]! - bound * absSum[i]!);
          expect(worst, what).toBeLessThanOrEqual(0);
        }
        // a thread's share of the rows gives the same bits as the whole pass
        if (rows > 3) {
          const part = t.linearRows(set, x, n, inF, format, wq, 3, rows);
          for (let tok = 0; tok < n; tok++)
            expect(Array.from(part.subarray(tok * (rows - 3), (tok + 1) * (rows - 3))), `${what} rows 3..`).toEqual(
              Array.from(got.subarray(tok * rows + 3, (tok + 1) * rows)),
            );
        }
      }
    }
  }
}

/** Half a rounding step of each activation's int8 block (dx_b / 2 with dx_b = max|x_b| / 127), with slack for f32. */
function activationSteps(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let b = 0; b < x.length; b += 32) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b + j]!));
    out.fill((amax / 127) * (0.5 + 2 ** -16), b, b + 32);
  }
  return out;
}

describe.each(["ref", ...fastSets])("%s kernels with block-quantised weights", (set) => {
  const int8 = t.setInt8Decode(true, set); // whether this set has an int8 decode path here (AVX-VNNI, AVX512-VNNI)
  it.each(quantFormats)(
    "linear_rows with %s weights: matrix-vector, register blocks and packed panels, row ranges (f32 path)",
    (format) => {
      try {
        checkQuant(set, format, format === "q8_0" ? 45 : 46, [1, 2, 3, 5, 7, 32, 37], false);
      } finally {
        t.setInt8Decode(true);
      }
    },
  );

  it.runIf(set !== "ref" && int8).each(quantFormats)("linear_rows with %s weights, decode with int8 activations (VNNI)", (format) => {
    checkQuant(set, format, format === "q8_0" ? 47 : 48, [1], true);
  });

  // where the CPU has AVX512-VBMI the 512-bit q4_1 decode runs its own loop (above); the loop without it, here
  const vbmi = t.setInt8Q4Vbmi(true);
  it.runIf(set.startsWith("avx512") && int8 && vbmi)("linear_rows with q4_1 weights, int8 decode without the AVX512-VBMI loop", () => {
    expect(t.setInt8Q4Vbmi(false)).toBe(false);
    try {
      checkQuant(set, "q4_1", 49, [1], true);
    } finally {
      t.setInt8Q4Vbmi(true);
    }
  });

  it("rejects rows that are not whole blocks", () => {
    expect(() => t.linearRows(set, new Float32Array(40), 1, 40, "q8_0", new Uint8Array(68), 0, 1)).toThrow(/whole blocks of 32/);
  });
});
