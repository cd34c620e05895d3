// The learned reading order's machinery (src/layout/learned.ts): model files checked with messages naming the
// file, the pairwise probabilities antisymmetric, and the Borda order following what the scores say. The models
// here are written by hand so that what they must do is known: one that trusts XY-cut's rank, one that reads top
// to bottom whatever XY-cut says.
import { describe, expect, it } from "vitest";
import {
  PAIR_FEATURES,
  PairOrderScorer,
  pageContext,
  pairFeatures,
  parsePairOrderModel,
  type PairOrderModel,
} from "../../src/layout/learned.js";
import { xyCut, type Extent } from "../../src/layout/xycut.js";

/** A model whose g(a, b) is `weight` × feature `k` (one ReLU path for its positive part, one for its negative part). */
function linearOn(k: number, weight: number): PairOrderModel {
  const h1 = 2,
    h2 = 2;
  const w1 = new Array(h1 * PAIR_FEATURES).fill(0);
  w1[k] = 1;
  w1[PAIR_FEATURES + k] = -1;
  return {
    kind: "pairwise-order",
    version: 1,
    features: PAIR_FEATURES,
    hidden: [h1, h2],
    w1,
    b1: [0, 0],
    w2: [1, 0, 0, 1],
    b2: [0, 0],
    w3: [weight, -weight],
    b3: [0.25],
  };
}

/** A two-column page: left column lines 0..4, right column 5..9, a title across the top. */
function twoColumns(): Extent[] {
  const lines: Extent[] = [{ xMin: 100, xMax: 1100, yMin: 40, yMax: 80 }];
  for (let i = 0; i < 5; i++) lines.push({ xMin: 100, xMax: 560, yMin: 120 + 40 * i, yMax: 150 + 40 * i });
  for (let i = 0; i < 5; i++) lines.push({ xMin: 640, xMax: 1100, yMin: 120 + 40 * i, yMax: 150 + 40 * i });
  return lines;
}

describe("parsePairOrderModel", () => {
  it("accepts a well-formed model and names the file and field of a bad one", () => {
    expect(parsePairOrderModel(linearOn(18, -4), "m.json").hidden).toEqual([2, 2]);
    expect(() => parsePairOrderModel({ ...linearOn(18, -4), kind: "other" }, "m.json")).toThrow(/m\.json: kind/);
    expect(() => parsePairOrderModel({ ...linearOn(18, -4), features: 25 }, "m.json")).toThrow(
      /m\.json: 25 features, this build computes 31/,
    );
    expect(() => parsePairOrderModel({ ...linearOn(18, -4), w2: [1, 0, 0] }, "m.json")).toThrow(/m\.json: w2 must hold 4 finite numbers/);
    expect(() => parsePairOrderModel({ ...linearOn(18, -4), b1: [0, Number.NaN] }, "m.json")).toThrow(/b1/);
  });
});

describe("pairFeatures", () => {
  it("describes the pair as seen from either line", () => {
    const lines = twoColumns();
    const ctx = pageContext(lines, { width: 1200, height: 400 });
    const ab = new Float32Array(PAIR_FEATURES),
      ba = new Float32Array(PAIR_FEATURES);
    pairFeatures(ctx, 1, 6, ab);
    pairFeatures(ctx, 6, 1, ba);
    // the same vertical offset and rank difference, with the sign turned
    expect(ab[11]).toBeCloseTo(-ba[11]!, 6);
    expect(ab[18]).toBeCloseTo(-ba[18]!, 6);
    // XY-cut reads the left column (1) before the right one (6)
    expect(ab[19]).toBe(1);
    expect(ba[19]).toBe(-1);
    // no line of either column lies between two level lines
    expect(ab[23]).toBe(0);
    // line 1 and line 3 of the left column have line 2 between them
    pairFeatures(ctx, 1, 3, ab);
    expect(ab[23]).toBeCloseTo(0.1, 6);
  });
});

