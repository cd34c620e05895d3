// Link frames (hyperref's coloured boxes round references) are taken off a page; coloured glyphs and fills stay.
import { describe, expect, it } from "vitest";
import { withoutLinkBorders } from "../../src/vision/link-borders.js";
import type { PagePixels } from "../../src/vision/preprocess.js";

function blank(width: number, height: number): PagePixels {
  return { width, height, data: Buffer.alloc(width * height * 3, 255) };
}
const set = (page: PagePixels, x: number, y: number, rgb: [number, number, number]) => {
  page.data.set(rgb, 3 * (y * page.width + x));
};
const at = (page: PagePixels, x: number, y: number) =>
  Array.from(page.data.subarray(3 * (y * page.width + x), 3 * (y * page.width + x) + 3));
const RED: [number, number, number] = [255, 0, 0];
const BLACK: [number, number, number] = [0, 0, 0];

function frame(page: PagePixels, x0: number, y0: number, x1: number, y1: number, rgb: [number, number, number]) {
  for (let x = x0; x <= x1; x++) [y0, y1].forEach((y) => set(page, x, y, rgb));
  for (let y = y0; y <= y1; y++) [x0, x1].forEach((x) => set(page, x, y, rgb));
}

describe("withoutLinkBorders", () => {
  it("whitens a link's frame and keeps the digit inside it, a coloured O and a coloured fill", () => {
    const page = blank(220, 100);
    for (let y = 40; y <= 55; y++) for (let x = 58; x <= 62; x++) set(page, x, y, BLACK); // a "1"
    frame(page, 52, 36, 68, 59, RED);
    set(page, 51, 36, [255, 200, 200]); // the frame's anti-aliased edge
    for (let y = 40; y <= 60; y++) for (let x = 120; x <= 140; x++) set(page, x, y, RED); // a filled cell
    for (let t = 0; t < 360; t += 2) {
      // a red O, 20 x 30
      const a = (t * Math.PI) / 180;
      set(page, Math.round(180 + 10 * Math.cos(a)), Math.round(45 + 15 * Math.sin(a)), RED);
    }
    const { page: out, frames } = withoutLinkBorders(page);
    expect(frames.length).toBe(1);
    expect(at(out, 52, 45)).toEqual([255, 255, 255]);
    expect(at(out, 60, 36)).toEqual([255, 255, 255]);
    expect(at(out, 51, 36)).toEqual([255, 255, 255]);
    expect(at(out, 60, 45)).toEqual(BLACK);
    expect(at(out, 130, 50)).toEqual(RED);
    expect(at(out, 190, 45)).toEqual(RED);
    // the input is left as it was
    expect(at(page, 52, 45)).toEqual(RED);
  });

  it("returns a page without colour as it is", () => {
    const page = blank(50, 40);
    frame(page, 5, 5, 40, 30, BLACK);
    const r = withoutLinkBorders(page);
    expect(r.frames).toEqual([]);
    expect(r.page).toBe(page);
  });
});
