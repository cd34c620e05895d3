// Bicubic resize of 8-bit RGB computed as PIL's Image.resize does (the reference preprocessing): separable passes,
// horizontal first, kernel widened when shrinking, fixed-point coefficients, rounding to 8 bits between passes.

/** PIL's bicubic filter (Keys, a = −0.5), support 2. */
function bicubic(x: number): number {
  const a = -0.5;
  x = Math.abs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

const PRECISION_BITS = 32 - 8 - 2;
const ONE = 2 ** PRECISION_BITS;
const HALF = 2 ** (PRECISION_BITS - 1);

interface Coefficients {
  /** first source index per output index */
  start: Int32Array;
  /** taps per output index */
  count: Int32Array;
  /** [outSize, taps] fixed-point weights */
  weights: Float64Array;
  taps: number;
}

function coefficients(inSize: number, outSize: number): Coefficients {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = 2 * filterScale;
  const taps = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float64Array(outSize * taps);
  for (let o = 0; o < outSize; o++) {
    const centre = (o + 0.5) * scale;
    // C's (int) truncates toward zero
    const xmin = Math.max(Math.trunc(centre - support + 0.5), 0);
    const xmax = Math.min(Math.trunc(centre + support + 0.5), inSize) - xmin;
    let total = 0;
    const w = new Float64Array(xmax);
    for (let x = 0; x < xmax; x++) {
      w[x] = bicubic((x + xmin - centre + 0.5) / filterScale);
      total += w[x]!;
    }
    for (let x = 0; x < xmax; x++) {
      const v = total !== 0 ? w[x]! / total : w[x]!;
      weights[o * taps + x] = v < 0 ? Math.trunc(-0.5 + v * ONE) : Math.trunc(0.5 + v * ONE);
    }
    start[o] = xmin;
    count[o] = xmax;
  }
  return { start, count, weights, taps };
}

function clip8(sum: number): number {
  const v = Math.floor(sum / ONE);
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

/** Resizes RGB pixels (width·height·3 bytes) to outWidth × outHeight. */
export function resizeBicubic(src: Uint8Array, width: number, height: number, outWidth: number, outHeight: number): Uint8Array {
  if (width === outWidth && height === outHeight) return src;
  let cur = src;
  let curWidth = width;
  if (outWidth !== width) {
    const c = coefficients(width, outWidth);
    const out = new Uint8Array(outWidth * height * 3);
    for (let y = 0; y < height; y++) {
      const row = y * width * 3;
      for (let o = 0; o < outWidth; o++) {
        let r = HALF, g = HALF, b = HALF;
        const base = o * c.taps;
        let p = row + c.start[o]! * 3;
        for (let k = 0; k < c.count[o]!; k++, p += 3) {
          const w = c.weights[base + k]!;
          r += cur[p]! * w;
          g += cur[p + 1]! * w;
          b += cur[p + 2]! * w;
        }
        const q = (y * outWidth + o) * 3;
        out[q] = clip8(r);
        out[q + 1] = clip8(g);
        out[q + 2] = clip8(b);
      }
    }
    cur = out;
    curWidth = outWidth;
  }
  if (outHeight !== height) {
    const c = coefficients(height, outHeight);
    const out = new Uint8Array(curWidth * outHeight * 3);
    const stride = curWidth * 3;
    for (let o = 0; o < outHeight; o++) {
      const base = o * c.taps;
      const first = c.start[o]!;
      for (let x = 0; x < stride; x++) {
        let s = HALF;
        let p = first * stride + x;
        for (let k = 0; k < c.count[o]!; k++, p += stride) s += cur[p]! * c.weights[base + k]!;
        out[o * stride + x] = clip8(s);
      }
    }
    cur = out;
  }
  return cur;
}
