// The learned reading order of a page's detected lines: a small pairwise model (trained on the real-document
// corpus by python/ocr_tools/train/layout_train.py) scores "line a is read before line b" from the two boxes, the page's
// geometry and XY-cut's own order, and the lines are read by their summed wins (a Borda count). XY-cut's order is
// an input, so the model learns where XY-cut errs on real pages rather than relearning what it gets right.
// The score is antisymmetric by construction: s(a, b) = g(a, b) − g(b, a), so P(a before b) = 1 − P(b before a).
import { XY_CUT_STAGE, type PageFrame } from "./stage.js";
import { median, type Extent } from "./xycut.js";

/** Number of features of one ordered pair (pairFeatures). */
export const PAIR_FEATURES = 31;

/** The model file (a bundle's `vision.lines.layout`): a two-hidden-layer ReLU MLP over PAIR_FEATURES. */
export interface PairOrderModel {
  kind: "pairwise-order";
  version: 1;
  features: number;
  hidden: [number, number];
  /** row-major [out][in] weights and biases */
  w1: number[];
  b1: number[];
  w2: number[];
  b2: number[];
  w3: number[];
  b3: number[];
  /**
   * XY-cut's order is kept unless the learned order agrees with the model better by this much, in mean log
   * probability per line (summed over all pairs): a page the model reads much as XY-cut does keeps XY-cut's
   * order; 0 always takes the learned order. Chosen on held-out corpus pages (layout-pairs.mjs score --margins).
   */
  margin?: number;
  /** how it was trained and what it scored on held-out pages (informational) */
  trained?: Record<string, unknown>;
}

/** Checks a parsed model file; the message names what is wrong. */
export function parsePairOrderModel(json: unknown, file = "layout model"): PairOrderModel {
  const m = json as Partial<PairOrderModel>;
  const fail = (what: string) => {
    throw new Error(`${file}: ${what}`);
  };
  if (!m || typeof m !== "object" || m.kind !== "pairwise-order") fail(`kind must be "pairwise-order"`);
  if (m.version !== 1) fail(`version ${String(m.version)} is not supported (1)`);
  if (m.features !== PAIR_FEATURES) fail(`${String(m.features)} features, this build computes ${PAIR_FEATURES}`);
  const [h1, h2] = Array.isArray(m.hidden) ? m.hidden : [];
  if (!Number.isInteger(h1) || !Number.isInteger(h2) || h1! < 1 || h2! < 1) fail("hidden must be two positive sizes");
  if (m.margin !== undefined && !(typeof m.margin === "number" && m.margin >= 0 && Number.isFinite(m.margin)))
    fail("margin must be a number >= 0");
  const sizes: [keyof PairOrderModel, number][] = [
    ["w1", h1! * PAIR_FEATURES],
    ["b1", h1!],
    ["w2", h2! * h1!],
    ["b2", h2!],
    ["w3", h2!],
    ["b3", 1],
  ];
  for (const [key, n] of sizes) {
    const v = m[key] as unknown;
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === "number" && Number.isFinite(x)))
      fail(`${key} must hold ${n} finite numbers`);
  }
  return m as PairOrderModel;
}

/** What pairFeatures needs of the page besides the two lines. */
export interface PageContext<T extends Extent = Extent> {
  width: number;
  height: number;
  /** median line height */
  line: number;
  /** the lines as XY-cut reads them: in its order, a box it cut at a column gutter as two lines */
  lines: readonly T[];
  /** each line's position in XY-cut's order (lines[i] has rank i; kept apart so pairFeatures reads it by name) */
  rank: Int32Array;
  /** per line: its width over the widest line starting where it starts (prose fills its column, cells do not) */
  fill: Float32Array;
  /** per line: how many lines start where it starts (within a line height): the length of its column */
  column: Int32Array;
}

/**
 * The page context of the detected `lines` (any order): XY-cut reads them first (cutting boxes that run over a
 * column gutter, as the product's units are cut), and its order is a feature of every pair.
 */
export function pageContext<T extends Extent>(lines: readonly T[], page: PageFrame): PageContext<T> {
  const line = median(lines.map((b) => b.yMax - b.yMin)) || 10;
  const ordered = XY_CUT_STAGE.order(lines, page);
  const rank = Int32Array.from(ordered, (_, i) => i);
  const width = page.width > 0 ? page.width : Math.max(1, ...lines.map((b) => b.xMax));
  const height = page.height > 0 ? page.height : Math.max(1, ...lines.map((b) => b.yMax));
  const n = ordered.length;
  const fill = new Float32Array(n),
    column = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const A = ordered[i]!;
    let widest = 0,
      mates = 0;
    for (const B of ordered)
      if (Math.abs(B.xMin - A.xMin) <= line) {
        mates++;
        widest = Math.max(widest, B.xMax - B.xMin);
      }
    fill[i] = (A.xMax - A.xMin) / Math.max(1e-6, widest);
    column[i] = mates;
  }
  return { width, height, line, lines: ordered, rank, fill, column };
}

