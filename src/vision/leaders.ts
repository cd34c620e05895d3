// Dot leaders: the rows of dots a table of contents (or a form's blank) runs from an entry to its page number. The
// detector boxes neither the dots nor the space they fill, so neither reader sees them; they are found here in the
// pixels right of each detected line and written after the line's text, as the page shows them (". . . .").
import { darkRuns } from "./components.js";
import type { LineBox } from "./lines.js";
import type { PagePixels } from "./preprocess.js";

/** A leader's dots are this dark or darker (0–255 luminance): small dots are drawn anti-aliased, lighter than type. */
const DOT_INK = 200;
/** A dot is at most this share of its line's height wide and high… */
const DOT_SIZE = 0.35;
/** …sits on the baseline, its centre below this share of the line's height from its top… */
const DOT_LOW = 0.45;
/** …and its neighbours' centres are within this share of the line's height of its own, up or down. */
const DOT_ALIGN = 0.15;
/** A leader holds at least this many dots… */
const MIN_DOTS = 4;
/** …each at most this share of the leader's median pitch nearer to or farther from the next than that pitch… */
const PITCH_SPREAD = 0.3;
/** …and fills the space it runs through: it starts and ends within this many pitches (plus a line's height) of its
 * ends, the line before it and the next line on its row (or the page's margin). */
const FILL_PITCHES = 3;

/** A page number a leader runs up to is at most this many line heights wide ("xviii", "1024"). */
const NUMBER_WIDTH = 3;

/** A line's leader: its dots (0: none), and the next box on its row where the dots run up to it and it is short: the
 * entry's page number. */
export interface Leader {
  dots: number;
  to?: LineBox;
}

const NONE: Leader = { dots: 0 };
/** …and none in a region (dotsIn). */
const NO_DOTS = { dots: 0, end: 0 };

/**
 * Per line box, the dots of a leader that runs right of it (0 where none does). The space between a box and the next
 * box on its row (by half their heights; the page's edge where there is none), across the box's rows, must open with
 * dots: small, low, in one row, evenly spaced, filling it up to its end or to the first other ink (a page number the
 * detector missed). Other ink first or among them (a word the detector missed, a rule, a figure) and the box has no
 * leader. Turned boxes (vertical.ts) have none.
 */
export function leaderDots(page: PagePixels, boxes: readonly LineBox[]): Leader[] {
  const edge = Math.round(0.02 * Math.min(page.width, page.height));
  return boxes.map((b) => {
    const h = b.yMax - b.yMin;
    if (b.turn || h < 4) return NONE;
    const onRow = (c: LineBox) => Math.min(b.yMax, c.yMax) - Math.max(b.yMin, c.yMin) >= 0.5 * Math.min(h, c.yMax - c.yMin);
    const next = boxes.filter((c) => c !== b && c.xMin >= b.xMax && onRow(c)).sort((p, q) => p.xMin - q.xMin)[0];
    const x0 = Math.ceil(b.xMax),
      x1 = Math.floor(next ? next.xMin : page.width - edge);
    const y0 = Math.max(0, Math.floor(b.yMin)),
      y1 = Math.min(page.height, Math.ceil(b.yMax));
    if (x1 - x0 < MIN_DOTS * h * 0.5 || y1 <= y0) return NONE;
    const found = dotsIn(page, x0, x1, y0, y1, h);
    // (a page number: a short box; a worksheet's blank runs on to words, and its rows are no contents' rows)
    const number = next !== undefined && found.end === x1 && next.xMax - next.xMin <= NUMBER_WIDTH * h;
    return found.dots && number ? { dots: found.dots, to: next } : { dots: found.dots };
  });
}

/**
 * The dots of a leader filling [x0, x1) × [y0, y1) of a line `h` pixels high from its left (0 where other ink comes
 * first or between the dots), and where it ends: x1, or the ink after it (a page number the detector did not box).
 */
export function dotsIn(page: PagePixels, x0: number, x1: number, y0: number, y1: number, h: number): { dots: number; end: number } {
  const marks = darkRuns(page, x0, x1, y0, y1, DOT_INK).map(({ xMin, xMax, yMin, yMax }) => {
    // (whole inside the line's rows: the top of a glyph of the line under it, cut at the box's edge, is no dot)
    const low = (yMin + yMax - 1) / 2 - y0;
    const dot = xMax - xMin <= DOT_SIZE * h && yMax - yMin <= DOT_SIZE * h && low >= DOT_LOW * h && yMin > y0 && yMax < y1;
    return { x: dot ? (xMin + xMax - 1) / 2 : xMin, y: low, dot };
  });
  marks.sort((p, q) => p.x - q.x);
  // the dots run from the line on; other ink may only follow them (a page number the detector did not box ends the
  // leader where it stands)
  const run = marks.findIndex((m) => !m.dot);
  const dots = run < 0 ? marks : marks.slice(0, run);
  const stop = run < 0 ? x1 : marks[run]!.x;
  // (dots going on past other ink are a leader with a word in it: not one the page set; a number's own point is one)
  if (dots.length < MIN_DOTS || (run >= 0 && marks.slice(run).filter((m) => m.dot).length > 1)) return NO_DOTS;
  const pitches = dots.slice(1).map((d, k) => d.x - dots[k]!.x);
  const pitch = [...pitches].sort((p, q) => p - q)[pitches.length >> 1]!;
  if (pitch <= 0 || pitches.some((p) => Math.abs(p - pitch) > PITCH_SPREAD * pitch)) return NO_DOTS;
  if (dots.some((d, k) => k > 0 && Math.abs(d.y - dots[k - 1]!.y) > DOT_ALIGN * h)) return NO_DOTS;
  const slack = FILL_PITCHES * pitch + h;
  if (dots[0]!.x - x0 > slack || stop - dots.at(-1)!.x > slack) return NO_DOTS;
  return { dots: dots.length, end: stop };
}

/** A line's Markdown with its leader's dots after its text (inside no table: a cell's text ends at its tag). */
export function withLeader(markdown: string, dots: number): string {
  if (dots < MIN_DOTS || /<\/?t[dhr]\b/.test(markdown)) return markdown;
  const body = markdown.replace(/\s+$/, "");
  return `${body}${" .".repeat(dots)}${markdown.slice(body.length)}`;
}
