import { describe, expect, it } from "vitest";
import { type Tensor, withLargeText, withMissedText } from "../../src/vision/lines.js";
import { missedLargeText, missedText } from "../../src/vision/missed-text.js";
import { box, inkPage, LINES_CFG } from "./helpers.js";

/** `n` glyphs 6 px wide and 10 high from x, 3 px apart, a word space every fourth */
function glyphs(x: number, y: number, n: number): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let k = 0; k < n; k++, x += 9 + (k % 4 === 0 ? 8 : 0)) out.push([x, y, x + 6, y + 10]);
  return out;
}

// a stand-in for the detector: text where the input is dark, joined along its row across gaps of up to 12 pixels
// (as the detector joins a line's glyphs), so that each row of glyphs is one region
async function detect(input: Tensor): Promise<Tensor> {
  const [, , h, w] = input.dims as number[];
  const out = new Float32Array(h! * w!);
  for (let y = 0; y < h!; y++)
    for (let x = 0; x < w!; x++)
      if (input.data[y * w! + x]! < 0) for (let dx = -6; dx <= 6; dx++) if (x + dx >= 0 && x + dx < w!) out[y * w! + x + dx] = 1;
  return { data: out, dims: [1, 1, h!, w!] };
}

describe("missedText", () => {
  // two lines the detector found (boxes 20 px high over 10-px glyphs), a third it found only the start of
  const found = [box(40, 95, 560, 115), box(40, 125, 560, 145), box(40, 155, 120, 175)];
  const text = [...glyphs(50, 100, 50), ...glyphs(50, 130, 50), ...glyphs(50, 160, 50)];

  it("finds the glyphs of a line outside every box, as one run along the row", () => {
    const runs = missedText(inkPage(600, 300, text), found);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run!.yMin).toBe(160);
    expect(run!.yMax).toBe(170);
    expect(run!.xMin).toBeGreaterThan(110);
    // every glyph whose middle lies right of the third box
    expect(run!.glyphs).toBe(text.filter(([x0, y0, x1]) => y0 === 160 && (x0 + x1) / 2 > 120).length);
  });

  it("finds nothing where the boxes hold the text", () => {
    expect(missedText(inkPage(600, 300, text), [...found.slice(0, 2), box(40, 155, 560, 175)])).toEqual([]);
  });

  it("ignores specks, rules, tall figures, a few glyphs alone, glyphs far apart and a curve in pieces", () => {
    const px = inkPage(600, 300, [
      ...text.filter(([, y0]) => y0 < 160),
      [300, 200, 302, 201], // a speck
      [50, 190, 550, 192], // a rule
      [100, 210, 160, 290], // a figure taller than a line
      ...glyphs(400, 230, 4), // a short label
      ...[0, 1, 2, 3, 4, 5].map((k) => [50 + 60 * k, 270, 56 + 60 * k, 280] as [number, number, number, number]), // marks far apart
      // a plot's curve in glyph-sized pieces, falling across more than a line's height
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((k) => [300 + 8 * k, 200 + 4 * k, 306 + 8 * k, 208 + 4 * k] as [number, number, number, number]),
    ]);
    expect(missedText(px, found.slice(0, 2))).toEqual([]);
  });

  it("needs two boxes to measure a line by", () => {
    expect(missedText(inkPage(600, 300, text), [found[0]!])).toEqual([]);
    expect(missedText(inkPage(600, 300, text), [])).toEqual([]);
  });
});

