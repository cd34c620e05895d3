// The formula reader (src/vision/formula.ts): its bundle file, the region as it reads it, LaTeX from its tokens, and
// greedy decoding with the first step as the prose gate (over scripted models: the default bundle carries no reader yet).
import { describe, expect, it } from "vitest";
import {
  formulaInput,
  formulaLatex,
  parseFormulaConfig,
  readFormula,
  readPageFormulas,
  type FormulaConfig,
  type FormulaModels,
} from "../../src/vision/formula.js";
import type { Tensor } from "../../src/vision/lines.js";

// formula.json as python/ocr_tools/formula/export.py writes it, with a vocabulary cut down to what the tests use
const cfg = (): FormulaConfig =>
  parseFormulaConfig(
    {
      encoder: "formula-encoder.onnx",
      decoder: "formula-decoder.onnx",
      height: 96,
      max_width: 1024,
      max_tokens: 160,
      line_pitch: 24,
      vocab: ["<pad>", "<s>", "</s>", "<text>", "x", "^", "2", "a"],
      bos: 1,
      eos: 2,
      pad: 0,
      text: 3,
    },
    "formula.json",
  );

describe("parseFormulaConfig", () => {
  it("names the file and the field that is wrong", () => {
    const good = cfg();
    expect(() => parseFormulaConfig({ ...good, height: 0 }, "f.json")).toThrow("f.json: height: expected a positive integer");
    expect(() => parseFormulaConfig({ ...good, encoder: "../x.onnx" }, "f.json")).toThrow("f.json: encoder: file names must stay inside");
    expect(() => parseFormulaConfig({ ...good, eos: good.vocab.length }, "f.json")).toThrow(`f.json: eos: expected a token index below`);
    expect(() => parseFormulaConfig({ ...good, vocab: [1, 2] }, "f.json")).toThrow("f.json: vocab: expected a list of tokens");
  });
});

describe("formulaLatex", () => {
  it("puts a space only where a control word meets a letter", () => {
    expect(formulaLatex(["\\frac", "{", "\\delta", "}", "{", "\\delta", "t", "}"])).toBe("\\frac{\\delta}{\\delta t}");
    expect(formulaLatex(["\\sin", "x", "+", "\\alpha", "_", "{", "i", "}", "\\cdot", "2"])).toBe("\\sin x+\\alpha_{i}\\cdot2");
  });
});

describe("formulaInput", () => {
  // a white 200 × 100 RGB page with a black 40 × 20 block at (60, 30)
  const page = { width: 200, height: 100, data: Buffer.alloc(200 * 100 * 3, 255) };
  for (let y = 30; y < 50; y++) page.data.fill(0, (y * 200 + 60) * 3, (y * 200 + 100) * 3);
  const geometry = { height: 96, max_width: 1024, line_pitch: 24 };

  it("trims the region to its ink, scales a body line to the trained pitch and centres it in the rows", () => {
    // pitch 48 → scale 0.5: the block (plus a 4 px margin each side at page scale) is 24 × 14 px
    const t = formulaInput(page, { xMin: 0, yMin: 0, xMax: 200, yMax: 100 }, 48, geometry)!;
    expect(t.dims).toEqual([1, 1, 96, 24]);
    const row = (y: number) => Array.from(t.data.subarray(y * 24, (y + 1) * 24));
    expect(Math.max(...row(48))).toBeGreaterThan(0.9); // ink in the middle row
    expect(Math.max(...row(10))).toBe(0); // paper above
    expect(Math.max(...row(90))).toBe(0); // and below
  });

  it("shrinks a region taller than the reader's rows to fit them", () => {
    const t = formulaInput(page, { xMin: 0, yMin: 0, xMax: 200, yMax: 100 }, 4, geometry)!;
    expect(t.dims[2]).toBe(96);
    // pitch 4 → scale 6: the block with a 1 px margin (42 × 22) would be 132 rows; shrunk to 96, 42 columns → 183
    expect(t.dims[3]).toBe(184);
  });

  it("gives nothing for a region without ink", () => {
    expect(formulaInput(page, { xMin: 120, yMin: 60, xMax: 190, yMax: 95 }, 24, geometry)).toBeUndefined();
  });
});

