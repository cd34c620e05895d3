// Pictures on a page: screenshots, photographs and filled charts. Their text (a toolbar's labels, a plot's tick
// numbers) is not the document's text — a PDF's text layer does not hold it, and a reader of the Markdown wants the
// picture, not "File Edit View racks". A picture is found from the pixels: a large region of cells filled with
// something other than the page's background, in which the text detector's lines cover little of the area, and
// which outside its lines is neither flat (a shaded box of code, a slide's block, banded table rows: a few fills)
// nor bare of edges (icons, widgets, curves, a photograph's detail). Thresholds were checked on the training
// corpus' 802 pages (every renderer and scan effect): 3 pages flagged, each a real picture, no line of the text
// layer lost but the ones a figure holds.
import { overlapArea, type Extent } from "../layout/xycut.js";
import type { PagePixels } from "./preprocess.js";

/** Cells across the page: ~8 px at 150 DPI on A4. */
const CELLS_ACROSS = 160;
/** A pixel differs from the background when its grey level is this far from it. */
const OFF_BACKGROUND = 12;
/** A cell is filled when this share of its pixels differs from the background. */
const FILLED_CELL = 0.6;
/** A picture is at least this share of the page's width and of its height. */
const MIN_WIDTH = 0.2;
const MIN_HEIGHT = 0.06;
/** Filled cells make up at least this share of a picture's box (a frame or a rule alone is not a picture). */
const MIN_FILL = 0.4;
/** Detected text lines cover at most this share of a picture's box. */
const MAX_TEXT_COVER = 0.4;
/** A shaded box (code, a call-out, a slide's title bar over its body) is a few fills: at most this share of a
 * picture's pixels outside its lines lie at its three commonest grey levels. */
const MAX_FLAT = 0.9;
/** A step in grey level larger than this between a pixel and the one a step to its right or below is an edge. */
const EDGE = 40;
/** A picture has edges (icons, widgets, plotted curves, a photograph's detail) outside its text lines on at least
 * this share of its pixels; a shaded box has them only along its border. Measured at the page's scale: the step is
 * taken to the pixel a cell's eighth away (one pixel on an A4 page at 150 or 200 DPI, two at 300), as an edge of a
 * scan at twice the resolution is two pixels wide, softer and covers half the share of the box's pixels (a
 * screenshot's 0.079 at 150 DPI measured 0.041 at 300 and was left in as text). */
const MIN_EDGES = 0.03;
/** Pixels a cell across at which an edge's step is measured across one pixel (CELLS_ACROSS, ~8 at 150 DPI). */
const EDGE_CELL = 8;
/** A line belongs to a picture when this share of its box lies inside it. */
const INSIDE = 0.6;

export interface PictureStats extends Extent {
  /** filled cells over the box's cells */
  fill: number;
  /** share of the box covered by detected lines */
  text: number;
  /** share of the box's pixels outside text lines at its three commonest grey levels (±3): a shaded box is flat */
  flat: number;
  /** share of the box's pixels outside text lines on an edge (a step of more than EDGE grey levels to the right or
   * below, measured at the page's scale) */
  edges: number;
}

/** The page's background grey level: the commonest level among the light ones (a grey scan's paper included). */
function backgroundLevel(grey: Uint8Array): number {
  const histogram = new Uint32Array(256);
  for (let i = 0; i < grey.length; i += 7) histogram[grey[i]!]!++;
  let best = 255;
  for (let v = 128; v < 256; v++) if (histogram[v]! > histogram[best]!) best = v;
  return best;
}

/**
 * Candidate regions with their statistics: connected components (8-neighbour) of filled cells, large enough, each
 * with its fill share and the share of its box that `lines` cover. `pictureRegions` keeps the ones that are pictures.
 */
