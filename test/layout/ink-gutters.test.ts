// Lines of two columns the detector joined, cut where the page's pixels show the gutter.
import { describe, expect, it } from "vitest";
import { splitAtInkGutters, type InkPage } from "../../src/layout/ink-gutters.js";

const W = 1200,
  H = 800;
function page(): InkPage {
  return { width: W, height: H, data: new Uint8Array(W * H * 3).fill(255) };
}
/** "Words": ink blocks along a line, `space` apart, between x0 and x1, rows y0..y1. */
function words(p: InkPage, x0: number, x1: number, y0: number, y1: number, word = 60, space = 12): void {
  for (let x = x0; x < x1; x += word + space)
    for (let y = y0; y < y1; y++) for (let k = x; k < Math.min(x + word, x1); k++) p.data.fill(0, 3 * (y * W + k), 3 * (y * W + k) + 3);
}
const box = (xMin: number, yMin: number, xMax: number, yMax: number) => ({ xMin, yMin, xMax, yMax });

describe("splitAtInkGutters", () => {
  it("cuts lines of two columns read as one box at the gutter, where the gutter runs on above and below", () => {
    const p = page();
    const rows = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => 100 + 40 * k);
    for (const y of rows) {
      words(p, 100, 580, y + 8, y + 22);
      words(p, 620, 1100, y + 8, y + 22); // a 40 px gutter, word spaces 12 px
    }
    // rows 2–5 joined across the gutter, the others found per column
    const joined = rows.slice(2, 6).map((y) => box(90, y, 1110, y + 30));
    const apart = [...rows.slice(0, 2), ...rows.slice(6)].flatMap((y) => [box(90, y, 590, y + 30), box(610, y, 1110, y + 30)]);
    const out = splitAtInkGutters([...joined, ...apart], p);
    expect(out).toHaveLength(4 * 2 + apart.length);
    const halves = out.slice(0, 8);
    expect(halves.filter((_, k) => k % 2 === 0).every((b) => b.xMin === 90 && b.xMax > 580 && b.xMax < 600)).toBe(true);
    expect(halves.filter((_, k) => k % 2 === 1).every((b) => b.xMax === 1110 && b.xMin > 600 && b.xMin < 620)).toBe(true);
    expect(out.slice(8)).toEqual(apart);
  });

  it("leaves one column of text alone: an aligned gap in a few lines is not a gutter when lines around cross it", () => {
    const p = page();
    const rows = [0, 1, 2, 3, 4, 5, 6, 7].map((k) => 100 + 40 * k);
    rows.forEach((y, k) => {
      if (k >= 3 && k <= 5) {
        words(p, 100, 580, y + 8, y + 22); // a table-like stretch of three lines with a wide gap at one x
        words(p, 620, 1100, y + 8, y + 22);
      } else words(p, 100, 1100, y + 8, y + 22, 60, 12);
    });
    const lines = rows.map((y) => box(90, y, 1110, y + 30));
    expect(splitAtInkGutters(lines, p)).toEqual(lines);
  });

  it("does not cut off a margin note or a line number: both parts must be lines of a column", () => {
    const p = page();
    const rows = [0, 1, 2, 3].map((k) => 100 + 40 * k);
    for (const y of rows) {
      words(p, 100, 160, y + 8, y + 22); // "80"
      words(p, 220, 1100, y + 8, y + 22);
    }
    const lines = rows.map((y) => box(90, y, 1110, y + 30));
    expect(splitAtInkGutters(lines, p)).toEqual(lines);
  });
});
