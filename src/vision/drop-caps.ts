// Drop caps: a paragraph's first letter set two to eight lines tall, its first lines set in beside it ("T" left of
// "he council voted…"). PP-OCR's detector boxes the lines and leaves the letter (one glyph, far taller than any line
// about it, no run of glyphs), so the page read "he council voted". A drop cap is found as ink outside every box
// beside the top of a stack of lines; the caller keeps those the recogniser reads surely as one letter, and the
// letter is set again, scaled to the first line's type, at the start of that line (withDropCap), whose box then
// holds it: the line is read, by the recogniser and the decoder alike, as it would have been printed unadorned. A
// number set large beside its text (a step's "1", "12") is found the same way and set a word space before its line.
import { median, overlapArea, type Extent } from "../layout/xycut.js";
import { darkRuns, rowGroups, type DarkRun } from "./components.js";
import { luminance, type PagePixels, pixelRegion } from "./preprocess.js";
import { resizeBicubic } from "./resample.js";

/** Ink darker than this (0–255 luminance) is the glyphs'. */
const INK = 160;
/** A drop cap's ink stands this many of the page's median line heights high at least (a cap two lines deep stands
 * one line's pitch plus a capital's height: 1.45 box heights on a page set 22 on 32 px in DejaVu Serif, 1.26 in
 * Liberation Serif at 20 on 29, whose capitals are lower) and at most… */
const CAP_MIN = 1.15;
const CAP_MAX = 8;
/** …and is at most this many of its heights wide (a "W" in a wide face, not a rule or a picture's strip). */
const CAP_WIDTH = 1.6;
/** The lines beside it begin within this many line heights of its right edge (or this share of its height, for a
 * large cap set with a wide space)… */
const BESIDE_GAP = 1.5;
const BESIDE_GAP_CAP = 0.6;
/** …the first of them has its top within this many line heights of the cap's top (the cap is set level with the
 * first line's capitals), and at least two lines stand beside it. */
const TOP_LEVEL = 0.5;
/** (a line beside it shares this many line heights of its rows at least) */
const OVERLAP = 0.25;
const BESIDE_LINES = 2;
/** A piece of ink over the cap, from ACCENT_REACH of its height above its top to ACCENT_LOW below it and within
 * ACCENT_SIDE of its height beside its sides, is its accent (a piece beside it is the first line's: "A" read "A:"). */
const ACCENT_REACH = 0.4;
const ACCENT_LOW = 0.25;
const ACCENT_SIDE = 0.1;
/** Its strokes are this share of its height wide at least (a stem, a bowl: the thin rules of a link's frame,
 * joined into a tall piece beside two lines of a table of contents and read as "E", are not). */
const STROKE = 0.06;
const STROKE_ROWS = 0.2;
/** A letter's ink fills this share of its extent at most (a "T" a quarter, a bold "M" half, a bold "0" 0.62: a filled
 * disc, an icon behind a white "i" that the recogniser read as "O", three quarters). */
const FILL = 0.68;
/** Glyphs of that size sharing this share of their height, this share of their height apart or nearer, are one
 * cap; of MAX_GLYPHS at most. */
const JOIN_OVERLAP = 0.7;
const JOIN_GAP = 0.4;
const MAX_GLYPHS = 3;
/** A piece of ink outside the boxes this many line heights high that touches a box within PIECE_START line heights
 * of its start, with strokes PIECE_STROKE pixels wide, may be part of a drop cap the box reaches over (a "W" the
 * first line's box held but for its foot, 10 px of a 31-px line): it is traced again whole, within WINDOW line
 * heights. */
const PIECE_EDGE = 0.25;
const PIECE_START = 3;
const PIECE_STROKE = 2;
const WINDOW = 4;
/** A box this many line heights high at least and no more than OWN_WIDTH of its height wide may be a drop cap's own
 * (the detector boxes one now and then, a large figure often, and as tight as 1.0 line heights round figures of 1.5):
 * its glyphs as tall as a cap, or cut by its top and foot both, are candidates, traced whole. */