describe("withMissedText", () => {
  // 50 rows of glyphs down an A4 page at 150 DPI, 30 px apart; the first pass found the first two only
  const rows = Array.from({ length: 50 }, (_, k) => 40 + 30 * k);
  const px = inkPage(
    1275,
    1650,
    rows.flatMap((y) => glyphs(100, y, 100)),
  );
  const first = [
    { ...box(90, 35, 1200, 55), score: 1 },
    { ...box(90, 65, 1200, 85), score: 1 },
  ];

  it("detects the page again in strips, each row of glyphs once, none lost at a strip's edge", async () => {
    const found = await withMissedText(px, first, { detect }, LINES_CFG);
    const middles = found.map((b) => Math.round((b.yMin + b.yMax) / 2)).sort((a, b) => a - b);
    expect(middles).toHaveLength(rows.length);
    middles.forEach((m, k) => expect(Math.abs(m - (rows[k]! + 5))).toBeLessThanOrEqual(2));
  });

  it("keeps the first pass's boxes where nothing was missed, the second pass finds nothing, or the page is one strip", async () => {
    const all = rows.map((y) => ({ ...box(90, y - 5, 1200, y + 15), score: 1 }));
    expect(await withMissedText(px, all, { detect }, LINES_CFG)).toEqual(all);
    const blank = async (input: Tensor): Promise<Tensor> => ({
      data: new Float32Array(input.data.length / 3),
      dims: [1, 1, input.dims[2]!, input.dims[3]!],
    });
    expect(await withMissedText(px, first, { detect: blank }, LINES_CFG)).toEqual(first);
    // a banner of two rows, lower than the strips' overlap: one strip, read whole
    const banner = inkPage(1275, 60, [...glyphs(100, 10, 100), ...glyphs(100, 40, 100)]);
    const found = await withMissedText(
      banner,
      [
        { ...box(90, 5, 300, 25), score: 1 },
        { ...box(90, 35, 300, 55), score: 1 },
      ],
      { detect },
      LINES_CFG,
    );
    expect(found.length).toBe(2);
    expect(Math.min(...found.map((b) => b.xMin))).toBeLessThan(100);
    expect(Math.max(...found.map((b) => b.xMax))).toBeGreaterThan(1000);
  });
});

describe("missedLargeText and withLargeText", () => {
  // three lines of body type the detector boxed (20-px boxes over 10-px glyphs), and a headline of 40-px glyphs
  // (24 px wide, 4 apart) below them that it missed but for its last word
  const body = [box(40, 35, 560, 55), box(40, 65, 560, 85), box(40, 95, 560, 115)];
  const text = [...glyphs(50, 40, 50), ...glyphs(50, 70, 50), ...glyphs(50, 100, 50)];
  const headline: [number, number, number, number][] = Array.from({ length: 12 }, (_, k) => [50 + 28 * k, 200, 74 + 28 * k, 240]);
  const px = inkPage(600, 300, [...text, ...headline]);
  // its last word's box, as tall as a headline's (the glyphs under it are inside it)
  const lastWord = box(270, 190, 390, 250);

  it("finds a headline's glyphs outside every box as a run, and a lone letter at the end of its box", () => {
    const runs = missedLargeText(px, [...body, lastWord]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ xMin: 50, yMin: 200, yMax: 240 });
    expect(runs[0]!.xMax).toBeLessThanOrEqual(270);
    // the headline's first letter alone beside the box of the rest
    const first = missedLargeText(px, [...body, box(78, 190, 390, 250)]);
    expect(first).toEqual([{ xMin: 50, xMax: 74, yMin: 200, yMax: 240 }]);
  });

  it("leaves a lone large glyph beside lower boxes (a drop cap), body-sized glyphs, rules and a page it boxed", () => {
    const dropCap = inkPage(600, 300, [...text, [10, 35, 34, 85]]);
    expect(missedLargeText(dropCap, body)).toEqual([]);
    // glyphs of body type outside the boxes are missedText's
    expect(missedLargeText(inkPage(600, 300, [...text, ...glyphs(50, 200, 40)]), body)).toEqual([]);
    expect(missedLargeText(inkPage(600, 300, [...text, [50, 200, 550, 240]]), body)).toEqual([]);
    expect(missedLargeText(px, [...body, box(40, 190, 390, 250)])).toEqual([]);
  });

  it("boxes the headline's strip again, in place of the boxes inside what it finds", async () => {
    const first = [...body, lastWord].map((b) => ({ ...b, score: 1 }));
    const found = await withLargeText(px, first, { detect }, LINES_CFG);
    // the body's boxes stay; the headline is one box across all its glyphs, the last word's box gone
    expect(found.slice(0, 3)).toEqual(first.slice(0, 3));
    expect(found).toHaveLength(4);
    const [head] = found.slice(3);
    expect(head!.xMin).toBeLessThanOrEqual(50);
    expect(head!.xMax).toBeGreaterThanOrEqual(382);
    expect(head!.yMin).toBeLessThanOrEqual(200);
    expect(head!.yMax).toBeGreaterThanOrEqual(240);
    // nothing missed: the boxes as they were
    const whole = [...first.slice(0, 3), { ...box(40, 190, 390, 250), score: 1 }];
    expect(await withLargeText(px, whole, { detect }, LINES_CFG)).toEqual(whole);
  });
});
