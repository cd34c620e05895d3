// Deskew: a page scanned askew is measured and turned straight before its lines are cut out; a straight page is
// left exactly as it is.
import { describe, expect, it } from "vitest";
import { deskewPage, estimateSkew, MIN_DESKEW_DEGREES, rotatePage } from "../../src/vision/deskew.js";
import type { PagePixels } from "../../src/vision/preprocess.js";

/** A white page with lines of word-like ink bars, each line rising or falling at `degrees`, two columns of them. */
function page(degrees: number, width = 900, height = 700): PagePixels {
  const data = Buffer.alloc(width * height * 3, 255);
  const t = Math.tan((degrees * Math.PI) / 180);
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const [left, right] of [
    [60, 420],
    [480, 840],
  ] as const) {
    for (let y0 = 90; y0 < height - 90; y0 += 34) {
      let x = left;
      while (x < right) {
        const word = 20 + Math.floor(rand() * 70);
        for (let xx = x; xx < Math.min(right, x + word); xx++) {
          const yc = Math.round(y0 + xx * t);
          for (let yy = yc; yy < yc + 12; yy++) {
            if (yy < 0 || yy >= height) continue;
            data.fill(20, (yy * width + xx) * 3, (yy * width + xx) * 3 + 3);
          }
        }
        x += word + 12;
      }
    }
  }
  return { width, height, data };
}

describe("deskew", () => {
  // (0.35, -1.15, 2.95: between the search's coarse steps of 0.25°, and near its end at 3°)
  for (const degrees of [0.6, -0.9, 2.2, 0.35, -1.15, 2.95]) {
    it(`measures a page ${degrees}° askew and turns it straight`, () => {
      const skewed = page(degrees);
      expect(Math.abs(estimateSkew(skewed) - degrees)).toBeLessThanOrEqual(0.1);
      const { page: straight, degrees: turned } = deskewPage(skewed);
      expect(Math.abs(turned - degrees)).toBeLessThanOrEqual(0.1);
      expect(straight.width).toBe(skewed.width);
      expect(straight.height).toBe(skewed.height);
      expect(Math.abs(estimateSkew(straight))).toBeLessThan(MIN_DESKEW_DEGREES);
    });
  }

  it("leaves a straight page and a blank page untouched (the same buffer)", () => {
    const straight = page(0);
    expect(estimateSkew(straight)).toBe(0);
    expect(deskewPage(straight).page).toBe(straight);
    const blank: PagePixels = { width: 300, height: 200, data: Buffer.alloc(300 * 200 * 3, 255) };
    expect(deskewPage(blank).page).toBe(blank);
  });

  it("turns about the centre: the centre pixel stays, a corner fills with white", () => {
    const p = page(0, 201, 101);
    p.data.fill(0, (50 * 201 + 100) * 3, (50 * 201 + 100) * 3 + 3);
    const r = rotatePage(p, 1.5);
    expect([...r.data.subarray((50 * 201 + 100) * 3, (50 * 201 + 100) * 3 + 3)]).toEqual([0, 0, 0]);
    expect([...r.data.subarray(0, 3)]).toEqual([255, 255, 255]);
  });
});