const OWN_MIN = 0.9;
const OWN_WIDTH = 3;

/** A drop cap: its ink's extent, the index in `boxes` of the line it begins and, where the detector boxed it alone,
 * of its own box. */
export interface DropCap {
  cap: Extent;
  /** the letter's height, without an accent over it */
  height: number;
  line: number;
  own?: number;
}

/**
 * Drop caps among `ink` (the page's runs of ink outside every box of `boxes`, missed-text.ts inkOutsideBoxes): a run
 * CAP_MIN to CAP_MAX median line heights high, no wider than CAP_WIDTH of its height, with BESIDE_LINES or more
 * boxes beginning just right of it and sharing its rows, the first of them level with its top and none set in as
 * far just above that one; or the tall glyphs of a box of their own (OWN_MIN), beside lines so. Glyphs side by
 * side are taken together (JOIN_GAP). A letter may begin one line at most.
 */
export function dropCaps(page: PagePixels, boxes: readonly Extent[], ink: readonly DarkRun[]): DropCap[] {
  if (boxes.length < BESIDE_LINES) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  if (!(line > 0)) return [];
  const caps: DropCap[] = [];
  // a box beginning within `reach` right of `e` (or over its left side), on its rows, and reaching on past it
  const besides = (e: Extent, reach: number, o: Extent) =>
    o.xMin >= e.xMin - 0.25 * line &&
    o.xMin - e.xMax <= reach &&
    o.xMax >= e.xMax + 2 * line &&
    Math.min(o.yMax, e.yMax) - Math.max(o.yMin, e.yMin) >= OVERLAP * line;
  // (what is traced again must have one)
  const lineBeside = (e: Extent, reach: number, own?: Extent) => boxes.some((o) => o !== own && besides(e, reach, o));
  const candidates: (DarkRun & { own?: number })[] = [];
  const same = (a: Extent, b: Extent) => a.xMin === b.xMin && a.xMax === b.xMax && a.yMin === b.yMin && a.yMax === b.yMax;
  for (const r of ink) {
    const h = r.yMax - r.yMin;
    if (h < PIECE_EDGE * line || h > CAP_MAX * line || r.pixels < 4) continue;
    // (a box may reach over part of the letter, the first line's over its top or over all but its foot: a piece of
    // ink PIECE_EDGE high that touches a box within PIECE_START line heights of its start is traced again whole,
    // where its strokes are a letter's, not a rule's; pieces elsewhere on a box are its own glyphs')
    const near = { xMin: r.xMin - 1, xMax: r.xMax + 1, yMin: r.yMin - 1, yMax: r.yMax + 1 };
    const touched = boxes.filter((b) => overlapArea(b, near) > 0);
    const touching = touched.length > 0;
    if (touching && !touched.some((b) => r.xMin <= b.xMin + PIECE_START * line)) continue;
    // (the piece may be a foot far left of the cap's right edge)
    if (touching && (!lineBeside(r, (PIECE_START + BESIDE_GAP) * line) || strokeWidth(page, r) < PIECE_STROKE)) continue;
    const whole = touching ? wholeGlyph(page, r, line) : r;
    if (!candidates.some((c) => same(c, whole))) candidates.push({ ...whole });
  }
  // (the detector boxes a drop cap now and then as a line of its own, a large figure often: its glyphs are
  // candidates too)
  boxes.forEach((b, k) => {
    const h = b.yMax - b.yMin;
    if (h < OWN_MIN * line || b.xMax - b.xMin > OWN_WIDTH * h) return;
    if (!lineBeside(b, Math.max(BESIDE_GAP * line, BESIDE_GAP_CAP * h), b)) return;
    const { x0, x1, y0, y1 } = pixelRegion(page, b);
    // (its glyphs whole: the box may be tighter than a large figure's ink)
    for (const part of darkRuns(page, x0, x1, y0, y1, INK))
      if (part.yMax - part.yMin >= CAP_MIN * line || (part.yMin <= y0 && part.yMax >= y1)) {
        const whole = wholeGlyph(page, part, line);
        // (its pieces outside the box may have found it already)
        const found = candidates.find((c) => same(c, whole));
        if (found) found.own = k;
        else candidates.push({ ...whole, own: k });
      }
  });
  const glyphs = candidates.filter((r) => {
    const h = r.yMax - r.yMin,
      w = r.xMax - r.xMin;
    if (h < CAP_MIN * line || h > CAP_MAX * line || w > CAP_WIDTH * h || r.pixels < 4) return false;
    return r.pixels <= FILL * w * h && strokeWidth(page, r) >= STROKE * h;
  });
  // glyphs set side by side as large (a step's number of two figures) are taken together
  const groups = rowGroups(glyphs, (g, r) => {
    const overlap = Math.min(g.yMax, r.yMax) - Math.max(g.yMin, r.yMin);
    return overlap >= JOIN_OVERLAP * Math.min(g.yMax - g.yMin, r.yMax - r.yMin) && r.xMin - g.xMax <= JOIN_GAP * (r.yMax - r.yMin);
  });
  for (const { extent, members } of groups) {
    if (members.length > MAX_GLYPHS) continue;
    const own = members.every((m) => m.own !== undefined && m.own === members[0]!.own) ? members[0]!.own : undefined;
    const r: DarkRun & { own?: number } = { ...extent, pixels: members.reduce((n, m) => n + m.pixels, 0), own };
    const h = r.yMax - r.yMin;
    const reach = Math.max(BESIDE_GAP * line, BESIDE_GAP_CAP * h);
    const beside = boxes
      .map((b, k) => ({ b, k }))
      .filter(({ b, k }) => k !== r.own && besides(r, reach, b) && b.yMax - b.yMin <= 1.5 * line)
      .sort((p, q) => p.b.yMin - q.b.yMin);
    if (beside.length < BESIDE_LINES) continue;
    // (stacked lines, not pieces of one row)
    const rows = beside.filter(({ b }, i) => i === 0 || b.yMin >= beside[i - 1]!.b.yMin + 0.5 * line);
    if (rows.length < BESIDE_LINES) continue;
    const first = rows[0]!;
    if (Math.abs(first.b.yMin - r.yMin) > TOP_LEVEL * line) continue;
    // (the top of its stack: no line set in as far as the stack's just above it, as a paragraph's line beside a
    // picture's mark is; the first line's box may begin over the letter)
    const indent = Math.max(...rows.map(({ b }) => b.xMin));
    const above = boxes.some(
      (b) => Math.abs(b.xMin - indent) <= 0.5 * line && b.yMax <= first.b.yMin + OVERLAP * line && first.b.yMin - b.yMax <= line,
    );
    if (above) continue;
    if (caps.some((c) => c.line === first.k)) continue;
    // an accent over it joins it
    const cap: Extent = { xMin: r.xMin, xMax: r.xMax, yMin: r.yMin, yMax: r.yMax };
    for (const p of ink)
      if (
        p.yMax <= r.yMin + ACCENT_LOW * h &&
        p.yMin >= r.yMin - ACCENT_REACH * h &&
        p.xMin >= r.xMin - ACCENT_SIDE * h &&
        p.xMax <= r.xMax + ACCENT_SIDE * h &&
        p.xMax <= first.b.xMin
      ) {
        cap.xMin = Math.min(cap.xMin, p.xMin);
        cap.xMax = Math.max(cap.xMax, p.xMax);
        cap.yMin = Math.min(cap.yMin, p.yMin);
      }
    caps.push({ cap, height: h, line: first.k, ...(r.own === undefined ? {} : { own: r.own }) });
  }
  return caps;
}