/**
 * Lines that cross the horizontal gap between a and b (one wholly left of the other) within the rows the two span,
 * a line height above and below: none when a gutter separates them (page columns, or table cells).
 */
export function gapCrossers(ctx: PageContext, a: number, b: number): number {
  const A = ctx.lines[a]!,
    B = ctx.lines[b]!;
  const [L, R] = A.xMax <= B.xMin ? [A, B] : B.xMax <= A.xMin ? [B, A] : [undefined, undefined];
  if (!L || !R) return 0;
  const top = Math.min(A.yMin, B.yMin) - ctx.line,
    bottom = Math.max(A.yMax, B.yMax) + ctx.line;
  let crossers = 0;
  for (let k = 0; k < ctx.lines.length; k++) {
    if (k === a || k === b) continue;
    const C = ctx.lines[k]!;
    if (C.yMax > top && C.yMin < bottom && C.xMin < L.xMax + 1 && C.xMax > R.xMin - 1) crossers++;
  }
  return crossers;
}

/** Lines of `ctx` whose middle lies strictly between those of a and b and that share their horizontal span. */
export function linesBetween(ctx: PageContext, a: number, b: number): number {
  const A = ctx.lines[a]!,
    B = ctx.lines[b]!;
  const ay = (A.yMin + A.yMax) / 2,
    by = (B.yMin + B.yMax) / 2;
  const top = Math.min(ay, by),
    bottom = Math.max(ay, by);
  const left = Math.min(A.xMin, B.xMin),
    right = Math.max(A.xMax, B.xMax);
  let between = 0;
  for (let k = 0; k < ctx.lines.length; k++) {
    if (k === a || k === b) continue;
    const C = ctx.lines[k]!;
    const cy = (C.yMin + C.yMax) / 2;
    if (cy > top && cy < bottom && C.xMax > left && C.xMin < right) between++;
  }
  return between;
}

const clip = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/**
 * Features of the ordered pair (a, b) of ctx.lines, written into `out` at `at` (PAIR_FEATURES values). `between`:
 * linesBetween(ctx, a, b), the same either way round (computed once per pair by the caller that has it).
 */
export function pairFeatures(
  ctx: PageContext,
  a: number,
  b: number,
  out: Float32Array,
  at = 0,
  between = linesBetween(ctx, a, b),
  crossers = gapCrossers(ctx, a, b),
): void {
  const A = ctx.lines[a]!,
    B = ctx.lines[b]!;
  const { width: W, height: H, line: h } = ctx;
  const n = ctx.lines.length;
  const ay = (A.yMin + A.yMax) / 2,
    by = (B.yMin + B.yMax) / 2;
  const ax = (A.xMin + A.xMax) / 2,
    bx = (B.xMin + B.xMax) / 2;
  const aw = A.xMax - A.xMin,
    bw = B.xMax - B.xMin,
    ah = A.yMax - A.yMin,
    bh = B.yMax - B.yMin;
  const xo = Math.max(0, Math.min(A.xMax, B.xMax) - Math.max(A.xMin, B.xMin));
  const yo = Math.max(0, Math.min(A.yMax, B.yMax) - Math.max(A.yMin, B.yMin));
  const ra = ctx.rank[a]!,
    rb = ctx.rank[b]!;
  const f = out;
  let i = at;
  f[i++] = A.xMin / W;
  f[i++] = A.xMax / W;
  f[i++] = A.yMin / H;
  f[i++] = A.yMax / H;
  f[i++] = B.xMin / W;
  f[i++] = B.xMax / W;
  f[i++] = B.yMin / H;
  f[i++] = B.yMax / H;
  f[i++] = clip(ah / h, 0, 5);
  f[i++] = clip(bh / h, 0, 5);
  f[i++] = Math.tanh((by - ay) / (3 * h));
  f[i++] = (by - ay) / H;
  f[i++] = (B.xMin - A.xMin) / W;
  f[i++] = (bx - ax) / W;
  f[i++] = xo / Math.max(1e-6, Math.min(aw, bw));
  f[i++] = yo / Math.max(1e-6, Math.min(ah, bh));
  f[i++] = Math.tanh((B.xMin - A.xMax) / (3 * h));
  f[i++] = Math.tanh((A.xMin - B.xMax) / (3 * h));
  f[i++] = (rb - ra) / n;
  f[i++] = Math.sign(rb - ra);
  f[i++] = Math.abs(rb - ra) === 1 ? 1 : 0;
  f[i++] = ra / n;
  f[i++] = rb / n;
  f[i++] = Math.min(between, 20) / 10;
  f[i++] = Math.min(n, 300) / 100;
  f[i++] = H / W;
  f[i++] = Math.min(crossers, 10) / 5;
  f[i++] = ctx.fill[a]!;
  f[i++] = ctx.fill[b]!;
  f[i++] = Math.min(ctx.column[a]!, 60) / 20;
  f[i++] = Math.min(ctx.column[b]!, 60) / 20;
}

