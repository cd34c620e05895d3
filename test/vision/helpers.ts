// Shared by the line front end's tests: the lines config of the default bundle's shape, and the pieces of a fake
// recogniser (what crop a batch row holds, and the outputs the front end reads).
import type { LinesConfig } from "../../src/model/schema.js";
import type { Tensor } from "../../src/vision/lines.js";

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