/** The median, over the middle rows of `r` (the middle of its height, STROKE_ROWS), of the widest run of ink along
 * each row: a letter's stem or bowl. */
function strokeWidth(page: PagePixels, r: Extent): number {
  const { x0, x1, y0, y1 } = pixelRegion(page, r);
  const margin = Math.floor(STROKE_ROWS * (y1 - y0));
  const widest: number[] = [];
  for (let y = y0 + margin; y < y1 - margin; y++) {
    let run = 0,
      most = 0;
    for (let x = x0; x < x1; x++) {
      run = luminance(page.data, (y * page.width + x) * 3) < INK ? run + 1 : 0;
      most = Math.max(most, run);
    }
    widest.push(most);
  }
  return widest.length ? median(widest) : 0;
}

/** The glyph that `part` (ink outside the boxes) is a piece of, traced on the page alone in a window of WINDOW line
 * heights about it: the largest component whose extent holds the piece's (the piece itself where none does). */
function wholeGlyph(page: PagePixels, part: DarkRun, line: number): DarkRun {
  const reach = WINDOW * line;
  const { x0, x1, y0, y1 } = pixelRegion(page, {
    xMin: part.xMin - reach,
    xMax: part.xMax + reach,
    yMin: part.yMin - reach,
    yMax: part.yMax + reach,
  });
  let best = part;
  for (const c of darkRuns(page, x0, x1, y0, y1, INK))
    if (c.xMin <= part.xMin && c.xMax >= part.xMax && c.yMin <= part.yMin && c.yMax >= part.yMax && c.pixels > best.pixels) best = c;
  return best;
}