/** Features that depend on the first line of the pair only, on the second only, on the page only; the rest on both. */
const FIRST_ONLY = [0, 1, 2, 3, 8, 21, 27, 29];
const SECOND_ONLY = [4, 5, 6, 7, 9, 22, 28, 30];
const PAGE_ONLY = [24, 25];
const PAIR_ONLY = Array.from({ length: PAIR_FEATURES }, (_, k) => k).filter(
  (k) => ![...FIRST_ONLY, ...SECOND_ONLY, ...PAGE_ONLY].includes(k),
);

/** A compiled model: g(features) as a function over a feature row. */
export class PairOrderScorer {
  private readonly w1: Float32Array;
  private readonly b1: Float32Array;
  private readonly w2: Float32Array;
  private readonly b2: Float32Array;
  private readonly w3: Float32Array;
  private readonly b3: number;
  private readonly h1: Float32Array;
  private readonly h2: Float32Array;

  constructor(readonly model: PairOrderModel) {
    this.w1 = Float32Array.from(model.w1);
    this.b1 = Float32Array.from(model.b1);
    this.w2 = Float32Array.from(model.w2);
    this.b2 = Float32Array.from(model.b2);
    this.w3 = Float32Array.from(model.w3);
    this.b3 = model.b3[0]!;
    this.h1 = new Float32Array(model.hidden[0]);
    this.h2 = new Float32Array(model.hidden[1]);
  }

  /** g over the row of `x` at `at`. */
  g(x: Float32Array, at: number): number {
    const F = PAIR_FEATURES;
    for (let o = 0; o < this.h1.length; o++) {
      let s = this.b1[o]!;
      const w = o * F;
      for (let k = 0; k < F; k++) s += this.w1[w + k]! * x[at + k]!;
      this.h1[o] = s > 0 ? s : 0;
    }
    return this.head();
  }

  /**
   * g of the pair (a, b) whose features are in `x` at `at`, with the first layer's sums over the features of one
   * line or of the page taken from `first`/`second` (per line, hidden-sized) and `page`: the same value as g, for
   * a fraction of the first layer's work (PAIR_ONLY features are summed here).
   */
  private gSplit(x: Float32Array, at: number, first: Float32Array, second: Float32Array, a: number, b: number, page: Float32Array): number {
    const F = PAIR_FEATURES,
      n1 = this.h1.length;
    for (let o = 0; o < n1; o++) {
      let s = page[o]! + first[a * n1 + o]! + second[b * n1 + o]!;
      const w = o * F;
      for (const k of PAIR_ONLY) s += this.w1[w + k]! * x[at + k]!;
      this.h1[o] = s > 0 ? s : 0;
    }
    return this.head();
  }

  /** The second hidden layer and the output over the first hidden layer's activations in h1 (g's and gSplit's end). */
  private head(): number {
    const n1 = this.h1.length,
      n2 = this.h2.length;
    for (let o = 0; o < n2; o++) {
      let s = this.b2[o]!;
      const w = o * n1;
      for (let k = 0; k < n1; k++) s += this.w2[w + k]! * this.h1[k]!;
      this.h2[o] = s > 0 ? s : 0;
    }
    let s = this.b3;
    for (let k = 0; k < n2; k++) s += this.w3[k]! * this.h2[k]!;
    return s;
  }

