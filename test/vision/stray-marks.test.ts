import { describe, expect, it } from "vitest";
import { strayMarks } from "../../src/vision/stray-marks.js";
import { box, inkPage, type Rect } from "./helpers.js";

// pages of dark rectangles (helpers.ts inkPage): glyphs, frames, and the boxes a detector found (20 px high over
// 10-px glyphs)
/** a frame's outline, 1 px wide */
const frame = (x0: number, y0: number, x1: number, y1: number): Rect[] => [
  [x0, y0, x1, y0 + 1],
  [x0, y1 - 1, x1, y1],
  [x0, y0, x0 + 1, y1],
  [x1 - 1, y0, x1, y1],
];

describe("strayMarks", () => {
  // a table's rows: the detector found each row's cells (the boxes), not the row number in the ruled column before them
  const rows = [100, 130, 160, 190];
  const found = rows.map((y) => box(80, y - 5, 400, y + 15));
  const cells = rows.map((y) => [90, y, 390, y + 10] as Rect);
  const numbers = rows.map((y) => [52, y, 56, y + 10] as Rect);
  const rules = [...frame(40, 90, 70, 210), ...frame(40, 90, 410, 210)];

  it("finds a lone glyph among the lines, in a ruled cell, as a box a line high", () => {
    const marks = strayMarks(inkPage(500, 300, [...cells, ...numbers, ...rules]), found, [], 1.5);
    expect(marks).toHaveLength(4);
    for (const [k, m] of [...marks].sort((a, b) => a.yMin - b.yMin).entries()) {
      expect(m.yMax - m.yMin).toBe(20);
      expect((m.yMin + m.yMax) / 2).toBe(rows[k]! + 5);
      expect(m.xMin).toBeLessThan(52);
      expect(m.xMax).toBeGreaterThan(56);
    }
  });

  it("leaves glyphs beside a box (a word cut short), runs of more than three, pictures and the margins", () => {
    const px = inkPage(500, 300, [
      ...cells,
      [405, 130, 410, 140], // just right of a row's box
      ...[0, 1, 2, 3].map((k) => [150 + 9 * k, 240, 156 + 9 * k, 250] as Rect), // four glyphs: a word
      [300, 245, 305, 255], // inside a picture
      [60, 20, 65, 30], // above every line: marginMarks reads it
    ]);
    expect(strayMarks(px, [...found, box(80, 230, 120, 260)], [box(280, 235, 330, 265)], 1.5)).toEqual([]);
  });

  it("joins glyphs a small gap apart into one mark, and leaves glyphs with other ink near them", () => {
    const px = inkPage(500, 300, [...cells, [200, 240, 206, 250], [209, 240, 215, 250], [60, 240, 66, 250], [75, 240, 81, 250]]);
    const marks = strayMarks(px, [...found, box(80, 270, 400, 290)], [], 1.5);
    // the glyphs at 200 and 209 join one mark; those at 60 and 75 lie too far apart to join (9 px, over 0.6 of their
    // height) and too close to stand alone (within half a line): pieces of something the detector left, no mark
    expect(marks.map((m) => [Math.round(m.xMin), Math.round(m.xMax)])).toEqual([[195, 220]]);
  });
});