describe("readFormula", () => {
  const small: FormulaConfig = { ...cfg(), max_tokens: 5 };
  const V = small.vocab.length;
  // a scripted decoder: the log-probabilities it gives at each step
  const scripted = (steps: Record<number, number>[]): FormulaModels => {
    let k = 0;
    return {
      encode: async () => ({ data: new Float32Array(4), dims: [1, 1, 4] }),
      step: async (_m, tokens) => {
        expect(tokens.length).toBe(k + 1); // the tokens so far, BOS first
        const logp = new Float32Array(V).fill(-20);
        for (const [i, p] of Object.entries(steps[k++]!)) logp[Number(i)] = p;
        return logp;
      },
    };
  };
  const id = (t: string) => small.vocab.indexOf(t);

  it("writes the greedy tokens as LaTeX up to the end token", async () => {
    const r = await readFormula(
      scripted([
        { [id("x")]: Math.log(0.9), [small.text]: Math.log(0.1) },
        { [id("^")]: -0.1 },
        { [id("2")]: -0.1 },
        { [small.eos]: -0.1 },
      ]),
      { data: new Float32Array(96 * 8), dims: [1, 1, 96, 8] },
      small,
    );
    expect(r.latex).toBe("x^2");
    expect(r.math).toBeCloseTo(0.9, 5);
  });

  it("reads a region whose first token is <text> as prose: no LaTeX", async () => {
    const r = await readFormula(
      scripted([{ [small.text]: Math.log(0.8), [id("x")]: Math.log(0.2) }]),
      { data: new Float32Array(96 * 8), dims: [1, 1, 96, 8] },
      small,
    );
    expect(r.latex).toBe("");
    expect(r.math).toBeCloseTo(0.2, 5);
  });

  it("stops at max_tokens when the end never comes", async () => {
    const r = await readFormula(
      scripted(Array.from({ length: 5 }, () => ({ [id("a")]: -0.1 }))),
      { data: new Float32Array(96 * 8), dims: [1, 1, 96, 8] },
      small,
    );
    expect(r.latex).toBe("aaaaa");
  });
});

describe("readPageFormulas", () => {
  // a white 1240 × 600 page: body lines of ink across the column, a centred block (the formula) and "(3)" at the right
  const W = 1240,
    H = 600;
  const page = { width: W, height: H, data: Buffer.alloc(W * H * 3, 255) };
  const ink = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) page.data.fill(0, (y * W + x0) * 3, (y * W + x1) * 3);
  };
  const boxes = [0, 1, 2].map((k) => ({ xMin: 120, yMin: 100 + 32 * k, xMax: 1120, yMax: 130 + 32 * k }));
  boxes.push({ xMin: 500, yMin: 220, xMax: 740, yMax: 250 }, { xMin: 1070, yMin: 220, xMax: 1120, yMax: 250 });
  boxes.push(...[0, 1, 2].map((k) => ({ xMin: 120, yMin: 290 + 32 * k, xMax: 1120, yMax: 320 + 32 * k })));
  for (const b of boxes) ink(b.xMin + 4, b.yMin + 8, b.xMax - 4, b.yMax - 8);
  const texts = ["body", "body", "body", "x^2", "(3)", "body", "body", "body"];
  const c = cfg();
  const id = (t: string) => c.vocab.indexOf(t);
  const reader = (steps: Record<number, number>[]) => {
    const seen: Tensor[] = [];
    let k = 0;
    const models: FormulaModels = {
      encode: async (t) => {
        seen.push(t);
        k = 0;
        return { data: new Float32Array(4), dims: [1, 1, 4] };
      },
      step: async () => {
        const logp = new Float32Array(c.vocab.length).fill(-20);
        for (const [i, p] of Object.entries(steps[k++]!)) logp[Number(i)] = p;
        return logp;
      },
    };
    return { models, seen };
  };

  it("reads the centred line with its equation number, at the body pitch's scale", async () => {
    const { models, seen } = reader([{ [id("x")]: -0.01 }, { [id("^")]: -0.01 }, { [id("2")]: -0.01 }, { [c.eos]: -0.01 }]);
    const found = await readPageFormulas(page, boxes, texts, { models, cfg: c });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ members: [3], tag: { line: 4, number: "3" }, latex: "x^2", sure: true });
    // one region read: the block's ink (232 × 14 px plus margins) at 24 / 32 of its size, centred in 96 rows
    expect(seen).toHaveLength(1);
    expect(seen[0]!.dims).toEqual([1, 1, 96, 184]);
  });

  it("leaves a region that reads as prose, and writes unsure LaTeX as not sure", async () => {
    expect(await readPageFormulas(page, boxes, texts, { models: reader([{ [c.text]: -0.1 }]).models, cfg: c })).toEqual([]);
    const unsure = await readPageFormulas(page, boxes, texts, {
      models: reader([{ [id("x")]: -1 }, { [c.eos]: -1 }]).models,
      cfg: c,
    });
    expect(unsure[0]).toMatchObject({ latex: "x", sure: false });
  });
});
