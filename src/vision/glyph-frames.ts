// Frames drawn round a glyph or two: a form's answer letters set in squares (a, b, c, d), its true/false boxes (V, F),
// its empty checkboxes. The detector takes a framed letter with its line, and the recogniser reads the frame's sides
// as strokes ("b −1; c 0;" read "| -10 r0%"). Such frames are taken off the page before its lines are found and read,
// as link borders are (link-borders.ts): a connected run of dark pixels no larger than a glyph's box that lies along
// the four sides of its own bounding box (frameShape) turns white, with the grey pixels that edge it. A table's rules
// form one run with the whole grid and a frame round a block of text is larger, so both stay.
import type { Extent } from "../layout/xycut.js";
import { forComponents, forNeighbours } from "./components.js";
import { frameShape } from "./link-borders.js";
import type { PagePixels } from "./preprocess.js";

/** Ink darker than this (0–255 luminance) makes a frame's pixels… */
const INK = 128;
/** …and pixels beside them lighter than this but darker than the paper are its anti-aliased edge. */
const EDGE = 230;
/** A glyph's frame is at most this share of the page's width on either side (an A4 page at 150 DPI: 50 px, some
 * two lines of body text; a checkbox is one line high or less). */
const MAX_SIDE = 0.04;
/** …and at most this many times as wide as high, or high as wide. */
const MAX_ASPECT = 2;

const luminance = (data: Buffer, p: number) => 0.299 * data[3 * p]! + 0.587 * data[3 * p + 1]! + 0.114 * data[3 * p + 2]!;

/** The page with its glyph frames whitened: a copy where any are found, the page itself where none is; `frames` are
 * the boxes of those taken off. */
export function withoutGlyphFrames(page: PagePixels): { page: PagePixels; frames: Extent[] } {
  const { width: w, height: h, data } = page;
  const n = w * h;
  const mask = new Uint8Array(n);
  for (let p = 0; p < n; p++) if (luminance(data, p) < INK) mask[p] = 1;
  const largest = MAX_SIDE * w;
  let out: Buffer | undefined;
  const frames: Extent[] = [];
  forComponents(mask, w, h, ({ members, x0, x1, y0, y1 }) => {
    const bw = x1 - x0 + 1,
      bh = y1 - y0 + 1;
    if (bw > largest || bh > largest || bw > MAX_ASPECT * bh || bh > MAX_ASPECT * bw) return;
    if (!frameShape(members, w, x0, x1, y0, y1)) return;
    const whitened = (out ??= Buffer.from(data));
    frames.push({ xMin: x0, yMin: y0, xMax: x1 + 1, yMax: y1 + 1 });
    for (const p of members) {
      whitened.fill(255, 3 * p, 3 * p + 3);
      forNeighbours(p, w, h, (q) => {
        if (mask[q] === 0 && luminance(data, q) < EDGE) whitened.fill(255, 3 * q, 3 * q + 3);
      });
    }
  });
  return out ? { page: { ...page, data: out }, frames } : { page, frames };
}
