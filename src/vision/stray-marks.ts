// Short marks among the page's lines that the detector does not box: PP-OCR's detector misses a glyph or two standing
// alone (a table's row numbers "1" … "6" beside the cells it finds, a one-figure cell, an item's letter). Such a mark
// shows as glyph-sized ink outside every detected box, with nothing else of its row near it; lines.ts keeps those the
// recogniser reads as a few sure digits, and they take part in the reading order as lines.
import { rowGroups } from "./components.js";
import { inkOutside } from "./missed-text.js";
import { median, type Extent } from "../layout/xycut.js";
import type { PagePixels } from "./preprocess.js";

/** Ink darker than this (0–255 luminance) makes glyphs. */
const INK = 160;
/** A glyph stands this high at least and at most, in the page's median detected line heights (a box grown by the
 * detector's unclip stands about twice its capitals' height). */
const GLYPH_MIN = 0.3;
const GLYPH_MAX = 0.8;
/** …and is at most this wide, in line heights (a component of 4 pixels or more: specks are no glyphs). */
const GLYPH_MAX_WIDTH = 0.8;
/** Glyphs join a mark across gaps of this many of their heights; a mark holds at most STRAY_GLYPHS of them. */
const JOIN = 0.6;
export const STRAY_GLYPHS = 3;
/** Nothing else within this many line heights of a mark, across its row (a word the detector cut short ends there). */
const CLEAR = 0.5;

/**
 * Marks of 1-STRAY_GLYPHS glyph-sized ink components outside every box of `boxes` and every picture, between the
 * outermost detected lines (marginMarks reads the margins), with no other ink near them along their row. Each comes
 * back as a box a line high round its glyphs, grown at the sides like a detected one (so the page's median line height
 * and its cuts stay as they were).
 */
export function strayMarks(page: PagePixels, boxes: readonly Extent[], pictures: readonly Extent[], unclip: number): Extent[] {
  if (boxes.length < 2) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  if (!(line > 0)) return [];
  const top = Math.floor(Math.min(...boxes.map((b) => b.yMin))),
    bottom = Math.ceil(Math.max(...boxes.map((b) => b.yMax)));
  const ink = inkOutside(page, [...boxes, ...pictures], top, bottom, INK).filter((r) => r.pixels >= 4);
  const glyph = (r: (typeof ink)[number]) => {
    const h = r.yMax - r.yMin,
      w = r.xMax - r.xMin;
    return h >= GLYPH_MIN * line && h <= GLYPH_MAX * line && w <= GLYPH_MAX_WIDTH * line;
  };
  // (a rule or a frame round a cell is no text beside a mark)
  const textLike = (r: Extent) => r.yMax - r.yMin <= line && r.xMax - r.xMin <= 2 * line;
  const groups = rowGroups(ink.filter(glyph), (m, c) => {
    const h = Math.max(m.yMax - m.yMin, c.yMax - c.yMin);
    const overlap = Math.min(m.yMax, c.yMax) - Math.max(m.yMin, c.yMin);
    return overlap > 0 && c.xMin - m.xMax <= JOIN * h;
  });
  const marks: Extent[] = [];
  for (const { extent: g, members } of groups) {
    if (members.length > STRAY_GLYPHS) continue;
    // nothing else near along the row: neither a detected box nor other ink
    const row = { xMin: g.xMin - CLEAR * line, xMax: g.xMax + CLEAR * line, yMin: g.yMin, yMax: g.yMax };
    const near = (e: Extent) => e.xMin < row.xMax && e.xMax > row.xMin && e.yMin < row.yMax && e.yMax > row.yMin;
    if (boxes.some(near) || ink.some((r) => !members.includes(r) && textLike(r) && near(r))) continue;
    const w = g.xMax - g.xMin,
      h = g.yMax - g.yMin;
    // (grown at the sides like a detected box, and by a quarter line at least: the recogniser reads a lone "1" cut close
    // to its stroke unsurely)
    const d = Math.max((w * h * unclip) / (2 * (w + h)), 0.25 * line);
    const middle = (g.yMin + g.yMax) / 2;
    marks.push({
      xMin: Math.max(0, g.xMin - d),
      xMax: Math.min(page.width, g.xMax + d),
      yMin: Math.max(0, middle - line / 2),
      yMax: Math.min(page.height, middle + line / 2),
    });
  }
  return marks;
}
