// Horizontal rules drawn on the page: a table's lines between its rows, a rule under a running header. The detector
// finds text, not rules, so XY-cut sees a table whose cells wrap over several lines as columns divided by clean
// gutters and reads it column by column; a rule drawn across such a gutter says the two sides are one table's
// cells, row by row (xyCut's `rules`).
import type { InkPage } from "./ink-gutters.js";
import { median, type Extent } from "./xycut.js";

/** A pixel darker than this (0–255, any channel's mean) is ink. */
const INK = 128;
/** A rule is at least this many line heights long… */
const RULE_LENGTH = 4;
/** …at most this share of a line height thick (thicker ink is a bar, a shaded cell, a picture)… */
const RULE_THICKNESS = 0.3;
/** …and runs on across gaps of at most this many pixels (anti-aliasing, a scan's noise). */
const RULE_BREAK = 2;

/**
 * The horizontal rules of a page: runs of ink at least RULE_LENGTH line heights long (the page's detected lines
 * give the line height) in rows of the page seen through a three-row window (a rule scanned a little askew
 * steps from row to row), rows of overlapping runs joined into one rule, those at most RULE_THICKNESS line
 * heights thick kept. Text never makes such a run: its letters stand apart.
 */
export function horizontalRules(page: InkPage, lines: readonly Extent[]): Extent[] {
  const { width, height, data } = page;
  const line = median(lines.map((b) => b.yMax - b.yMin));
  if (!line || width === 0 || height === 0) return [];
  const minLength = RULE_LENGTH * line;
  const ink = new Uint8Array(width * height);
  // ink pixels per row: a window of three rows holding fewer than a rule's length over RULE_BREAK + 1 (a run may
  // pass gaps of RULE_BREAK) holds no rule
  const count = new Int32Array(height + 2);
  for (let y = 0, i = 0, p = 0; y < height; y++) {
    let c = 0;
    for (let x = 0; x < width; x++, i++, p += 3) c += ink[i] = data[p]! + data[p + 1]! + data[p + 2]! < 3 * INK ? 1 : 0;
    count[y + 1] = c;
  }
  // each row's long runs, through the window of the row and its two neighbours
  const runs: { y: number; x0: number; x1: number }[] = [];
  const row = new Uint8Array(width);
  for (let y = 0; y < height; y++) {
    if (count[y]! + count[y + 1]! + count[y + 2]! < minLength / (RULE_BREAK + 1)) continue;
    for (let x = 0; x < width; x++)
      row[x] = ink[y * width + x]! | (y > 0 ? ink[(y - 1) * width + x]! : 0) | (y + 1 < height ? ink[(y + 1) * width + x]! : 0);
    let start = -1,
      last = -1;
    for (let x = 0; x <= width; x++) {
      if (x < width && row[x]) {
        if (start < 0 || x - last - 1 > RULE_BREAK) {
          if (start >= 0 && last - start + 1 >= minLength) runs.push({ y, x0: start, x1: last + 1 });
          start = x;
        }
        last = x;
      }
    }
    if (start >= 0 && last - start + 1 >= minLength) runs.push({ y, x0: start, x1: last + 1 });
  }
  // runs of consecutive rows that overlap in x are one rule
  const rules: Extent[] = [];
  const open: Extent[] = [];
  for (const r of runs) {
    const joined = open.find((o) => o.yMax === r.y && o.xMin < r.x1 && r.x0 < o.xMax);
    if (joined) {
      joined.yMax = r.y + 1;
      joined.xMin = Math.min(joined.xMin, r.x0);
      joined.xMax = Math.max(joined.xMax, r.x1);
    } else open.push({ xMin: r.x0, xMax: r.x1, yMin: r.y, yMax: r.y + 1 });
  }
  // (the window adds a row above and below a rule's ink)
  for (const o of open) if (o.yMax - o.yMin - 2 <= Math.max(1, RULE_THICKNESS * line)) rules.push(o);
  return rules.sort((a, b) => a.yMin - b.yMin);
}
