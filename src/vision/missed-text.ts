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

/** The runs of glyph-sized ink along a row that lie outside every box of `boxes` (none with fewer than two boxes:
 * there is no line height to measure glyphs by). */
export function missedText(page: PagePixels, boxes: readonly Extent[]): MissedRun[] {
  if (boxes.length < 2) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  if (!(line > 0)) return [];
  const missed = inkOutside(page, boxes, 0, page.height, INK).filter((r) => {
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
