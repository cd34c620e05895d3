// Vertical lines of text: candidates from the detector's boxes, turned crops, the upright layout the decoder is
// given, and pageUnits' choice between a candidate's boxes read across and its union read turned.
import { describe, expect, it } from "vitest";
import { pageUnits, type LineModels, type Tensor } from "../../src/vision/lines.js";
import { readingBox, turnedRegion, verticalCandidates } from "../../src/vision/vertical.js";
import type { Extent } from "../../src/layout/xycut.js";
import { LINES_CFG, middleRow, recognised } from "./helpers.js";

const box = (xMin: number, yMin: number, xMax: number, yMax: number): Extent => ({ xMin, yMin, xMax, yMax });

describe("verticalCandidates", () => {
  // a page's horizontal lines, 30 px high: the median line height
  const prose = Array.from({ length: 6 }, (_, k) => box(100, 100 + 40 * k, 600, 130 + 40 * k));

  it("finds a stack of glyph boxes running down the margin, top to bottom, and its union", () => {
    // glyphs turned a quarter: wider than tall, touching or nearly (listed out of order)
    const glyphs = [3, 0, 2, 1].map((k) => box(700, 300 + 32 * k, 740, 330 + 32 * k));
    const found = verticalCandidates([...prose, ...glyphs]);
    expect(found).toHaveLength(1);
    expect(found[0]!.members).toEqual([7, 9, 8, 6]);
    expect(found[0]!.box).toEqual(box(700, 300, 740, 426));
  });

  it("finds one tall box, and two stacks side by side as two", () => {
    const tall = box(20, 200, 50, 400);
    const left = [0, 1, 2, 3].map((k) => box(700, 300 + 32 * k, 740, 330 + 32 * k));
    const right = [0, 1, 2, 3].map((k) => box(760, 300 + 32 * k, 800, 330 + 32 * k));
    const found = verticalCandidates([...prose, tall, ...left, ...right]);
    expect(found.map((c) => c.members.length).sort()).toEqual([1, 4, 4]);
    expect(found.find((c) => c.members.length === 1)!.box).toEqual(tall);
  });

  it("leaves out a column of text lines, table rows set with leading, a rule and short stacks", () => {
    // lines no wider than a few glyphs would be, close together: wider than GLYPH_ASPECT times tall
    const column = Array.from({ length: 12 }, (_, k) => box(700, 100 + 31 * k, 800, 130 + 31 * k));
    // one-figure cells a line of leading apart
    const cells = Array.from({ length: 6 }, (_, k) => box(900, 100 + 60 * k, 920, 130 + 60 * k));
    // a vertical rule: tall, but narrower than half a line
    const rule = box(1000, 100, 1004, 600);
    // three glyphs whose union is not tall enough (94 x 40)
    const pair = [0, 1, 2].map((k) => box(1100, 300 + 32 * k, 1140, 330 + 32 * k));
    expect(verticalCandidates([...prose, ...column, ...cells, rule, ...pair])).toEqual([]);
  });
});

describe("turnedRegion", () => {
  // 3 x 2 pixels, each of its own grey: row 0 is 10 20 30, row 1 is 40 50 60
  const data = Buffer.from([10, 20, 30, 40, 50, 60].flatMap((v) => [v, v, v]));
  const page = { width: 3, height: 2, data };
  const grey = (p: { width: number; height: number; data: Buffer }) =>
    Array.from({ length: p.height }, (_, y) => Array.from({ length: p.width }, (_, x) => p.data[(y * p.width + x) * 3]));

  it("turns counter-clockwise: the region's top comes to the left (text running down reads left to right)", () => {
    const turned = turnedRegion(page, box(0, 0, 3, 2), "ccw");
    expect([turned.width, turned.height]).toEqual([2, 3]);
    expect(grey(turned)).toEqual([
      [30, 60],
      [20, 50],
      [10, 40],
    ]);
  });

  it("turns clockwise: the region's bottom comes to the left (text running up)", () => {
    expect(grey(turnedRegion(page, box(0, 0, 3, 2), "cw"))).toEqual([
      [40, 10],
      [50, 20],
      [60, 30],
    ]);
  });

  it("turns only the region asked for", () => {
    expect(grey(turnedRegion(page, box(1, 0, 3, 2), "ccw"))).toEqual([
      [30, 60],
      [20, 50],
    ]);
  });
});

describe("readingBox", () => {
  it("swaps a tall box's sides about its centre and keeps it inside the page", () => {
    expect(readingBox(box(100, 100, 120, 300), { width: 1000, height: 1000 })).toEqual(box(10, 190, 210, 210));
    // by the right edge: moved left
    expect(readingBox(box(970, 100, 990, 300), { width: 1000, height: 1000 })).toEqual(box(800, 190, 1000, 210));
  });
});

