// Shared by the line front end's tests: the lines config of the default bundle's shape, the pieces of a fake
// recogniser (what crop a batch row holds, and the outputs the front end reads), and pages of black rectangles.
import type { LinesConfig } from "../../src/model/schema.js";
import type { Tensor } from "../../src/vision/lines.js";
import type { PagePixels } from "../../src/vision/preprocess.js";

/** A rectangle of ink, [x0, x1) × [y0, y1) as [x0, y0, x1, y1], in page pixels. */
export type Rect = [number, number, number, number];

/** A white RGB page with the rectangles `ink` in black: glyphs, rules and frames whose geometry a test sets. */
export function inkPage(width: number, height: number, ink: readonly Rect[]): PagePixels {
  const data = Buffer.alloc(width * height * 3, 255);
  for (const [x0, y0, x1, y1] of ink) for (let y = y0; y < y1; y++) data.fill(0, (y * width + x0) * 3, (y * width + x1) * 3);
  return { width, height, data };
}

/** An extent from its four edges. */
export const box = (xMin: number, yMin: number, xMax: number, yMax: number) => ({ xMin, yMin, xMax, yMax });

export const LINES_CFG: LinesConfig = {
  detector: "d",
  recogniser: "r",
  dictionary: "k",
  det_limit: 960,
  det_threshold: 0.3,
  det_box_threshold: 0.6,
  det_unclip: 1.5,
  det_min_size: 3,
  rec_height: 48,
  rec_max_width: 3200,
  rec_batch: 8,
  slots: [16, 48, 128],
  dpi: 150,
};

/** Crop j of a recogniser batch: its middle row (first channel) and its width, the columns before its padding (0). */
export function middleRow(t: Tensor, j: number): { row: Float32Array; width: number } {
  const [, , rh, width] = t.dims as number[];
  const row = t.data.subarray(j * 3 * rh! * width! + (rh! >> 1) * width!, j * 3 * rh! * width! + ((rh! >> 1) + 1) * width!);
  let c = 0;
  while (c < width! && row[c] !== 0) c++;
  return { row, width: c };
}

/** The recogniser's outputs for `n` crops of `steps` steps: classes and peaks per step, features of 4, all `feature`. */
export function recognised(best: Float32Array, peak: Float32Array, n: number, steps: number, feature = 0.25) {
  return {
    best: { data: best, dims: [n, steps] },
    peak: { data: peak, dims: [n, steps] },
    features: { data: new Float32Array(n * steps * 4).fill(feature), dims: [n, steps, 4] },
  };
}
