// Frames round a glyph or two (a form's answer letters, its checkboxes) are taken off a page; a table's grid, a frame
// round a block of text, an O and the letters inside the frames stay.
import { describe, expect, it } from "vitest";
import { withoutGlyphFrames } from "../../src/vision/glyph-frames.js";
import type { PagePixels } from "../../src/vision/preprocess.js";

function blank(width: number, height: number): PagePixels {
  return { width, height, data: Buffer.alloc(width * height * 3, 255) };
}
const set = (page: PagePixels, x: number, y: number, v: number) =>
  page.data.fill(v, 3 * (y * page.width + x), 3 * (y * page.width + x) + 3);
const at = (page: PagePixels, x: number, y: number) => page.data[3 * (y * page.width + x)]!;
function frame(page: PagePixels, x0: number, y0: number, x1: number, y1: number) {
  for (let x = x0; x <= x1; x++) [y0, y1].forEach((y) => set(page, x, y, 0));
  for (let y = y0; y <= y1; y++) [x0, x1].forEach((x) => set(page, x, y, 0));
}

describe("withoutGlyphFrames", () => {
  // a page 1,200 px wide: a glyph's frame is at most 48 px a side
  const page = blank(1200, 200);
  for (let y = 24; y <= 34; y++) for (let x = 26; x <= 32; x++) set(page, x, y, 0); // an "a" in its square
  frame(page, 20, 20, 38, 38);
  set(page, 19, 20, 180); // the square's anti-aliased edge
  frame(page, 60, 20, 78, 38); // an empty checkbox
  // a table's two cells sharing a side: one run of ink, no frame
  frame(page, 100, 20, 130, 40);
  frame(page, 130, 20, 160, 40);
  frame(page, 200, 20, 400, 60); // a frame round a block of text, wider than a glyph's
  for (let t = 0; t < 360; t += 2) {
    // an O, 20 x 24
    const a = (t * Math.PI) / 180;
    set(page, Math.round(500 + 10 * Math.cos(a)), Math.round(40 + 12 * Math.sin(a)), 0);
  }

  it("whitens the frames round a letter and an empty checkbox, and keeps the letter", () => {
    const { page: out, frames } = withoutGlyphFrames(page);
    expect(frames).toEqual([
      { xMin: 20, yMin: 20, xMax: 39, yMax: 39 },
      { xMin: 60, yMin: 20, xMax: 79, yMax: 39 },
    ]);
    expect([at(out, 20, 30), at(out, 29, 20), at(out, 19, 20), at(out, 60, 30)]).toEqual([255, 255, 255, 255]);
    expect(at(out, 29, 30)).toBe(0);
  });

  it("keeps a table's grid, a frame round a block of text and an O", () => {
    const { page: out } = withoutGlyphFrames(page);
    expect([at(out, 130, 30), at(out, 100, 30), at(out, 200, 40), at(out, 510, 40)]).toEqual([0, 0, 0, 0]);
    expect(withoutGlyphFrames(blank(100, 100)).frames).toEqual([]);
  });
});
