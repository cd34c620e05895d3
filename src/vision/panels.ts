// Panels: rectangles of flat colour that hold text (a magazine's boxed story, a leaflet's coloured box, a shaded
// sidebar). The lines inside one are read together: side by side with another column, the two are read one after
// the other, never row by row as a table's cells (layout/stage.ts). A panel is found on a grid of cells, each
// sampled at nine points (a cell's median colour is its ground's: type covers less than half of it).
import { median, middleInside, type Extent } from "../layout/xycut.js";
import type { PagePixels } from "./preprocess.js";

/** A cell's colour differs from the paper's by more than this in some channel: it is filled. */
const FILLED = 40;
/** Neighbouring filled cells this near in colour (every channel) are one panel's. */
const SAME = 24;
/** A panel's cells fill this share of its rectangle at least (a photograph's or a plot's do not)… */
const SOLID = 0.9;
/** …and their colours lie within this of the panel's median colour (every channel) for this share of its cells. */
const FLAT = 32;
const FLAT_SHARE = 0.9;
/** A panel is at least this many of the page's line heights high and wide. */
const MIN_HEIGHT = 1.5;
const MIN_WIDTH = 6;

/** A cell's nine sample points (offsets into the page's bytes), and one channel of them sorted (the middle one is
 * the cell's). */
const points = new Int32Array(9);
const sorted = new Uint8Array(9);

/** The median of nine samples (a 3 x 3 grid) of each channel of the cell at column cx, row cy, packed 0xRRGGBB. */
function cellColour(page: PagePixels, cell: number, cx: number, cy: number): number {
  const d = page.data;
  let same = true;
  for (let j = 0, n = 0; j < 3; j++) {
    const y = Math.min(page.height - 1, cy * cell + Math.floor(((2 * j + 1) * cell) / 6));
    for (let i = 0; i < 3; i++, n++) {
      const x = Math.min(page.width - 1, cx * cell + Math.floor(((2 * i + 1) * cell) / 6));
      const p = (points[n] = (y * page.width + x) * 3);
      same &&= d[p] === d[points[0]!] && d[p + 1] === d[points[0]! + 1] && d[p + 2] === d[points[0]! + 2];
    }
  }
  // (most cells are one colour at all nine points: paper)
  if (same) return (d[points[0]!]! << 16) | (d[points[0]! + 1]! << 8) | d[points[0]! + 2]!;
  let colour = 0;
  for (let c = 0; c < 3; c++) {
    for (let n = 0; n < 9; n++) {
      const v = d[points[n]! + c]!;
      let k = n;
      for (; k > 0 && sorted[k - 1]! > v; k--) sorted[k] = sorted[k - 1]!;
      sorted[k] = v;
    }
    colour = (colour << 8) | sorted[4]!;
  }
  return colour;
}

/** The largest difference between two packed colours in any channel. */
function colourDistance(a: number, b: number): number {
  return Math.max(Math.abs((a >> 16) - (b >> 16)), Math.abs(((a >> 8) & 255) - ((b >> 8) & 255)), Math.abs((a & 255) - (b & 255)));
}

/**
 * The panels of a page that hold at least one of `lines` (its centre inside): rectangles of flat colour other
 * than the paper's (the commonest cell colour), at least MIN_HEIGHT by MIN_WIDTH line heights, in page pixels.
 */
export function panelRegions(page: PagePixels, lines: readonly Extent[]): Extent[] {
  if (!lines.length) return [];
  const line = median(lines.map((b) => b.yMax - b.yMin));
  const cell = Math.max(4, Math.round(page.width / 160));
  const cols = Math.floor(page.width / cell),
    rows = Math.floor(page.height / cell);
  if (cols < 2 || rows < 2) return [];
  const colours = new Int32Array(cols * rows);
  // (colours counted by 32 levels a channel)
  const counts = new Int32Array(1 << 15);
  const level = (c: number) => ((c >> 19) << 10) | (((c >> 11) & 31) << 5) | ((c >> 3) & 31);
  for (let cy = 0; cy < rows; cy++)
    for (let cx = 0; cx < cols; cx++) {
      const c = cellColour(page, cell, cx, cy);
      colours[cy * cols + cx] = c;
      counts[level(c)]!++;
    }
  let common = 0;
  for (let key = 1; key < counts.length; key++) if (counts[key]! > counts[common]!) common = key;
  // the paper: the middle of its level's range
  const paper = (((common >> 10) << 3) << 16) | ((((common >> 5) & 31) << 3) << 8) | ((common & 31) << 3) | 0x040404;
  const filled = (k: number) => colourDistance(colours[k]!, paper) > FILLED;
  const seen = new Uint8Array(cols * rows);
  const panels: Extent[] = [];
  for (let start = 0; start < cols * rows; start++) {
    if (seen[start] || !filled(start)) continue;
    // the filled cells joined to this one through neighbours of nearly the same colour
    const members: number[] = [start];
    seen[start] = 1;
    for (let i = 0; i < members.length; i++) {
      const k = members[i]!;
      const x = k % cols,
        y = (k - x) / cols;
      const join = (n: number) => {
        if (seen[n] || !filled(n) || colourDistance(colours[n]!, colours[k]!) > SAME) return;
        seen[n] = 1;
        members.push(n);
      };
      if (x > 0) join(k - 1);
      if (x + 1 < cols) join(k + 1);
      if (y > 0) join(k - cols);
      if (y + 1 < rows) join(k + cols);
    }
    let [x0, x1, y0, y1] = [cols, -1, rows, -1];
    for (const k of members) {
      const x = k % cols,
        y = (k - x) / cols;
      [x0, x1, y0, y1] = [Math.min(x0, x), Math.max(x1, x), Math.min(y0, y), Math.max(y1, y)];
    }
    const box = { xMin: x0 * cell, xMax: (x1 + 1) * cell, yMin: y0 * cell, yMax: (y1 + 1) * cell };
    if (box.yMax - box.yMin < MIN_HEIGHT * line || box.xMax - box.xMin < MIN_WIDTH * line) continue;
    if (members.length < SOLID * (x1 - x0 + 1) * (y1 - y0 + 1)) continue;
    const channel = (shift: number) => median(members.map((k) => (colours[k]! >> shift) & 255));
    const ground = (channel(16) << 16) | (channel(8) << 8) | channel(0);
    if (members.filter((k) => colourDistance(colours[k]!, ground) <= FLAT).length < FLAT_SHARE * members.length) continue;
    if (lines.some((b) => middleInside(b, box))) panels.push(box);
  }
  return panels;
}
