// Page deskew for the line front end. Line crops are axis-aligned boxes: on a page scanned 0.6° askew a 2,000-px
// line drifts by 20 px, half a line pitch at 300 DPI, so its crop holds parts of the lines above and below and the
// recogniser reads neither. The skew is estimated from the page's ink (projection profiles over sheared rows) and
// the page is turned back before the detector sees it.
import type { PagePixels } from "./preprocess.js";

/** Angles searched, in degrees either way, and the step. */
const MAX_DEGREES = 3;
const STEP_DEGREES = 0.05;
/** The search's first pass takes every COARSE-th step (0.25°), the second the steps around its best. */
const COARSE = 5;
/** Skews smaller than this are left alone: a line drifts less than a third of its height at 300 DPI. */
export const MIN_DESKEW_DEGREES = 0.15;
/** The profile at the best angle must be this much sharper than at 0° (noise and figures give flat gains). */
const MIN_GAIN = 1.02;
/** Width of the ink sample the profiles are computed on. */
const SAMPLE_WIDTH = 800;
/** A pixel is ink when its grey level is below this. */
const INK = 140;

/**
 * The page's skew in degrees (positive: text lines run down to the right, in image coordinates), or 0 when no
 * angle within ±3° makes the rows of ink clearly sharper than 0° does. Postl's criterion: the sum of squared
 * differences between neighbouring rows of the ink profile, with rows sheared by the trial angle.
 */
export function estimateSkew(page: PagePixels): number {
  const step = Math.max(1, Math.floor(page.width / SAMPLE_WIDTH));
  const rows = Math.ceil(page.height / step);
  const cols = Math.ceil(page.width / step);
  // the ink samples' columns and rows, in sample units (integers)
  let xs = new Int32Array(4096);
  let ys = new Int32Array(4096);
  let count = 0;
  for (let y = 0; y < page.height; y += step) {
    for (let x = 0; x < page.width; x += step) {
      const i = (y * page.width + x) * 3;
      if ((page.data[i]! + page.data[i + 1]! + page.data[i + 2]!) / 3 < INK) {
        if (count === xs.length) {
          const grow = (a: Int32Array) => {
            const b = new Int32Array(a.length * 2);
            b.set(a);
            return b;
          };
          xs = grow(xs);
          ys = grow(ys);
        }
        xs[count] = x / step;
        ys[count] = y / step;
        count++;
      }
    }
  }
  if (count < 200) return 0;
  const pad = Math.ceil(cols * Math.tan((MAX_DEGREES * Math.PI) / 180)) + 1;
  const profile = new Float64Array(rows + 2 * pad);
  // the sheared row of a sample is round(y − x·tan) = y + round(−x·tan) (y is an integer): one shift per column,
  // looked up instead of computed per sample (in doubles the two differ only where x·tan lies within ~1e-12 of a
  // half; the angles of 215 pages, the dev benchmark's 70 and 145 of the corpus, came out the same)
  const shift = new Int32Array(cols);
  const sharpness = (degrees: number): number => {
    profile.fill(0);
    const t = Math.tan((degrees * Math.PI) / 180);
    for (let x = 0; x < cols; x++) shift[x] = Math.round(-x * t) + pad;
    for (let k = 0; k < count; k++) profile[ys[k]! + shift[xs[k]!]!]!++;
    let s = 0;
    for (let r = 1; r < profile.length; r++) {
      const d = profile[r]! - profile[r - 1]!;
      s += d * d;
    }
    return s;
  };
  const flat = sharpness(0);
  let best = 0;
  let bestScore = flat;
  // every COARSE-th step first, then the fine steps within COARSE steps of the best of those (the sharpness peak at a
  // page's skew is a line height over the sample's width wide, ~0.7° at 800 columns: several coarse steps)
  const n = Math.round(MAX_DEGREES / STEP_DEGREES);
  const at = (k: number) => {
    if (k === 0 || k < -n || k > n) return;
    const score = sharpness(k * STEP_DEGREES);
    if (score > bestScore || (score === bestScore && Math.abs(k * STEP_DEGREES) < Math.abs(best))) {
      bestScore = score;
      best = k * STEP_DEGREES;
    }
  };
  for (let k = -n; k <= n; k += COARSE) at(k);
  const centre = Math.round(best / STEP_DEGREES);
  for (let k = centre - COARSE + 1; k < centre + COARSE; k++) if ((k + n) % COARSE !== 0) at(k);
  return bestScore >= flat * MIN_GAIN ? best : 0;
}

/** The page turned by -`degrees` about its centre (bilinear, same size, white where nothing was). */
export function rotatePage(page: PagePixels, degrees: number): PagePixels {
  const { width, height } = page;
  const out = Buffer.alloc(width * height * 3, 255);
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const cx = (width - 1) / 2;
  const cy = (height - 1) / 2;
  const src = page.data;
  for (let yo = 0; yo < height; yo++) {
    const dy = yo - cy;
    for (let xo = 0; xo < width; xo++) {
      const dx = xo - cx;
      // the source point that lands on (xo, yo): a text line y = y0 + x tan(a) becomes the row yo
      const x = cx + dx * cos - dy * sin;
      const y = cy + dx * sin + dy * cos;
      const x0 = Math.floor(x);
      const y0 = Math.floor(y);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) continue;
      const fx = x - x0;
      const fy = y - y0;
      const i00 = (y0 * width + x0) * 3;
      const i10 = i00 + 3;
      const i01 = i00 + width * 3;
      const i11 = i01 + 3;
      const o = (yo * width + xo) * 3;
      for (let c = 0; c < 3; c++) {
        const top = src[i00 + c]! + (src[i10 + c]! - src[i00 + c]!) * fx;
        const bottom = src[i01 + c]! + (src[i11 + c]! - src[i01 + c]!) * fx;
        out[o + c] = Math.round(top + (bottom - top) * fy);
      }
    }
  }
  return { ...page, data: out };
}

/** The page with its skew turned back, or the page itself when it is straight (within MIN_DESKEW_DEGREES). */
export function deskewPage(page: PagePixels): { page: PagePixels; degrees: number } {
  const degrees = estimateSkew(page);
  if (Math.abs(degrees) < MIN_DESKEW_DEGREES) return { page, degrees: 0 };
  return { page: rotatePage(page, degrees), degrees };
}
