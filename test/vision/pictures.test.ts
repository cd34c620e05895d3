// Pictures found from a page's pixels (src/vision/pictures.ts): a screenshot-like region is a picture and its lines
// are left out; a shaded box of text, a page of text and a grey scan's paper are not pictures.
import { describe, expect, it } from "vitest";
import { insidePicture, pictureCandidates, pictureRegions } from "../../src/vision/pictures.js";
import type { PagePixels } from "../../src/vision/preprocess.js";
import type { Extent } from "../../src/layout/xycut.js";

const W = 1200,
  H = 1700;

function page(paper = 255): PagePixels {
  return { width: W, height: H, data: Buffer.alloc(W * H * 3, paper) };
}

function fill(p: PagePixels, x0: number, y0: number, x1: number, y1: number, grey: (x: number, y: number) => number): void {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) p.data.fill(grey(x, y), (y * W + x) * 3, (y * W + x) * 3 + 3);
}

/** Lines of "text": dark strokes every 12 px along each line box, as glyphs are. */
function text(p: PagePixels, lines: Extent[]): void {
  for (const l of lines) fill(p, l.xMin, l.yMin + 4, l.xMax, l.yMax - 4, (x) => (x % 12 < 3 ? 20 : p.data[((l.yMin + 4) * W + x) * 3]!));
}

const box = (xMin: number, yMin: number, xMax: number, yMax: number): Extent => ({ xMin, yMin, xMax, yMax });
const body = Array.from({ length: 30 }, (_, i) => box(120, 100 + 40 * i, 1080, 124 + 40 * i));

/** A window: light-grey toolbar over a mid-grey panel holding a waveform (a band of samples, each a dark stroke whose
 * length follows the signal) under a ruler's ticks, shaded icons in a row; a few labels on it, body text around. */
function screenshotPage(): { p: PagePixels; labels: Extent[]; lines: Extent[] } {
  const p = page();
  fill(p, 150, 400, 1050, 460, () => 238);
  fill(p, 150, 460, 1050, 900, (x, y) => {
    if (y < 490) return x % 25 < 2 ? 30 : 230;
    const a = 150 * Math.abs(Math.sin(x / 40)) * (0.5 + 0.5 * Math.abs(Math.sin(x * 1.7)));
    return Math.abs(y - 690) < a && x % 3 ? 40 + ((x * 37) % 90) : 190;
  });
  for (let k = 0; k < 12; k++) fill(p, 170 + 70 * k, 410, 210 + 70 * k, 450, (x, y) => 40 + ((x * 13 + y * 7) % 160));
  const labels = [box(160, 905, 260, 925), box(900, 905, 1000, 925), box(600, 470, 700, 490)];
  text(p, [body[0]!, body[1]!, body[25]!]);
  return { p, labels, lines: [body[0]!, body[1]!, ...labels, body[25]!] };
}

/** The page at twice its resolution (each pixel four), as a page scanned at 300 DPI holds one drawn at 150. */
function twice(p: PagePixels): PagePixels {
  const data = Buffer.alloc(4 * p.width * p.height * 3);
  for (let y = 0; y < 2 * p.height; y++)
    for (let x = 0; x < 2 * p.width; x++) {
      const from = ((y >> 1) * p.width + (x >> 1)) * 3;
      data.set(p.data.subarray(from, from + 3), (y * 2 * p.width + x) * 3);
    }
  return { width: 2 * p.width, height: 2 * p.height, data };
}

/** The page blurred by a 1-2-1 kernel along its rows and then its columns and its contrast taken to 0.9 about mid-grey,
 * as a scan softens and greys what it reads. */
function blurred(p: PagePixels): PagePixels {
  const grey = (d: Buffer, x: number, y: number) =>
    d[(Math.min(p.height - 1, Math.max(0, y)) * p.width + Math.min(p.width - 1, Math.max(0, x))) * 3]!;
  const across = Buffer.alloc(p.data.length);
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++)
      across.fill(
        (grey(p.data, x - 1, y) + 2 * grey(p.data, x, y) + grey(p.data, x + 1, y) + 2) >> 2,
        (y * p.width + x) * 3,
        (y * p.width + x) * 3 + 3,
      );
  const data = Buffer.alloc(p.data.length);
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++)
      data.fill(
        Math.round(128 + 0.9 * (((grey(across, x, y - 1) + 2 * grey(across, x, y) + grey(across, x, y + 1) + 2) >> 2) - 128)),
        (y * p.width + x) * 3,
        (y * p.width + x) * 3 + 3,
      );
  return { width: p.width, height: p.height, data };
}