  /** P(a read before b) for every ordered pair, row-major n×n (the diagonal 0.5). */
  probabilities(ctx: PageContext): Float32Array {
    const n = ctx.lines.length,
      n1 = this.h1.length,
      F = PAIR_FEATURES;
    const p = new Float32Array(n * n);
    const x = new Float32Array(2 * F);
    // the first layer's sums over one line's features (as the pair's first line, as its second) and the page's
    const first = new Float32Array(n * n1),
      second = new Float32Array(n * n1),
      page = new Float32Array(n1);
    for (let a = 0; a < n; a++) {
      pairFeatures(ctx, a, a === 0 ? Math.min(1, n - 1) : 0, x, 0, 0, 0);
      for (let o = 0; o < n1; o++) first[a * n1 + o] = FIRST_ONLY.reduce((s, k) => s + this.w1[o * F + k]! * x[k]!, 0);
      pairFeatures(ctx, a === 0 ? Math.min(1, n - 1) : 0, a, x, 0, 0, 0);
      for (let o = 0; o < n1; o++) second[a * n1 + o] = SECOND_ONLY.reduce((s, k) => s + this.w1[o * F + k]! * x[k]!, 0);
      if (a === 0) for (let o = 0; o < n1; o++) page[o] = this.b1[o]! + PAGE_ONLY.reduce((s, k) => s + this.w1[o * F + k]! * x[k]!, 0);
    }
    for (let a = 0; a < n; a++) {
      p[a * n + a] = 0.5;
      for (let b = a + 1; b < n; b++) {
        const between = linesBetween(ctx, a, b),
          crossers = gapCrossers(ctx, a, b);
        pairFeatures(ctx, a, b, x, 0, between, crossers);
        pairFeatures(ctx, b, a, x, F, between, crossers);
        const s = this.gSplit(x, 0, first, second, a, b, page) - this.gSplit(x, F, first, second, b, a, page);
        const q = 1 / (1 + Math.exp(-s));
        p[a * n + b] = q;
        p[b * n + a] = 1 - q;
      }
    }
    return p;
  }

  /**
   * `lines` in the learned reading order: by summed probability of coming first (ties in XY-cut's order), then
   * neighbours the model reads the other way round turned.
   */
  order<T extends Extent>(lines: readonly T[], page: PageFrame): T[] {
    return this.orderContext(pageContext(lines, page));
  }

  /**
   * The lines of `ctx` in the learned reading order, or in XY-cut's where the learned one does not agree with the
   * model better by the model's margin (mean log probability per line; `margin` overrides it).
   */
  orderContext<T extends Extent>(ctx: PageContext<T>, margin = this.model.margin ?? 0): T[] {
    const n = ctx.lines.length;
    if (n < 2) return [...ctx.lines];
    const p = this.probabilities(ctx);
    const idx = this.learnedOrder(ctx, p);
    if (margin > 0 && advantage(p, n, idx) <= margin * n) return [...ctx.lines];
    return idx.map((i) => ctx.lines[i]!);
  }

  /** Mean log-probability gain per line of the learned order over XY-cut's (what the margin is compared with). */
  gain(ctx: PageContext): number {
    const n = ctx.lines.length;
    if (n < 2) return 0;
    const p = this.probabilities(ctx);
    return advantage(p, n, this.learnedOrder(ctx, p)) / n;
  }

  /** Indices of ctx.lines by Borda count, then adjacent swaps. */
  private learnedOrder(ctx: PageContext, p: Float32Array): number[] {
    const n = ctx.lines.length;
    const wins = new Float64Array(n);
    for (let a = 0; a < n; a++) {
      let sum = 0;
      for (let b = 0; b < n; b++) if (a !== b) sum += p[a * n + b]!;
      wins[a] = sum;
    }
    // wins closer than rounding are a tie (the same probabilities summed in another order)
    const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      Math.abs(wins[b]! - wins[a]!) > 1e-9 ? wins[b]! - wins[a]! : ctx.rank[a]! - ctx.rank[b]!,
    );
    // then the local optimum of the pairwise agreement (Kemeny) by adjacent swaps: a neighbour pair the model reads
    // the other way round is turned (the Borda count orders globally but can swap neighbours of similar wins)
    for (let pass = 0, swapped = true; swapped && pass < n; pass++) {
      swapped = false;
      for (let k = 0; k + 1 < n; k++) {
        const a = idx[k]!,
          b = idx[k + 1]!;
        if (p[b * n + a]! > 0.5 + 1e-6) {
          idx[k] = b;
          idx[k + 1] = a;
          swapped = true;
        }
      }
    }
    return idx;
  }
}

/** How much better `order` agrees with the model than XY-cut's order (ctx.lines as they are), in summed log probability. */
function advantage(p: Float32Array, n: number, order: readonly number[]): number {
  return (
    agreement(p, n, order) -
    agreement(
      p,
      n,
      Array.from({ length: n }, (_, i) => i),
    )
  );
}

/** Sum over the ordered pairs of `order` of log P(first before second): how well an order agrees with the model. */
function agreement(p: Float32Array, n: number, order: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += Math.log(Math.max(1e-6, p[order[i]! * n + order[j]!]!));
  return s;
}
