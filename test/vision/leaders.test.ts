// Dot leaders found in the pixels right of a line (src/vision/leaders.ts).
import { describe, expect, it } from "vitest";
import { leaderDots as leaders, withLeader } from "../../src/vision/leaders.js";
import type { LineBox } from "../../src/vision/lines.js";
import type { PagePixels } from "../../src/vision/preprocess.js";

/** A white page with black rectangles [x0, y0, x1, y1) drawn on it (grey where `grey` says). */
function page(width: number, height: number, rects: [number, number, number, number, number?][]): PagePixels {
  const data = Buffer.alloc(width * height * 3, 255);
  for (const [x0, y0, x1, y1, grey = 0] of rects)
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.fill(grey, (y * width + x) * 3, (y * width + x) * 3 + 3);
  return { width, height, data };
}

/** Each box's leader's dots (0: none). */
const leaderDots = (pixels: PagePixels, boxes: LineBox[]) => leaders(pixels, boxes).map((l) => l.dots);

const box = (xMin: number, yMin: number, xMax: number, yMax: number): LineBox => ({ xMin, yMin, xMax, yMax, score: 0.9 });

/** A table of contents' row: the entry's box [40, 200), the page number's [560, 580), 20 px high from y 100, and
 * `n` dots 2 px square on its baseline (y 114-116) every `pitch` px from x 210. */
function tocRow(n: number, pitch: number, extra: [number, number, number, number, number?][] = []) {
  const dots: [number, number, number, number, number?][] = Array.from({ length: n }, (_, k) => [
    210 + k * pitch,
    114,
    212 + k * pitch,
    116,
    120,
  ]);
  const entry: [number, number, number, number] = [45, 104, 195, 116];
  const number: [number, number, number, number] = [562, 104, 578, 116];
  return { pixels: page(640, 200, [entry, number, ...dots, ...extra]), boxes: [box(40, 100, 200, 120), box(560, 100, 580, 120)] };
}

describe("leaderDots", () => {
  it("counts the dots that run from an entry to its page number, and reaches the number", () => {
    const { pixels, boxes } = tocRow(26, 13);
    expect(leaderDots(pixels, boxes)).toEqual([26, 0]);
    // (the line reaches over its leader to the next box on its row: one row in the reading order)
    expect(leaders(pixels, boxes)[0]!.to).toBe(boxes[1]);
    // …a page number's, not words after a worksheet's blank
    const words = [boxes[0]!, box(560, 100, 640, 120)];
    expect(leaders(pixels, words).map((l) => [l.dots, l.to])).toEqual([
      [26, undefined],
      [0, undefined],
    ]);
  });

  it("finds none where the space holds other ink, the dots are uneven, stand high or stop short", () => {
    // a word the detector missed, in the middle of the dots
    expect(leaderDots(tocRow(26, 13, [[380, 104, 400, 116]]).pixels, tocRow(26, 13).boxes)).toEqual([0, 0]);
    // dots whose spacing jumps (a row of separate marks, not a leader)
    const uneven = page(640, 200, [
      [45, 104, 195, 116],
      [562, 104, 578, 116],
      ...[0, 13, 26, 39, 90, 103, 200, 213, 300, 313].map((x): [number, number, number, number] => [210 + x, 114, 212 + x, 116]),
    ]);
    expect(leaderDots(uneven, tocRow(0, 13).boxes)).toEqual([0, 0]);
    // middle dots at the line's middle height (an ellipsis row, a multiplication): not on the baseline
    const high = page(640, 200, [
      [45, 104, 195, 116],
      [562, 104, 578, 116],
      ...Array.from({ length: 26 }, (_, k): [number, number, number, number] => [210 + 13 * k, 104, 212 + 13 * k, 106]),
    ]);
    expect(leaderDots(high, tocRow(0, 13).boxes)).toEqual([0, 0]);
    // the tops of the next line's glyphs, cut by the box's lower edge (nl-fontcheatsheet: digits under "ated.")
    const cut = page(640, 200, [
      [45, 104, 195, 116],
      ...Array.from({ length: 26 }, (_, k): [number, number, number, number] => [210 + 13 * k, 117, 213 + 13 * k, 126]),
    ]);
    expect(leaderDots(cut, [box(40, 100, 200, 120)])).toEqual([0]);
    // four dots right after the entry, then blank space to the number: no leader filling the space
    expect(leaderDots(tocRow(4, 13).pixels, tocRow(4, 13).boxes)).toEqual([0, 0]);
  });

  it("ends a leader at a page number the detector did not box", () => {
    const { pixels, boxes } = tocRow(26, 13);
    // (the number's box left out: the space runs to the page's margin, through the number)
    expect(leaderDots(pixels, [boxes[0]!])).toEqual([26]);
    // (nothing to reach: the number is no box)
    expect(leaders(pixels, [boxes[0]!])[0]!.to).toBeUndefined();
    // …but dots that go on past other ink are no leader
    const { pixels: broken } = tocRow(26, 13, [
      [600, 104, 612, 116],
      ...Array.from({ length: 3 }, (_, k): [number, number, number, number] => [616 + 6 * k, 114, 618 + 6 * k, 116]),
    ]);
    expect(leaderDots(broken, [boxes[0]!])).toEqual([0]);
  });

  it("gives none to a line set vertically, and needs no number: a leader may run to the page's margin", () => {
    const { pixels } = tocRow(30, 13);
    const turned: LineBox = { ...box(40, 100, 200, 120), turn: "cw" };
    expect(leaderDots(pixels, [turned])).toEqual([0]);
    const toMargin = page(640, 200, [
      [45, 104, 195, 116],
      ...Array.from({ length: 31 }, (_, k): [number, number, number, number] => [210 + 13 * k, 114, 212 + 13 * k, 116]),
    ]);
    expect(leaderDots(toMargin, [box(40, 100, 200, 120)])).toEqual([31]);
  });
});

describe("withLeader", () => {
  it("writes the dots after the line's text, keeping its separator, and leaves a table's line alone", () => {
    expect(withLeader("\n\n2.1 Plugins", 5)).toBe("\n\n2.1 Plugins . . . . .");
    expect(withLeader("\n\n## 3 Recording\n", 4)).toBe("\n\n## 3 Recording . . . .\n");
    expect(withLeader("<tr><td>a</td>", 6)).toBe("<tr><td>a</td>");
    expect(withLeader(" text", 2)).toBe(" text");
  });
});
