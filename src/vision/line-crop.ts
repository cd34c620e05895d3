// Line crops for the recogniser: a detected line's pixels scaled to the recogniser's height and kept as bytes, and
// the normalised batch the recogniser reads, made from them only when it is read.
import type { Extent } from "../layout/xycut.js";
import { luminance, pixelRegion, type PagePixels } from "./preprocess.js";
import { resizeBicubic, resizeGrey } from "./resample.js";

/** A batch of images (NCHW floats) as the line models take it. */
export interface Tensor {
  data: Float32Array;
  dims: readonly number[];
}

/** The grey bytes of a region of the page, or undefined when one of its pixels has channels that differ. */
function greyRegion(page: PagePixels, x0: number, y0: number, cw: number, ch: number): Uint8Array | undefined {
  const grey = new Uint8Array(cw * ch);
  const src = page.data;
  for (let y = 0; y < ch; y++) {
    let p = ((y0 + y) * page.width + x0) * 3;
    const row = y * cw;
    for (let x = 0; x < cw; x++, p += 3) {
      const v = src[p]!;
      if (v !== src[p + 1] || v !== src[p + 2]) return undefined;
      grey[row + x] = v;
    }
  }
  return grey;
}

/** (v / 255 - 0.5) / 0.5 per byte value v, as float32 (the recogniser's normalisation). */
const REC_LUT = Float32Array.from({ length: 256 }, (_, v) => (v / 255 - 0.5) / 0.5);

/**
 * A line crop at the recogniser's height, as bytes: one grey channel, or RGB interleaved. It becomes the recogniser's
 * normalised floats only in the batch being read (recogniserBatch): a page's crops held as floats, the grey plane
 * three times over, took ~1 MB a line (tens of MB for a dense page) for as long as the page was read.
 */
export interface LineCrop {
  width: number;
  height: number;
  channels: 1 | 3;
  pixels: Uint8Array;
}

/** The recogniser's value, in [-1, 1], of channel `c` of a crop's pixel at row `r`, column `x`. */
export function cropValue(crop: LineCrop, c: number, r: number, x: number): number {
  return REC_LUT[crop.pixels[(r * crop.width + x) * crop.channels + (crop.channels === 3 ? c : 0)]!]!;
}

/**
 * A crop as the glyph measures read it (the diacritics model's windows, vision/letter-case.ts's heights): one grey
 * channel, ink dark on light paper. A grey crop of dark type is itself. A colour crop becomes its luminance (its
 * first channel alone, red, hides red type on white and white type on red); and a crop whose type is lighter than
 * its ground (a magazine's white on a coloured band, a scan's inverted heading) is turned over and its ground
 * raised to white, as the measures and the model's training lines have it (on the first channel of white on red
 * the model read carons and cedillas on every t, s and c: "Ťičkeťš cošť").
 */
export function inkCrop(crop: LineCrop): LineCrop {
  const n = crop.width * crop.height;
  const grey = crop.channels === 1 ? crop.pixels : Uint8Array.from({ length: n }, (_, i) => Math.round(luminance(crop.pixels, 3 * i)));
  const counts = new Uint32Array(256);
  for (let i = 0; i < n; i++) counts[grey[i]!]!++;
  let lo = 0,
    hi = 255,
    ground = 0;
  while (lo < 255 && !counts[lo]) lo++;
  while (hi > 0 && !counts[hi]) hi--;
  for (let seen = 0; ground < 255 && (seen += counts[ground]!) * 2 < n; ) ground++;
  // the ground is the median: nearer the lightest value than the darkest, the type is dark
  if (hi - ground <= ground - lo) return crop.channels === 1 ? crop : { ...crop, channels: 1, pixels: grey };
  const paper = 255 - ground,
    scale = paper > 0 ? 255 / paper : 1;
  const pixels = Uint8Array.from(grey, (v) => Math.min(255, Math.round((255 - v) * scale)));
  return { ...crop, channels: 1, pixels };
}

/** Values a crop's pixels span, in some channel, at least where it shows a glyph: less is flat ground (a box over
 * a band of flat colour spans 0; a line of type, however pale, spans far more). */
const FLAT = 16;

/** Whether a crop shows no glyph: every pixel within FLAT of the others in every channel (a detector's box over the
 * flat colour of a band between a tracked heading's words, which the recogniser read as a "2" at 0.05). */
export function flatCrop(crop: LineCrop): boolean {
  for (let c = 0; c < crop.channels; c++) {
    let lo = 255,
      hi = 0;
    for (let i = c; i < crop.pixels.length; i += crop.channels) {
      const v = crop.pixels[i]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (hi - lo >= FLAT) return false;
  }
  return true;
}

/** A line crop scaled to the recogniser's height (aspect kept, or widened `widen` times; width capped). */
export function recogniserCrop(page: PagePixels, box: Extent, height: number, maxWidth: number, widen = 1): LineCrop {
  const { x0, x1, y0, y1 } = pixelRegion(page, box);
  const cw = Math.max(1, x1 - x0),
    ch = Math.max(1, y1 - y0);
  const width = Math.max(8, Math.min(maxWidth, Math.round(((cw * height) / ch) * widen)));
  // a grey crop (scans, most print): its one channel resized (the same values as the RGB path's three, a third of
  // the work and no RGB copies)
  const grey = greyRegion(page, x0, y0, cw, ch);
  if (grey) return { width, height, channels: 1, pixels: resizeGrey(grey, cw, ch, width, height) };
  const crop = new Uint8Array(cw * ch * 3);
  for (let y = 0; y < ch; y++)
    crop.set(page.data.subarray(((y0 + y) * page.width + x0) * 3, ((y0 + y) * page.width + x0 + cw) * 3), y * cw * 3);
  return { width, height, channels: 3, pixels: resizeBicubic(crop, cw, ch, width, height) };
}

/**
 * Recogniser input for line crops of one height: each crop left-aligned in `width` columns, normalised to [-1, 1]
 * (CHW), zero (mid-grey) padding.
 */
export function recogniserBatch(crops: readonly LineCrop[], height: number, width: number): Tensor {
  const plane = height * width;
  const data = new Float32Array(crops.length * 3 * plane);
  crops.forEach((crop, j) => {
    const w = crop.width,
      px = crop.pixels;
    for (let c = 0; c < 3; c++) {
      const out = (3 * j + c) * plane;
      if (crop.channels === 1 && c > 0) {
        data.copyWithin(out, 3 * j * plane, 3 * j * plane + plane);
        continue;
      }
      for (let r = 0; r < height; r++) {
        const row = out + r * width;
        if (crop.channels === 1) for (let x = 0; x < w; x++) data[row + x] = REC_LUT[px[r * w + x]!]!;
        else for (let x = 0; x < w; x++) data[row + x] = REC_LUT[px[(r * w + x) * 3 + c]!]!;
      }
    }
  });
  return { data, dims: [crops.length, 3, height, width] };
}
