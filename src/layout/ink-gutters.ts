// Column gutters seen in the page's pixels: a detector box that holds a line of each of two columns (a page scanned
// a little askew, with noise, joins them where the gutter is narrow) is split where the page shows the gutter.
import type { Extent } from "./xycut.js";

/** RGB page pixels, row-major. */
export interface InkPage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A box at least this many times as wide as high may hold two columns' lines. */
const LONG_LINE = 8;
/** An ink-free run inside a long box at least this many box heights wide may be a gutter (word spaces are narrower). */
const GAP = 0.45;
/** Runs of at least this many boxes at one x (within GAP box heights) make a gutter… */
const GUTTER_BOXES = 3;
/** …that no more than this share of the other boxes level with them crosses. */
const GUTTER_CROSSERS = 0.2;
/** Each part of a cut box is at least this many box heights wide (a column's line; a margin note is narrower). */
const COLUMN_LINE = 10;
/** …and at least this many times as wide as its next widest run. */
const GAP_OVER_SPACE = 1.5;
/** Boxes within this many box heights above and below the run are level with it (a gutter runs on past two lines read as one). */
const GUTTER_REACH = 3;
/** A pixel darker than this (0–255) is ink. */
const INK = 128;

interface Run {
  box: number;
  start: number;
  end: number;
}

/**
 * The widest ink-free run between a box's first and last ink, in page x, when it is at least GAP_OVER_SPACE times
 * as wide as the next widest (a gutter between two lines, not one of a line's word spaces or aligned code columns).
 */
function widestGap(cols: { x0: number; ink: Uint8Array }): { start: number; end: number } | undefined {
  const { x0, ink } = cols;
  const first = ink.indexOf(1),
    last = ink.lastIndexOf(1);
  if (first < 0) return undefined;
  let best: { start: number; end: number } | undefined;
  let second = 0;
  let start = -1;
  for (let x = first; x <= last; x++) {
    if (!ink[x]) {
      if (start < 0) start = x;
    } else if (start >= 0) {
      const width = x - start;
      if (!best || width > best.end - best.start) {
        if (best) second = best.end - best.start;
        best = { start: x0 + start, end: x0 + x };
      } else second = Math.max(second, width);
      start = -1;
    }
  }
  return best && best.end - best.start >= GAP_OVER_SPACE * second ? best : undefined;
}

/** Ink columns of a box's middle rows (the half of its height around its middle), from floor(xMin). */
function inkColumns(page: InkPage, b: Extent): { x0: number; ink: Uint8Array } {
  const x0 = Math.max(0, Math.floor(b.xMin)),
    x1 = Math.min(page.width, Math.ceil(b.xMax));
  const h = b.yMax - b.yMin;
  const y0 = Math.max(0, Math.floor(b.yMin + 0.25 * h)),
    y1 = Math.min(page.height, Math.ceil(b.yMax - 0.25 * h));
  const ink = new Uint8Array(Math.max(0, x1 - x0));
  for (let y = y0; y < y1; y++) {
    const row = y * page.width;
    for (let x = x0; x < x1; x++) {
      const i = 3 * (row + x);
      if (page.data[i]! + page.data[i + 1]! + page.data[i + 2]! < 3 * INK) ink[x - x0] = 1;
    }
  }
  return { x0, ink };
}

/** The ink-free run of a box's middle rows around x, or undefined when there is ink within `near` of x. */
function blankAround(cols: { x0: number; ink: Uint8Array }, x: number, near: number): { start: number; end: number } | undefined {
  const i = Math.round(x) - cols.x0;
  if (i < 0 || i >= cols.ink.length) return undefined;
  for (let k = Math.max(0, Math.floor(i - near)); k <= Math.min(cols.ink.length - 1, Math.ceil(i + near)); k++)
    if (cols.ink[k]) return undefined;
  let s = i,
    e = i;
  while (s > 0 && !cols.ink[s - 1]) s--;
  while (e < cols.ink.length - 1 && !cols.ink[e + 1]) e++;
  return { start: cols.x0 + s, end: cols.x0 + e + 1 };
}

/**
 * Boxes split at column gutters the page's pixels show. Where at least GUTTER_BOXES long boxes have an ink-free
 * run of GAP box heights at one x (within GAP box heights: a page scanned askew drifts), well wider than their word
 * spaces, and at most GUTTER_CROSSERS of the boxes level with them (GUTTER_REACH box heights on) have ink there, every box level with them that spans that x without
 * ink there is cut at its ink-free run when both parts are COLUMN_LINE box heights wide (lines of text columns, not
 * a margin note, a code line's number or a sliver of the next column's first letter); each part keeps the
 * detector's margin around its text. Other boxes come back as they are.
 */
export function splitAtInkGutters<T extends Extent>(boxes: readonly T[], page: InkPage): T[] {
  if (!page.data.length || boxes.length < GUTTER_BOXES) return [...boxes];
  const cols = new Map<number, { x0: number; ink: Uint8Array }>();
  const columns = (i: number) => cols.get(i) ?? cols.set(i, inkColumns(page, boxes[i]!)).get(i)!;
  const runs: Run[] = [];
  boxes.forEach((b, i) => {
    const h = b.yMax - b.yMin;
    if (h <= 0 || b.xMax - b.xMin < LONG_LINE * h) return;
    const gap = widestGap(columns(i));
    if (gap && gap.end - gap.start >= GAP * h) runs.push({ box: i, ...gap });
  });
  if (runs.length < GUTTER_BOXES) return [...boxes];
  const cuts = new Map<number, { start: number; end: number }>();
  const height = (b: Extent) => b.yMax - b.yMin;
  for (const run of runs) {
    if (cuts.has(run.box)) continue;
    const h = height(boxes[run.box]!);
    const at = (run.start + run.end) / 2;
    const along = runs.filter((r) => Math.abs((r.start + r.end) / 2 - at) <= GAP * h);
    if (along.length < GUTTER_BOXES) continue;
    const top = Math.min(...along.map((r) => boxes[r.box]!.yMin)) - GUTTER_REACH * h,
      bottom = Math.max(...along.map((r) => boxes[r.box]!.yMax)) + GUTTER_REACH * h;
    const level = boxes
      .map((_, i) => i)
      .filter((i) => {
        const m = (boxes[i]!.yMin + boxes[i]!.yMax) / 2;
        return m > top && m < bottom;
      });
    const spanning = level.filter((i) => boxes[i]!.xMin < at && boxes[i]!.xMax > at);
    const blank = new Map<number, { start: number; end: number }>();
    for (const i of spanning) {
      const around = blankAround(columns(i), at, 0.15 * height(boxes[i]!));
      if (around) blank.set(i, around);
    }
    if (spanning.length - blank.size > GUTTER_CROSSERS * level.length) continue;
    for (const [i, around] of blank) if (!cuts.has(i)) cuts.set(i, around);
  }
  if (!cuts.size) return [...boxes];
  return boxes.flatMap((b, i) => {
    const cut = cuts.get(i);
    if (!cut) return [b];
    const h = height(b),
      margin = 0.3 * h;
    const parts = [
      { ...b, xMax: Math.min(b.xMax, cut.start + margin) },
      { ...b, xMin: Math.max(b.xMin, cut.end - margin) },
    ];
    return parts.every((p) => p.xMax - p.xMin >= COLUMN_LINE * h) ? parts : [b];
  });
}
