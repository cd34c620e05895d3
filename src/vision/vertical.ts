// Text set vertically: a document number printed up a form's margin (every page of the tobacco archive's forms
// carries one), a table's turned column headings, a spine. PP-OCR's detector, trained on horizontal lines, finds
// such a line either as one tall box or as a stack of one box per glyph; read as horizontal lines they come out as
// a handful of one-letter lines of nonsense ("lö", "S", "{" for "82250337"). Here the candidates are found from
// the boxes' shapes alone, and the page's line reader decides by reading each one turned both ways.
import { extentOf, median, type Extent } from "../layout/xycut.js";
import { pixelRegion, type PagePixels } from "./preprocess.js";

/** Which way a crop is turned to set its text upright: "ccw" for text that runs down the page, "cw" for text that runs up. */
export type Turn = "cw" | "ccw";

export interface VerticalCandidate {
  /** indices of the detected boxes it is made of, top to bottom */
  members: number[];
  /** their union */
  box: Extent;
}

/** A stack's boxes overlap horizontally by at least this share of the narrower one… */
const STACK_OVERLAP = 0.6;
/** …differ in width at most this many times… */
const STACK_WIDTH_RATIO = 2;
/** …and lie at most this share of their mean width apart vertically (glyphs of one word, not rows of a table). */
const STACK_GAP = 0.5;
/** A box of a stack is at most this many times wider than tall (a glyph turned, or a few: not a line of text). */
const GLYPH_ASPECT = 2.5;
/** A candidate is at least this many times taller than wide. */
const TALL = 2.5;
/** …and at least this share of the page's median line height wide (not a rule or a bar). */
const MIN_WIDTH = 0.5;

/**
 * Tall boxes and stacks of boxes that may be a vertical line of text: a box at least TALL times taller than wide,
 * or a chain of three or more boxes no wider than a few glyphs (GLYPH_ASPECT), each the nearest below the one
 * before it, of like widths, overlapping horizontally and close together, whose union is at least TALL times
 * taller than wide. The candidates are disjoint.
 */
export function verticalCandidates(boxes: readonly Extent[]): VerticalCandidate[] {
  const lineHeight = median(boxes.map((b) => b.yMax - b.yMin)) || 1;
  const width = (b: Extent) => b.xMax - b.xMin;
  const tall = (b: Extent) => b.yMax - b.yMin >= TALL * width(b) && width(b) >= MIN_WIDTH * lineHeight;
  const glyphs = (b: Extent) => width(b) <= GLYPH_ASPECT * (b.yMax - b.yMin);
  const byTop = boxes
    .map((_, k) => k)
    .filter((k) => glyphs(boxes[k]!))
    .sort((a, b) => boxes[a]!.yMin - boxes[b]!.yMin);
  // the box that continues box k downwards, if any
  const below = (k: number): number | undefined => {
    const a = boxes[k]!;
    let best: number | undefined;
    for (const j of byTop) {
      const b = boxes[j]!;
      if (j === k || b.yMin < a.yMin) continue;
      const overlap = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
      const narrow = Math.min(width(a), width(b));
      const ratio = Math.max(width(a), width(b)) / Math.max(1e-6, narrow);
      const gap = b.yMin - a.yMax;
      if (overlap < STACK_OVERLAP * narrow || ratio > STACK_WIDTH_RATIO) continue;
      if (gap > (STACK_GAP * (width(a) + width(b))) / 2) continue;
      if (best === undefined || b.yMin < boxes[best]!.yMin) best = j;
    }
    return best;
  };
  const used = new Set<number>();
  const out: VerticalCandidate[] = [];
  for (const k of byTop) {
    if (used.has(k)) continue;
    const members = [k];
    for (let next = below(k); next !== undefined && !used.has(next) && !members.includes(next); next = below(next)) members.push(next);
    const box = extentOf(members, boxes);
    if ((members.length >= 3 || tall(boxes[k]!)) && box.yMax - box.yMin >= TALL * width(box) && width(box) >= MIN_WIDTH * lineHeight) {
      out.push({ members, box });
      for (const m of members) used.add(m);
    }
  }
  return out;
}

/**
 * The region `box` of the page turned a quarter: "ccw" brings its top to the left (text that runs down the page
 * reads left to right), "cw" its bottom.
 */
export function turnedRegion(page: PagePixels, box: Extent, turn: Turn): PagePixels {
  const { x0, x1, y0, y1 } = pixelRegion(page, box);
  const cw = Math.max(1, x1 - x0),
    ch = Math.max(1, y1 - y0);
  // turned: ch columns, cw rows
  const data = Buffer.alloc(cw * ch * 3);
  for (let y = 0; y < cw; y++)
    for (let x = 0; x < ch; x++) {
      const sx = turn === "ccw" ? x0 + cw - 1 - y : x0 + y;
      const sy = turn === "ccw" ? y0 + x : y0 + ch - 1 - x;
      const s = (sy * page.width + sx) * 3,
        d = (y * ch + x) * 3;
      data[d] = page.data[s]!;
      data[d + 1] = page.data[s + 1]!;
      data[d + 2] = page.data[s + 2]!;
    }
  return { width: ch, height: cw, data };
}

/**
 * Where a vertical line would lie set upright, for the decoder's layout features (it was trained on horizontal
 * lines: a tall box reads to it as one huge glyph): its width and height swapped about its centre, moved inside
 * the page.
 */
export function readingBox(box: Extent, page: { width: number; height: number }): Extent {
  const w = box.yMax - box.yMin,
    h = box.xMax - box.xMin;
  const cx = (box.xMin + box.xMax) / 2,
    cy = (box.yMin + box.yMax) / 2;
  const xMin = Math.max(0, Math.min(page.width - w, cx - w / 2));
  const yMin = Math.max(0, Math.min(page.height - h, cy - h / 2));
  return { xMin, xMax: xMin + w, yMin, yMax: yMin + h };
}
