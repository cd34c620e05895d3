// Text the detector missed. PP-OCR's detector sees a page scaled to 960 px on its long side: an A4 page at 150 DPI
// at 0.58 of its pixels, a 300-DPI scan at 0.27. Type of 8 points then has an x-height of 4-5 detector pixels, and
// the detector loses stretches of such lines (a running header read "Глава 12: Преоб" for its whole line, the
// middle of a justified line left out, the line around it in fragments). Such text shows as glyph-sized ink outside
// every detected box, in runs along a row; where there are any, lines.ts detects the page again at a larger scale
// (withMissedText).
import { darkRuns, rowGroups, type DarkRun } from "./components.js";
import { median, type Extent } from "../layout/xycut.js";
import { type PagePixels, pixelRegion } from "./preprocess.js";

/** Ink darker than this (0–255 luminance) makes glyphs. */
const INK = 160;
/** A glyph is this high at least and at most, in the page's median detected line heights (a box grown by the
 * detector's unclip stands a little over its text's height: an x-height glyph is a fifth to a third of it). */
const GLYPH_MIN = 0.15;
const GLYPH_MAX = 1;
/** …and at most this wide (a rule, a frame, a plot's curve is no glyph). */
const GLYPH_MAX_WIDTH = 2;
/** Glyphs of one row join a run across gaps up to this many line heights (a word space; a column gutter is wider). */
const RUN_JOIN = 1;
/** A run of missed text holds this many glyphs at least and is this many line heights wide at least (and a line
 * high at most: a row of text's glyphs stand within its line; a plot's curve, broken into glyph-sized pieces, does
 * not). */
export const MISSED_GLYPHS = 5;
const MISSED_WIDTH = 2;

/** A row of glyphs no detected box holds: its extent and how many glyphs it holds. */
export interface MissedRun extends Extent {
  glyphs: number;
}

/** The runs of ink darker than `dark` between rows y0 and y1 that lie outside every box of `boxes` (the page's text
 * is mostly inside them: its runs are not traced). */
export function inkOutside(page: PagePixels, boxes: readonly Extent[], y0: number, y1: number, dark: number): DarkRun[] {
  const covered = new Uint8Array(page.width * page.height);
  for (const b of boxes) {
    const r = pixelRegion(page, b);
    for (let y = r.y0; y < r.y1; y++) covered.fill(1, y * page.width + r.x0, y * page.width + r.x1);
  }
  return darkRuns(page, 0, page.width, y0, y1, dark, covered);
}

/** The page's runs of ink (darker than INK) outside every box of `boxes`: what missedText and missedLargeText look
 * at, traced once for both where the boxes are the same. */
export function inkOutsideBoxes(page: PagePixels, boxes: readonly Extent[]): DarkRun[] {
  return inkOutside(page, boxes, 0, page.height, INK);
}

/** The runs of glyph-sized ink along a row that lie outside every box of `boxes` (none with fewer than two boxes:
 * there is no line height to measure glyphs by); `ink`: inkOutsideBoxes(page, boxes), where it was traced. */
export function missedText(page: PagePixels, boxes: readonly Extent[], ink?: readonly DarkRun[]): MissedRun[] {
  if (boxes.length < 2) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  if (!(line > 0)) return [];
  const missed = (ink ?? inkOutsideBoxes(page, boxes)).filter((r) => {
    const h = r.yMax - r.yMin,
      w = r.xMax - r.xMin;
    return r.pixels >= 4 && h >= GLYPH_MIN * line && h <= GLYPH_MAX * line && w <= GLYPH_MAX_WIDTH * line;
  });
  const runs = rowGroups(missed, (m, g) => {
    const overlap = Math.min(m.yMax, g.yMax) - Math.max(m.yMin, g.yMin);
    return overlap >= 0.5 * (g.yMax - g.yMin) && g.xMin - m.xMax <= RUN_JOIN * line;
  });
  return runs
    .filter(
      ({ extent: r, members }) => members.length >= MISSED_GLYPHS && r.xMax - r.xMin >= MISSED_WIDTH * line && r.yMax - r.yMin <= line,
    )
    .map(({ extent, members }) => ({ ...extent, glyphs: members.length }));
}

/** Glyphs of large type stand this many of the page's median detected line heights high at most (a headline of 64
 * pixels over body type of 17 stands 1.1-1.9 of its boxes' height)… */
const LARGE_MAX = 5;
/** …and a run of them holds this many glyphs at least, and is this many of its own glyph heights wide. */
const LARGE_GLYPHS = 3;
const LARGE_WIDTH = 2;

/**
 * Runs of large type the detector missed: glyphs at least a line high (GLYPH_MAX, where missedText's end) and at most
 * LARGE_MAX, no wider than twice their height, outside every box, LARGE_GLYPHS or more along a row across gaps of
 * up to their height, or fewer within their height of the end of a box at least as tall on their row. PP-OCR's
 * detector loses headlines at the scale it sees an A4 page at (960 px: "A path by the river" set at 64 px in a serif
 * was boxed as "river" and a speck; the same page at 0.35 or 0.77 of its pixels, or the headline's strip alone at
 * the same scale, was boxed whole). `ink` as missedText's.
 */
export function missedLargeText(page: PagePixels, boxes: readonly Extent[], ink?: readonly DarkRun[]): Extent[] {
  if (boxes.length < 2) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  if (!(line > 0)) return [];
  const large = (ink ?? inkOutsideBoxes(page, boxes)).filter((r) => {
    const h = r.yMax - r.yMin,
      w = r.xMax - r.xMin;
    return h > GLYPH_MAX * line && h <= LARGE_MAX * line && w <= 2 * h;
  });
  const runs = rowGroups(large, (m, g) => {
    const overlap = Math.min(m.yMax, g.yMax) - Math.max(m.yMin, g.yMin);
    return overlap >= 0.5 * Math.min(m.yMax - m.yMin, g.yMax - g.yMin) && g.xMin - m.xMax <= g.yMax - g.yMin;
  });
  // (or fewer glyphs at the end of a box as tall as they are: the headline's first letter its box left out, "A" of
  // "A path by the river" at 54 px)
  const beside = (r: Extent) => {
    const h = r.yMax - r.yMin;
    return boxes.some(
      (b) =>
        b.yMax - b.yMin >= h &&
        Math.min(b.yMax, r.yMax) - Math.max(b.yMin, r.yMin) >= 0.5 * h &&
        Math.max(b.xMin - r.xMax, r.xMin - b.xMax) <= h,
    );
  };
  return runs
    .filter(({ extent: r, members }) => (members.length >= LARGE_GLYPHS && r.xMax - r.xMin >= LARGE_WIDTH * (r.yMax - r.yMin)) || beside(r))
    .map(({ extent }) => extent);
}