/** The letter alone is read with this share of its height of ground about it. */
const PAD = 0.25;

/** The cap's pixels alone, on the page's white about them (PAD), for the recogniser: a crop of the page round it
 * would hold the first lines' letters beside it ("TE"). */
export function capAlone(page: PagePixels, cap: Extent): PagePixels {
  const c = pixelRegion(page, cap);
  const pad = Math.max(2, Math.round(PAD * (c.y1 - c.y0)));
  const width = c.x1 - c.x0 + 2 * pad,
    height = c.y1 - c.y0 + 2 * pad;
  const data = Buffer.alloc(width * height * 3, 255);
  for (let y = c.y0; y < c.y1; y++)
    page.data.copy(data, ((y - c.y0 + pad) * width + pad) * 3, (y * page.width + c.x0) * 3, (y * page.width + c.x1) * 3);
  return { width, height, data };
}

/** The cap is set this share of the first line's capital height before the line's first ink (a letter's side
 * bearing). */
const SET_GAP = 0.04;
/** A number set large beside its text (a step's) is set a word space before it: this share of the capitals' height. */
const SPACE = 0.5;
/** A line's capitals stand from its baseline (the median of its ink columns' lowest rows) up to this quantile of its
 * ink columns' highest rows (capitals and ascenders are a minority of columns on a line of lower case). */
const TOP_QUANTILE = 0.03;
/** The shrunk letter's contrast with the ground is raised this many times. */
const CONTRAST = 1.6;
/** The line's box keeps its margin before its ink, at most this share of its height (a box that reached over the cap
 * had none of its own). */
const MARGIN = 0.2;
/** The cap's antialiased edge reaches this share of its height beyond its ink. */
const HALO = 0.04;

/**
 * The page with the drop cap `cap` set again at the start of line `box`, scaled to its capitals' height on its
 * baseline, right up to its first ink (SET_GAP), and the cap's own pixels filled with the ground round them; and the
 * line's box reaching over the letter (its margin before the ink kept). `letterHeight`: the letter's own height, where
 * the cap's extent holds an accent over it (its bottom is the extent's); `spaced`: set a word space (SPACE) before the
 * line, not a letter's bearing (a step's number). Undefined where the line shows no ink or
 * the letter would not fit before it. `page.data` is not changed: the pixels are copied, unless `inPlace` (a copy
 * the caller made for an earlier cap).
 */