const doubled = (l: Extent): Extent => ({ xMin: 2 * l.xMin, yMin: 2 * l.yMin, xMax: 2 * l.xMax, yMax: 2 * l.yMax });

describe("pictureRegions", () => {
  it("finds a screenshot: grey panels, a curve and widgets, with a few labels on it", () => {
    const { p, labels, lines } = screenshotPage();
    const pictures = pictureRegions(p, lines);
    expect(pictures).toHaveLength(1);
    const [pic] = pictures;
    // to within a cell (8 px)
    expect(pic!.yMin).toBeLessThanOrEqual(408);
    expect(pic!.yMax).toBeGreaterThanOrEqual(892);
    // the label on the panel goes with the picture; the body text above and below does not
    expect(insidePicture(labels[2]!, pictures)).toBe(true);
    expect([body[0]!, body[1]!, body[25]!].some((l) => insidePicture(l, pictures))).toBe(false);
  });

  it("finds the same screenshot on the page at twice the resolution, its edges measured at the page's scale", () => {
    const { p, labels, lines } = screenshotPage();
    const [at150] = pictureCandidates(p, lines);
    const big = twice(p);
    const [at300] = pictureCandidates(big, lines.map(doubled));
    // an edge two pixels wide covers half the share of a box four times the pixels: measured across two pixels
    // it is the same share
    expect(at300!.edges).toBeCloseTo(at150!.edges, 2);
    const pictures = pictureRegions(big, lines.map(doubled));
    expect(pictures).toHaveLength(1);
    expect(insidePicture(doubled(labels[2]!), pictures)).toBe(true);
    expect([body[0]!, body[25]!].some((l) => insidePicture(doubled(l), pictures))).toBe(false);
  });

  it("finds the screenshot scanned soft, its edges blurred over two pixels; a shaded box of code so blurred stays text", () => {
    const { p, labels, lines } = screenshotPage();
    // blurred and greyed, most of its steps are spread over two pixels, each under EDGE: across one pixel its edge
    // share is 0.021 (under MIN_EDGES), across two (halved) 0.042
    const soft = blurred(p);
    expect(pictureCandidates(soft, lines)[0]!.edges).toBeGreaterThan(0.035);
    const pictures = pictureRegions(soft, lines);
    expect(pictures).toHaveLength(1);
    expect(insidePicture(labels[2]!, pictures)).toBe(true);
    // a shaded box of code, blurred the same way, stays text
    const code = page();
    fill(code, 150, 400, 1050, 700, () => 225);
    const codeLines = Array.from({ length: 6 }, (_, i) => box(170, 420 + 45 * i, 170 + 120 * (i + 1), 444 + 45 * i));
    text(code, codeLines);
    expect(pictureRegions(blurred(code), codeLines)).toEqual([]);
  });

  it("keeps a shaded box of code: one flat fill whose lines are read", () => {
    const p = page();
    fill(p, 150, 400, 1050, 700, () => 225);
    const code = Array.from({ length: 6 }, (_, i) => box(170, 420 + 45 * i, 170 + 120 * (i + 1), 444 + 45 * i));
    text(p, code);
    // it is a candidate (a large filled region) ...
    expect(pictureCandidates(p, code)).toHaveLength(1);
    // ... but a flat one: not a picture
    expect(pictureRegions(p, code)).toEqual([]);
  });

  it("finds none on a page of text, on white or on a grey scan's paper", () => {
    for (const paper of [255, 200]) {
      const p = page(paper);
      text(p, body);
      expect(pictureRegions(p, body)).toEqual([]);
    }
  });

  it("does not take a page of text set on a picture-like ground when the lines cover it", () => {
    const p = page();
    fill(p, 100, 90, 1100, 1320, (x, y) => ((x * 7 + y * 3) % 50 < 25 ? 150 : 210));
    text(p, body);
    expect(pictureRegions(p, body)).toEqual([]);
  });
});

describe("insidePicture", () => {
  it("takes a line when most of its box lies inside a picture", () => {
    const pic = [box(100, 100, 500, 500)];
    expect(insidePicture(box(120, 200, 480, 220), pic)).toBe(true);
    expect(insidePicture(box(300, 200, 900, 220), pic)).toBe(false);
    expect(insidePicture(box(100, 600, 400, 620), pic)).toBe(false);
  });
});