export function pictureCandidates(page: PagePixels, lines: readonly Extent[]): PictureStats[] {
  const { width, height, data } = page;
  if (width < 32 || height < 32) return [];
  const grey = new Uint8Array(width * height);
  for (let i = 0, j = 0; i < grey.length; i++, j += 3) grey[i] = (data[j]! * 77 + data[j + 1]! * 150 + data[j + 2]! * 29) >> 8;
  const bg = backgroundLevel(grey);
  const cell = Math.max(4, Math.round(width / CELLS_ACROSS));
  const cols = Math.floor(width / cell),
    rows = Math.floor(height / cell);
  const filled = new Uint8Array(cols * rows);
  const need = FILLED_CELL * cell * cell;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let off = 0;
      for (let y = r * cell; y < (r + 1) * cell; y++) {
        const row = y * width;
        for (let x = c * cell; x < (c + 1) * cell; x++) if (Math.abs(grey[row + x]! - bg) > OFF_BACKGROUND) off++;
      }
      filled[r * cols + c] = off >= need ? 1 : 0;
    }
  }
  const label = new Int32Array(cols * rows).fill(-1);
  const out: PictureStats[] = [];
  const stack: number[] = [];
  for (let start = 0; start < filled.length; start++) {
    if (!filled[start] || label[start]! >= 0) continue;
    let c0 = cols,
      c1 = -1,
      r0 = rows,
      r1 = -1,
      count = 0;
    label[start] = start;
    stack.push(start);
    while (stack.length) {
      const k = stack.pop()!;
      const r = Math.floor(k / cols),
        c = k % cols;
      count++;
      (c0 = Math.min(c0, c)), (c1 = Math.max(c1, c)), (r0 = Math.min(r0, r)), (r1 = Math.max(r1, r));
      for (let dr = -1; dr <= 1; dr++) {
        for (let dc = -1; dc <= 1; dc++) {
          const rr = r + dr,
            cc = c + dc;
          if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
          const n = rr * cols + cc;
          if (filled[n] && label[n]! < 0) {
            label[n] = start;
            stack.push(n);
          }
        }
      }
    }
    const box = { xMin: c0 * cell, xMax: (c1 + 1) * cell, yMin: r0 * cell, yMax: (r1 + 1) * cell };
    if (box.xMax - box.xMin < MIN_WIDTH * width || box.yMax - box.yMin < MIN_HEIGHT * height) continue;
    out.push({
      ...box,
      fill: count / ((c1 - c0 + 1) * (r1 - r0 + 1)),
      text: coverage(box, lines),
      ...beyondLines(grey, width, box, lines, Math.max(1, Math.round(cell / EDGE_CELL))),
    });
  }
  return out;
}

/**
 * The box's pixels outside the text lines, in one pass (a row's line spans marked once):
 * - flat: the share of them (every second pixel of every second row) within ±3 grey levels of the box's three
 *   commonest levels (peaks taken in turn, each removing its ±3 levels). A shaded box, a slide's block of a title
 *   bar over a body, a table's banded rows are a few fills; a screenshot or a photograph spreads over many levels.
 * - edges: the share of them where the grey level steps by more than EDGE to the pixel `step` pixels to the right or
 *   below, or half the share where it does so across twice that, whichever is more (a blurred scan's edges).
 */
