// Frames drawn round a glyph or two: a form's answer letters set in squares (a, b, c, d), its true/false boxes (V, F),
// its empty checkboxes. The detector takes a framed letter with its line, and the recogniser reads the frame's sides
// as strokes ("b −1; c 0;" read "| -10 r0%"). Such frames are taken off the page before its lines are found and read,
// as link borders are (link-borders.ts): a connected run of dark pixels no larger than a glyph's box that lies along
// the four sides of its own bounding box (frameShape) turns white (whitenFrames), with the grey pixels that edge it. A table's rules
// form one run with the whole grid and a frame round a block of text is larger, so both stay.
import type { Extent } from "../layout/xycut.js";
import { whitenFrames } from "./link-borders.js";
import { luminance, type PagePixels } from "./preprocess.js";

/** Ink darker than this (0–255 luminance) makes a frame's pixels… */
const INK = 128;
/** …and pixels beside them lighter than this but darker than the paper are its anti-aliased edge. */
const EDGE = 230;
/** A glyph's frame is at most this share of the page's width on either side (an A4 page at 150 DPI: 50 px, some
 * two lines of body text; a checkbox is one line high or less). */
const MAX_SIDE = 0.04;
/** …and at most this many times as wide as high, or high as wide. */
const MAX_ASPECT = 2;

/** The page with its glyph frames whitened: a copy where any are found, the page itself where none is; `frames` are
 * the boxes of those taken off. */
export function withoutGlyphFrames(page: PagePixels): { page: PagePixels; frames: Extent[] } {
  const { width: w, height: h, data } = page;
  const mask = new Uint8Array(w * h);
  for (let p = 0; p < w * h; p++) if (luminance(data, 3 * p) < INK) mask[p] = 1;
  const largest = MAX_SIDE * w;
  return whitenFrames(
    page,
    mask,
    (q) => luminance(data, 3 * q) < EDGE,
    (bw, bh) => bw <= largest && bh <= largest && bw <= MAX_ASPECT * bh && bh <= MAX_ASPECT * bw,
  );
}