describe("pageUnits with a line set vertically", () => {
  // a 600 x 400 page: a line of text (grey 200) and four glyphs of a number down the right margin (grey 100),
  // which the fake detector finds as four boxes
  const W = 600,
    H = 400;
  const data = Buffer.alloc(W * H * 3, 255);
  const paint = (x0: number, y0: number, x1: number, y1: number, g: number) => {
    for (let y = y0; y < y1; y++) data.fill(g, (y * W + x0) * 3, (y * W + x1) * 3);
  };
  const LINE = [40, 60, 340, 80] as const;
  const GLYPHS = [0, 1, 2, 3].map((k) => [540, 100 + 35 * k, 570, 126 + 35 * k] as const);
  paint(LINE[0] - 6, LINE[1] - 6, LINE[2] + 6, LINE[3] + 6, 200);
  // (each glyph's ink apart from the next, wider than tall: glyphs lying on their side)
  for (const g of GLYPHS) paint(g[0] - 2, g[1] - 2, g[2] + 2, g[3] + 2, 100);
  const page = { width: W, height: H, data };

  // the recogniser reads the line's crop "abab…" 0.95 sure, a glyph's crop across "a" `across` sure, and a crop of
  // the number's grey wider than any glyph's (its union turned) "abcab…" `turned` sure
  const run = async (across: number, turned: number, pixels = page) => {
    const calls: { grey: number; width: number }[][] = [];
    const models: LineModels = {
      detect: async (t: Tensor) => {
        const [, , h, w] = t.dims as number[];
        const map = new Float32Array(h! * w!);
        const f = w! / W;
        for (const [x0, y0, x1, y1] of [LINE, ...GLYPHS])
          for (let y = Math.round(y0 * f); y < Math.round(y1 * f); y++)
            map.fill(0.9, y * w! + Math.round(x0 * f), y * w! + Math.round(x1 * f));
        return { data: map, dims: [1, 1, h!, w!] };
      },
      recognise: async (t: Tensor) => {
        const [n, , , width] = t.dims as number[];
        const steps = width! / 8;
        const best = new Float32Array(n! * steps),
          pk = new Float32Array(n! * steps);
        const seen: { grey: number; width: number }[] = [];
        for (let j = 0; j < n!; j++) {
          const { row, width: c } = middleRow(t, j);
          // the darkest value across the middle row: the crop's grey
          let v = 1;
          for (let x = 0; x < c; x++) v = Math.min(v, row[x]!);
          const grey = Math.round(((v + 1) / 2) * 255);
          seen.push({ grey, width: c });
          const number = grey < 150;
          const wide = c > 120;
          const symbols = number && !wide ? 1 : Math.floor(Math.ceil(c / 8) / 2);
          for (let s = 0; s < symbols; s++) {
            best[j * steps + 2 * s] = number && wide ? (s % 3) + 1 : (s % 2) + 1;
            pk[j * steps + 2 * s] = number ? (wide ? turned : across) : 0.95;
          }
        }
        calls.push(seen);
        return recognised(best, pk, n!, steps);
      },
    };
    const { units } = await pageUnits(pixels, models, LINES_CFG, ["", "a", "b", "c", " "]);
    return { units, calls };
  };

  it("reads the glyphs' union turned as one line, in their place, laid out upright for the decoder", async () => {
    const { units } = await run(0.6, 0.99);
    expect(units).toHaveLength(2);
    const vertical = units.find((u) => u.box.turn)!;
    expect(vertical.box.turn).toBe("ccw");
    expect(vertical.text).toMatch(/^abcab/);
    // its box is the union of the glyphs' boxes (tall), its geometry that of the box set upright (wide)
    expect(vertical.box.yMax - vertical.box.yMin).toBeGreaterThan(2.5 * (vertical.box.xMax - vertical.box.xMin));
    const upright = readingBox(vertical.box, page);
    expect(vertical.geometry[0]).toBeCloseTo(upright.xMin / W, 5);
    expect(vertical.geometry[2]).toBeCloseTo(upright.xMax / W, 5);
    expect(vertical.geometry[7]).toBeGreaterThan(0);
    expect(units.find((u) => !u.box.turn)!.text).toMatch(/^(ab)+a?$/);
  });

  it("keeps the glyph boxes where they read sure across, without reading them turned", async () => {
    const { units, calls } = await run(0.97, 0.99);
    expect(units).toHaveLength(5);
    expect(units.some((u) => u.box.turn)).toBe(false);
    expect(calls.flat().some((c) => c.grey < 150 && c.width > 120)).toBe(false);
  });

  it("keeps a tall box of upright glyphs, which read turned too (one-figure cells run together)", async () => {
    // the same boxes over glyphs standing upright, taller than wide: no turned reading is taken
    const upright = Buffer.from(data);
    for (const g of GLYPHS) {
      for (let y = g[1] - 2; y < g[3] + 2; y++) upright.fill(255, (y * W + g[0] - 2) * 3, (y * W + g[2] + 2) * 3);
      for (let y = g[1] - 2; y < g[3] + 2; y++) upright.fill(100, (y * W + g[0] + 8) * 3, (y * W + g[0] + 20) * 3);
    }
    const { units } = await run(0.6, 0.99, { ...page, data: upright });
    expect(units.some((u) => u.box.turn)).toBe(false);
  });

  it("keeps them where the turned reading is no surer than across, or too unsure", async () => {
    for (const [across, turned] of [
      [0.7, 0.65],
      [0.3, 0.75],
    ] as const) {
      const { units } = await run(across, turned);
      expect(units).toHaveLength(5);
      expect(units.some((u) => u.box.turn)).toBe(false);
    }
  });
});
