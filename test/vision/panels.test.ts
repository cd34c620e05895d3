import { describe, expect, it } from "vitest";
import { panelRegions } from "../../src/vision/panels.js";

/** A white page with rectangles filled by `fill(x, y)` (RGB). */
function page(width: number, height: number, rects: [number, number, number, number, (x: number, y: number) => number[]][]) {
  const data = Buffer.alloc(width * height * 3, 255);
  for (const [x0, y0, x1, y1, fill] of rects)
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data.set(fill(x, y), (y * width + x) * 3);
  return { width, height, data };
}
const box = (xMin: number, yMin: number, xMax: number, yMax: number) => ({ xMin, yMin, xMax, yMax });
// body lines 30 px high down the page's left (the page's line height), one line inside each rectangle below
const body = Array.from({ length: 8 }, (_, k) => box(60, 100 + 40 * k, 560, 130 + 40 * k));

describe("panelRegions", () => {
  it("finds a box of flat colour holding a line, its white type and all", () => {
    // a red box 400 x 240 with bars of white "type" across it
    const red = (x: number, y: number) => (y % 30 < 8 && x % 12 < 3 ? [255, 255, 255] : [198, 40, 40]);
    const px = page(1240, 1754, [[600, 400, 1000, 640, red]]);
    const panels = panelRegions(px, [...body, box(620, 420, 980, 450)]);
    expect(panels).toHaveLength(1);
    const [p] = panels;
    for (const [got, want] of [
      [p!.xMin, 600],
      [p!.xMax, 1000],
      [p!.yMin, 400],
      [p!.yMax, 640],
    ])
      expect(Math.abs(got! - want!)).toBeLessThanOrEqual(8);
  });

  it("leaves a photograph's gradient, a box holding no line, a shaded row one line high, and the paper", () => {
    const gradient = (x: number, y: number) => [Math.round((x - 600) / 2), Math.round((y - 400) / 2), 120];
    const grey = () => [220, 220, 220];
    const px = page(1240, 1754, [
      [600, 400, 1000, 640, gradient],
      [600, 800, 1000, 1040, grey],
      [60, 1200, 1000, 1236, grey],
    ]);
    expect(panelRegions(px, [...body, box(620, 420, 980, 450), box(80, 1203, 900, 1233)])).toEqual([]);
    // on paper of any colour the paper is no panel
    const cream = page(400, 400, [[0, 0, 400, 400, () => [250, 240, 200]]]);
    expect(panelRegions(cream, [box(20, 20, 380, 50), box(20, 60, 380, 90)])).toEqual([]);
  });
});
