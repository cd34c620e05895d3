import { describe, expect, it } from "vitest";
import { missedText } from "../../src/vision/missed-text.js";

// a white page with dark rectangles: glyphs, and the boxes a detector found
function page(width: number, height: number, ink: [number, number, number, number][]) {
  const data = Buffer.alloc(width * height * 3, 255);
  for (const [x0, y0, x1, y1] of ink)
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.fill(0, (y * width + x) * 3, (y * width + x) * 3 + 3);
  return { width, height, data };
}
const box = (xMin: number, yMin: number, xMax: number, yMax: number) => ({ xMin, yMin, xMax, yMax });
/** `n` glyphs 6 px wide and 10 high from x, 3 px apart, a word space every fourth */
function glyphs(x: number, y: number, n: number): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let k = 0; k < n; k++, x += 9 + (k % 4 === 0 ? 8 : 0)) out.push([x, y, x + 6, y + 10]);
  return out;
}

describe("missedText", () => {
  // two lines the detector found (boxes 20 px high over 10-px glyphs), a third it found only the start of
  const found = [box(40, 95, 560, 115), box(40, 125, 560, 145), box(40, 155, 120, 175)];
  const text = [...glyphs(50, 100, 50), ...glyphs(50, 130, 50), ...glyphs(50, 160, 50)];

  it("finds the glyphs of a line outside every box, as one run along the row", () => {
    const runs = missedText(page(600, 300, text), found);
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run!.yMin).toBe(160);
    expect(run!.yMax).toBe(170);
    expect(run!.xMin).toBeGreaterThan(110);
    // every glyph whose middle lies right of the third box
    expect(run!.centres.length).toBe(text.filter(([x0, y0, x1]) => y0 === 160 && (x0 + x1) / 2 > 120).length);
  });

  it("finds nothing where the boxes hold the text", () => {
    expect(missedText(page(600, 300, text), [...found.slice(0, 2), box(40, 155, 560, 175)])).toEqual([]);
  });

  it("ignores specks, rules, tall figures, a few glyphs alone, glyphs far apart and a curve in pieces", () => {
    const px = page(600, 300, [
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
    expect(missedText(page(600, 300, text), [found[0]!])).toEqual([]);
    expect(missedText(page(600, 300, text), [])).toEqual([]);
  });
});