export function withDropCap(
  page: PagePixels,
  cap: Extent,
  box: Extent,
  inPlace = false,
  letterHeight?: number,
  spaced = false,
): { page: PagePixels; box: Extent } | undefined {
  const c = pixelRegion(page, cap);
  const { x1, y0, y1 } = pixelRegion(page, box);
  // the line's ink right of the cap (its box may reach over it): first column, baseline and capital height
  const x0 = Math.max(pixelRegion(page, box).x0, c.x1 + 1);
  const tops: number[] = [],
    bottoms: number[] = [];
  let firstInk = -1;
  for (let x = x0; x < x1; x++) {
    let top = -1,
      bottom = -1;
    for (let y = y0; y < y1; y++)
      if (luminance(page.data, (y * page.width + x) * 3) < INK) {
        if (top < 0) top = y;
        bottom = y;
      }
    if (top < 0) continue;
    if (firstInk < 0) firstInk = x;
    tops.push(top);
    bottoms.push(bottom + 1);
  }
  if (firstInk < 0) return undefined;
  const baseline = median(bottoms);
  const sorted = [...tops].sort((a, b) => a - b);
  const top = sorted[Math.floor(TOP_QUANTILE * (sorted.length - 1))]!;
  const cw = c.x1 - c.x0,
    ch = c.y1 - c.y0;
  // (the letter's body, without an accent over it, stands as high as the line's capitals)
  const capitals = Math.max(4, baseline - top);
  const scale = capitals / Math.min(ch, letterHeight ?? ch);
  const height = Math.max(4, Math.round(ch * scale));
  const width = Math.max(1, Math.round(cw * scale));
  const dx1 = firstInk - Math.max(1, Math.round((spaced ? SPACE : SET_GAP) * capitals)),
    dx0 = dx1 - width,
    dy0 = Math.round(baseline) - height;
  if (dx0 < 0 || dy0 < 0 || dy0 + height > page.height) return undefined;
  const data = inPlace ? page.data : Buffer.from(page.data);
  // the letter's pixels, then the ground round them (the median of the ring just outside its extent)
  const letter = new Uint8Array(cw * ch * 3);
  for (let y = 0; y < ch; y++)
    letter.set(data.subarray(((c.y0 + y) * page.width + c.x0) * 3, ((c.y0 + y) * page.width + c.x1) * 3), y * cw * 3);
  // (its extent holds the pixels darker than INK: its edges' lighter pixels, HALO of its height about it, go too)
  const m = Math.max(2, Math.round(HALO * ch));
  const e = {
    x0: Math.max(0, c.x0 - m),
    x1: Math.min(firstInk - 1, c.x1 + m),
    y0: Math.max(0, c.y0 - m),
    y1: Math.min(page.height, c.y1 + m),
  };
  const ring: number[][] = [[], [], []];
  for (let y = Math.max(0, e.y0 - 2); y < Math.min(page.height, e.y1 + 2); y++)
    for (let x = Math.max(0, e.x0 - 2); x < Math.min(page.width, e.x1 + 2); x++) {
      if (x >= e.x0 && x < e.x1 && y >= e.y0 && y < e.y1) continue;
      const i = (y * page.width + x) * 3;
      for (let k = 0; k < 3; k++) ring[k]!.push(data[i + k]!);
    }
  const ground = ring.map((v) => median(v));
  for (let y = e.y0; y < e.y1; y++)
    for (let x = e.x0; x < e.x1; x++) {
      const i = (y * page.width + x) * 3;
      for (let k = 0; k < 3; k++) data[i + k] = ground[k]!;
    }
  // the letter scaled to the line's capitals, drawn darkest-wins over what lies there (the line's margin, ground)
  const small = resizeBicubic(letter, cw, ch, width, height);
  // (shrunk several times over, its thin strokes, an accent's, fade to grey: their contrast with the ground is
  // raised by CONTRAST, as type rendered at that size keeps it)
  for (let j = 0; j < small.length; j++) {
    const g = ground[j % 3]!;
    small[j] = Math.max(0, Math.min(255, Math.round(g - CONTRAST * (g - small[j]!))));
  }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = ((dy0 + y) * page.width + dx0 + x) * 3,
        j = (y * width + x) * 3;
      if (luminance(small, j) < luminance(data, i)) for (let k = 0; k < 3; k++) data[i + k] = small[j + k]!;
    }
  return {
    page: inPlace ? page : { ...page, data },
    box: { ...box, xMin: Math.max(0, Math.min(box.xMin, dx0 - Math.min(firstInk - box.xMin, MARGIN * (box.yMax - box.yMin)))) },
  };
}