function beyondLines(
  grey: Uint8Array,
  width: number,
  box: Extent,
  lines: readonly Extent[],
  step: number,
): { flat: number; edges: number } {
  const far = 2 * step;
  const inside = lines.filter((l) => l.xMax > box.xMin && l.xMin < box.xMax && l.yMax > box.yMin && l.yMin < box.yMax);
  const covered = new Uint8Array(box.xMax - box.xMin);
  const histogram = new Float64Array(256);
  let sampled = 0,
    n = 0,
    edges = 0,
    nWide = 0,
    wide = 0;
  for (let y = box.yMin; y < box.yMax; y++) {
    covered.fill(0);
    for (const l of inside) {
      if (y >= l.yMin && y < l.yMax) covered.fill(1, Math.max(0, Math.ceil(l.xMin) - box.xMin), Math.max(0, Math.ceil(l.xMax) - box.xMin));
    }
    const sample = (y - box.yMin) % 2 === 0;
    for (let x = box.xMin; x < box.xMax; x++) {
      if (covered[x - box.xMin]) continue;
      const i = y * width + x,
        g = grey[i]!;
      if (sample && (x - box.xMin) % 2 === 0) {
        histogram[g]!++;
        sampled++;
      }
      if (y < box.yMax - step && x < box.xMax - step) {
        n++;
        if (onEdge(grey, width, i, step)) edges++;
      }
      if (y < box.yMax - far && x < box.xMax - far) {
        nWide++;
        if (onEdge(grey, width, i, far)) wide++;
      }
    }
  }
  let kept = 0;
  for (let peak = 0; peak < 3; peak++) {
    let best = -1,
      bestSum = 0;
    for (let v = 0; v < 256; v++) {
      let s = 0;
      for (let d = Math.max(0, v - 3); d <= Math.min(255, v + 3); d++) s += histogram[d]!;
      if (s > bestSum) (best = v), (bestSum = s);
    }
    if (best < 0) break;
    kept += bestSum;
    for (let d = Math.max(0, best - 3); d <= Math.min(255, best + 3); d++) histogram[d] = 0;
  }
  // (a sharp edge steps across `step` and again across `far`, on twice the pixels; a scan's edge, blurred over a
  // pixel or two, steps past EDGE only across `far`: half the wide count stands for it, and never lowers a sharp one's)
  return { flat: sampled ? kept / sampled : 1, edges: Math.max(n ? edges / n : 0, nWide ? wide / 2 / nWide : 0) };
}

/** Whether pixel `i` steps by more than EDGE grey levels to the pixel `step` to its right or `step` below. */
function onEdge(grey: Uint8Array, width: number, i: number, step: number): boolean {
  const g = grey[i]!;
  return Math.abs(g - grey[i + step]!) > EDGE || Math.abs(g - grey[i + step * width]!) > EDGE;
}

/** Share of `box` covered by the union of `lines` (counted on a coarse grid of the box). */
function coverage(box: Extent, lines: readonly Extent[]): number {
  const step = 4;
  const w = Math.ceil((box.xMax - box.xMin) / step),
    h = Math.ceil((box.yMax - box.yMin) / step);
  const hit = new Uint8Array(w * h);
  for (const l of lines) {
    const x0 = Math.max(0, Math.floor((l.xMin - box.xMin) / step)),
      x1 = Math.min(w, Math.ceil((l.xMax - box.xMin) / step));
    const y0 = Math.max(0, Math.floor((l.yMin - box.yMin) / step)),
      y1 = Math.min(h, Math.ceil((l.yMax - box.yMin) / step));
    for (let y = y0; y < y1; y++) hit.fill(1, y * w + x0, y * w + Math.max(x0, x1));
  }
  let n = 0;
  for (const v of hit) n += v;
  return n / Math.max(1, hit.length);
}

/** The page's pictures: large filled regions, neither flat nor bare of edges, that detected text lines cover little of. */
export function pictureRegions(page: PagePixels, lines: readonly Extent[]): Extent[] {
  return pictureCandidates(page, lines)
    .filter((p) => p.fill >= MIN_FILL && p.text <= MAX_TEXT_COVER && p.flat <= MAX_FLAT && p.edges >= MIN_EDGES)
    .map(({ xMin, xMax, yMin, yMax }) => ({ xMin, xMax, yMin, yMax }));
}

/** Whether most of a line's box lies inside one of the pictures. */
export function insidePicture(line: Extent, pictures: readonly Extent[]): boolean {
  const area = Math.max(1, (line.xMax - line.xMin) * (line.yMax - line.yMin));
  return pictures.some((p) => overlapArea(line, p) / area >= INSIDE);
}
