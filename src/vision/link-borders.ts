// Link borders: the coloured rectangles a PDF viewer (and poppler, which rendered many of the pages people hand us
// as images) draws round hyperlinks, hyperref's default for LaTeX documents (red round references, green round
// citations, cyan round URLs). Drawn tight round a reference number they turn "Tables 1, 2, 3" into
// "Tables [ and" for the recogniser, a box side read as a bracket or a letter. They are taken off the page before its
// lines are found and read: a connected run of saturated pixels that lies along the four sides of its own bounding
// box, each side mostly drawn and each corner reached, is a frame, not a glyph (a coloured letter's pixels are not on
// its box's sides, or, an O's, not in its corners; a filled cell's are mostly inside), and turns white with the tinted
// pixels that edge it.
import type { Extent } from "../layout/xycut.js";
import { forComponents, forNeighbours } from "./components.js";
import type { PagePixels } from "./preprocess.js";

/** A pixel is saturated when its channels differ by this much, its brightest one at least BRIGHT (not a dark grey). */
const SATURATED = 80;
const BRIGHT = 120;
/** …and tinted (a frame's anti-aliased edge) by this much. */
const TINTED = 25;
/** A frame's pixels lie within this share of its shorter side (at least 2 px) of its box's sides… */
const SIDE_BAND = 0.2;
/** …this share of them at least, and each side of the box is drawn along this share of its length. */
const ON_SIDES = 0.9;
const DRAWN = 0.7;
/** A frame has a pixel within this many pixels of each corner of its box. */
const CORNER = 1;
/** Frames are at least this many pixels on each side: drawn round a line's text, they are taller than a coloured
 * letter's x-height (at 9 px a coloured o has corners and straight sides as well). */
const MIN_SIDE = 12;
/** Each side is straight: along this share of it (its corners' bands left out) a pixel lies on the box's edge row or
 * column, or the one next to it. */
const STRAIGHT = 0.8;

/**
 * The page with its link frames whitened: a copy where any are found, the page itself where none is; `frames` are
 * the boxes of those taken off.
 */
export function withoutLinkBorders(page: PagePixels): { page: PagePixels; frames: Extent[] } {
  const { width: w, height: h, data } = page;
  const n = w * h;
  const spread = (p: number) => {
    const r = data[3 * p]!,
      g = data[3 * p + 1]!,
      b = data[3 * p + 2]!;
    return (r > g ? (r > b ? r : b) : g > b ? g : b) - (r < g ? (r < b ? r : b) : g < b ? g : b);
  };
  let mask: Uint8Array | undefined;
  for (let p = 0, k = 0; p < n; p++, k += 3) {
    const r = data[k]!,
      g = data[k + 1]!,
      b = data[k + 2]!;
    // (grey pixels, nearly all of a page, are passed at the first test)
    if (r === g && g === b) continue;
    const hi = r > g ? (r > b ? r : b) : g > b ? g : b;
    const lo = r < g ? (r < b ? r : b) : g < b ? g : b;
    if (hi - lo >= SATURATED && hi >= BRIGHT) (mask ??= new Uint8Array(n))[p] = 1;
  }
  if (!mask) return { page, frames: [] };
  // each 8-connected run of saturated pixels that is a frame
  return whitenFrames(page, mask, (q) => spread(q) >= TINTED);
}

/**
 * The page with each run of `mask` pixels (8-connected) that `fits` (by its box's width and height) and is a frame
 * (frameShape) whitened, with the pixels beside it outside the mask that are its anti-aliased `edge`: a copy where any
 * is, the page itself where none is; `frames` are the boxes of those taken off. (An empty frame of a box's size is
 * inside nothing: it is drawn round ink, so whatever it holds stays.)
 */
export function whitenFrames(
  page: PagePixels,
  mask: Uint8Array,
  edge: (q: number) => boolean,
  fits: (width: number, height: number) => boolean = () => true,
): { page: PagePixels; frames: Extent[] } {
  const { width: w, height: h, data } = page;
  let out: Buffer | undefined;
  const frames: Extent[] = [];
  forComponents(mask, w, h, ({ members, x0, x1, y0, y1 }) => {
    if (!fits(x1 - x0 + 1, y1 - y0 + 1) || !frameShape(members, w, x0, x1, y0, y1)) return;
    const whitened = (out ??= Buffer.from(data));
    frames.push({ xMin: x0, yMin: y0, xMax: x1 + 1, yMax: y1 + 1 });
    for (const p of members) {
      whitened.fill(255, 3 * p, 3 * p + 3);
      forNeighbours(p, w, h, (q) => {
        if (mask[q] === 0 && edge(q)) whitened.fill(255, 3 * q, 3 * q + 3);
      });
    }
  });
  return out ? { page: { ...page, data: out }, frames } : { page, frames };
}

/**
 * Whether a connected run of pixels (`members`, indices into a `w`-wide page; its box x0..x1, y0..y1 inclusive) is a
 * frame: at least MIN_SIDE pixels each way, ON_SIDES of its pixels within SIDE_BAND of its box's sides, each side
 * drawn along DRAWN of its length and STRAIGHT, and a pixel in each corner (an O, 0 or D lies along its box's sides
 * too, but leaves the corners empty).
 */
export function frameShape(members: readonly number[], w: number, x0: number, x1: number, y0: number, y1: number): boolean {
  const bw = x1 - x0 + 1,
    bh = y1 - y0 + 1;
  if (bw < MIN_SIDE || bh < MIN_SIDE) return false;
  const band = Math.max(2, Math.round(SIDE_BAND * Math.min(bw, bh)));
  // each side's drawn length: the columns (rows) holding a pixel within the band of that side
  const top = new Uint8Array(bw),
    bottom = new Uint8Array(bw),
    left = new Uint8Array(bh),
    right = new Uint8Array(bh);
  // (2 where a pixel lies on the side's own edge row or column, or the one next to it)
  let onSides = 0;
  for (const p of members) {
    const x = p % w,
      y = (p - x) / w;
    const t = y - y0 < band,
      b = y1 - y < band,
      l = x - x0 < band,
      r = x1 - x < band;
    if (t) top[x - x0] = Math.max(top[x - x0]!, y - y0 <= 1 ? 2 : 1);
    if (b) bottom[x - x0] = Math.max(bottom[x - x0]!, y1 - y <= 1 ? 2 : 1);
    if (l) left[y - y0] = Math.max(left[y - y0]!, x - x0 <= 1 ? 2 : 1);
    if (r) right[y - y0] = Math.max(right[y - y0]!, x1 - x <= 1 ? 2 : 1);
    if (t || b || l || r) onSides++;
  }
  const drawn = (side: Uint8Array) => {
    const inner = side.subarray(band, side.length - band);
    return (
      side.reduce((a, v) => a + (v ? 1 : 0), 0) >= DRAWN * side.length &&
      inner.reduce((a, v) => a + (v === 2 ? 1 : 0), 0) >= STRAIGHT * inner.length
    );
  };
  if (onSides < ON_SIDES * members.length || !drawn(top) || !drawn(bottom) || !drawn(left) || !drawn(right)) return false;
  let corners = 0;
  for (const p of members) {
    const x = p % w,
      y = (p - x) / w;
    const cx = x - x0 <= CORNER ? 1 : x1 - x <= CORNER ? 2 : 0,
      cy = y - y0 <= CORNER ? 1 : y1 - y <= CORNER ? 2 : 0;
    if (cx && cy) corners |= 1 << ((cx - 1) * 2 + (cy - 1));
  }
  return corners === 15;
}