describe("PairOrderScorer", () => {
  const lines = twoColumns();
  const page = { width: 1200, height: 400 };

  it("gives antisymmetric probabilities", () => {
    const scorer = new PairOrderScorer(linearOn(11, 3));
    const p = scorer.probabilities(pageContext(lines, page));
    const n = lines.length;
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) expect(p[a * n + b]! + p[b * n + a]!).toBeCloseTo(1, 5);
  });

  it("reads in XY-cut's order when the model trusts XY-cut's rank", () => {
    // feature 18 is (rank b − rank a)/n: g(a, b) − g(b, a) is large when XY-cut reads a first
    const scorer = new PairOrderScorer(linearOn(18, 40));
    const shuffled = [
      lines[7]!,
      lines[0]!,
      lines[3]!,
      lines[10]!,
      lines[1]!,
      lines[5]!,
      lines[8]!,
      lines[2]!,
      lines[9]!,
      lines[4]!,
      lines[6]!,
    ];
    expect(scorer.order(shuffled, page)).toEqual(xyCut(shuffled, 15));
    expect(scorer.order(shuffled, page)).toEqual(lines);
  });

  it("keeps XY-cut's order unless the learned one agrees with the model better by the margin", () => {
    const model = linearOn(11, 50);
    const gain = new PairOrderScorer(model).gain(pageContext(lines, page));
    expect(gain).toBeGreaterThan(0);
    expect(new PairOrderScorer({ ...model, margin: gain * 1.01 }).order(lines, page)).toEqual(xyCut(lines, 15));
    expect(new PairOrderScorer({ ...model, margin: gain * 0.99 }).order(lines, page)).not.toEqual(xyCut(lines, 15));
    expect(() => parsePairOrderModel({ ...model, margin: -1 }, "m.json")).toThrow(/m\.json: margin must be a number >= 0/);
  });

  it("reads top to bottom across the columns when the model says so, whatever XY-cut says", () => {
    // feature 11 is (middle y of b − middle y of a)/height: positive when a is higher
    const scorer = new PairOrderScorer(linearOn(11, 50));
    const ordered = scorer.order(lines, page);
    expect(ordered).not.toEqual(xyCut(lines, 15));
    const ys = ordered.map((b) => b.yMin);
    expect(ys).toEqual([...ys].sort((a, b) => a - b));
    // level lines tie on y; the tie goes to XY-cut's order (left column first)
    expect(ordered.slice(1, 3)).toEqual([lines[1], lines[6]]);
  });
});

describe("PairOrderScorer.probabilities", () => {
  it("equals sigmoid(g(a, b) − g(b, a)) over the whole feature rows (the first layer split by what its features depend on)", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const h1 = 8,
      h2 = 4;
    const model: PairOrderModel = {
      kind: "pairwise-order",
      version: 1,
      features: PAIR_FEATURES,
      hidden: [h1, h2],
      w1: Array.from({ length: h1 * PAIR_FEATURES }, random),
      b1: Array.from({ length: h1 }, random),
      w2: Array.from({ length: h2 * h1 }, random),
      b2: Array.from({ length: h2 }, random),
      w3: Array.from({ length: h2 }, random),
      b3: [random()],
    };
    const lines: Extent[] = Array.from({ length: 14 }, () => {
      const x = 600 * (random() + 1),
        y = 800 * (random() + 1);
      return { xMin: x, xMax: x + 100 + 200 * (random() + 1), yMin: y, yMax: y + 25 + 5 * random() };
    });
    const scorer = new PairOrderScorer(model);
    const ctx = pageContext(lines, { width: 1300, height: 1700 });
    const p = scorer.probabilities(ctx);
    const n = ctx.lines.length;
    const x = new Float32Array(2 * PAIR_FEATURES);
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++) {
        if (a === b) continue;
        pairFeatures(ctx, a, b, x, 0);
        pairFeatures(ctx, b, a, x, PAIR_FEATURES);
        expect(p[a * n + b]).toBeCloseTo(1 / (1 + Math.exp(-(scorer.g(x, 0) - scorer.g(x, PAIR_FEATURES)))), 5);
      }
  });
});
