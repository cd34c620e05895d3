// The line-unit vision mode of the default model: a text detector finds the page's text lines, a line
// recogniser turns each into glyph evidence (one slot per CTC symbol run), and the bundle's projector maps a
// line's slots to decoder embeddings. The decoder reads the page line by line in the streaming layout.
// Everything here is pure computation over page pixels and model outputs; the ONNX sessions are passed in.
import { xyCut, type Extent } from "../layout/xycut.js";
import type { LinesConfig } from "../model/schema.js";
import type { PagePixels } from "./preprocess.js";
import { resizeBicubic } from "./resample.js";

/** Per-slot features after the recogniser's 120 wide: gap before (timesteps/8), run length/8, peak probability, centre/width. */
export const SLOT_EXTRA = 4;
/** Per-unit geometry features (see unitGeometry). */
export const GEOMETRY = 8;

export interface Tensor {
  data: Float32Array;
  dims: readonly number[];
}

/**
 * The two pretrained ONNX models of the mode: detector (probability map) and recogniser (per CTC step: the best
 * class, its probability, and the features the CTC head reads).
 */
export interface LineModels {
  detect(input: Tensor): Promise<Tensor>;
  recognise(input: Tensor): Promise<{ best: Tensor; peak: Tensor; features: Tensor }>;
}

export interface LineBox extends Extent {
  score: number;
}

export interface LineUnit {
  box: LineBox;
  /** [GEOMETRY] layout of the line on the page */
  geometry: Float32Array;
  /** recogniser symbol per slot (CTC class, 0 = blank never appears) */
  ids: Int32Array;
  /** [slots, stride]: the recogniser's features (its width) + SLOT_EXTRA per slot */
  features: Float32Array;
  stride: number;
  /** the recogniser's own greedy reading, for diagnostics */
  text: string;
}

/** Detector input: the page scaled so its longer side is at most `limit`, sides multiples of 32, ImageNet-normalised. */
export function detectorInput(page: PagePixels, limit: number): { input: Tensor; scaleX: number; scaleY: number } {
  const ratio = Math.min(1, limit / Math.max(page.width, page.height));
  const w = Math.max(32, Math.round((page.width * ratio) / 32) * 32);
  const h = Math.max(32, Math.round((page.height * ratio) / 32) * 32);
  const px = resizeBicubic(page.data, page.width, page.height, w, h);
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  const data = new Float32Array(3 * w * h);
  for (let c = 0; c < 3; c++) {
    const plane = c * w * h;
    for (let i = 0; i < w * h; i++) data[plane + i] = (px[i * 3 + c]! / 255 - mean[c]!) / std[c]!;
  }
  return { input: { data, dims: [1, 3, h, w] }, scaleX: page.width / w, scaleY: page.height / h };
}

/**
 * Text boxes from the detector's probability map (differentiable binarisation post-processing): connected
 * regions above `threshold`, kept when their mean probability reaches `boxThreshold`, grown back by the
 * shrink the detector was trained with (`unclip`), in page pixels.
 */
export function boxesFromMap(map: Tensor, scaleX: number, scaleY: number, cfg: LinesConfig, pageWidth: number, pageHeight: number): LineBox[] {
  const h = map.dims[2]!, w = map.dims[3]!;
  const p = map.data;
  const label = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  const boxes: LineBox[] = [];
  let next = 0;
  for (let start = 0; start < w * h; start++) {
    if (label[start] !== 0 || p[start]! <= cfg.det_threshold) continue;
    next++;
    let top = 0;
    stack[top++] = start;
    label[start] = next;
    let x0 = w, x1 = -1, y0 = h, y1 = -1, sum = 0, n = 0;
    while (top > 0) {
      const i = stack[--top]!;
      const x = i % w, y = (i - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      sum += p[i]!;
      n++;
      // 4-connected neighbours
      if (x > 0 && label[i - 1] === 0 && p[i - 1]! > cfg.det_threshold) { label[i - 1] = next; stack[top++] = i - 1; }
      if (x + 1 < w && label[i + 1] === 0 && p[i + 1]! > cfg.det_threshold) { label[i + 1] = next; stack[top++] = i + 1; }
      if (y > 0 && label[i - w] === 0 && p[i - w]! > cfg.det_threshold) { label[i - w] = next; stack[top++] = i - w; }
      if (y + 1 < h && label[i + w] === 0 && p[i + w]! > cfg.det_threshold) { label[i + w] = next; stack[top++] = i + w; }
    }
    const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < cfg.det_min_size || sum / n < cfg.det_box_threshold) continue;
    const d = (bw * bh * cfg.det_unclip) / (2 * (bw + bh));
    boxes.push({
      xMin: Math.max(0, (x0 - d) * scaleX),
      xMax: Math.min(pageWidth, (x1 + 1 + d) * scaleX),
      yMin: Math.max(0, (y0 - d) * scaleY),
      yMax: Math.min(pageHeight, (y1 + 1 + d) * scaleY),
      score: sum / n,
    });
  }
  return boxes;
}

function median(values: number[]): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * Lines in reading order: XY-cut with half the median line height as the narrowest column gutter (detected
 * boxes are dilated, and a two-column paper's gutter is about one line of its body text).
 */
export function orderLines(boxes: readonly LineBox[]): LineBox[] {
  const body = median(boxes.map((b) => b.yMax - b.yMin)) || 10;
  return xyCut(boxes, 0.5 * body);
}

/** unitGeometry of every line of a page, given in reading order (each against the line before it). */
export function pageGeometry(ordered: readonly Extent[], pageWidth: number, pageHeight: number): Float32Array[] {
  const lineHeight = median(ordered.map((b) => b.yMax - b.yMin)) || 1;
  return ordered.map((b, k) => unitGeometry(b, k > 0 ? ordered[k - 1] : undefined, pageWidth, pageHeight, lineHeight));
}

/**
 * Layout of a line for the decoder: its box on the page (fractions), height and the gap above it in median
 * line heights, its indent against the previous line, its aspect ratio (log).
 */
export function unitGeometry(box: Extent, previous: Extent | undefined, pageWidth: number, pageHeight: number, lineHeight: number): Float32Array {
  const h = box.yMax - box.yMin;
  const clip = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  return Float32Array.from([
    box.xMin / pageWidth,
    box.yMin / pageHeight,
    box.xMax / pageWidth,
    box.yMax / pageHeight,
    clip(h / lineHeight, 0, 4) - 1,
    previous ? clip((box.yMin - previous.yMax) / lineHeight, -4, 4) : -4,
    previous ? clip((box.xMin - previous.xMin) / lineHeight, -8, 8) / 4 : 0,
    Math.log(Math.max(1, (box.xMax - box.xMin) / Math.max(1, h))) / 4,
  ]);
}

/** A line crop scaled to the recogniser's height (aspect kept, width capped), normalised to [-1, 1], CHW. */
export function recogniserCrop(page: PagePixels, box: Extent, height: number, maxWidth: number): { data: Float32Array; width: number } {
  const x0 = Math.max(0, Math.floor(box.xMin)), x1 = Math.min(page.width, Math.ceil(box.xMax));
  const y0 = Math.max(0, Math.floor(box.yMin)), y1 = Math.min(page.height, Math.ceil(box.yMax));
  const cw = Math.max(1, x1 - x0), ch = Math.max(1, y1 - y0);
  const crop = new Uint8Array(cw * ch * 3);
  for (let y = 0; y < ch; y++) crop.set(page.data.subarray(((y0 + y) * page.width + x0) * 3, ((y0 + y) * page.width + x0 + cw) * 3), y * cw * 3);
  const width = Math.max(8, Math.min(maxWidth, Math.round((cw * height) / ch)));
  const px = resizeBicubic(crop, cw, ch, width, height);
  const data = new Float32Array(3 * width * height);
  for (let c = 0; c < 3; c++) {
    const plane = c * width * height;
    for (let i = 0; i < width * height; i++) data[plane + i] = (px[i * 3 + c]! / 255 - 0.5) / 0.5;
  }
  return { data, width };
}

/**
 * Greedy CTC collapse of one line: each run of one non-blank class (`best`, with its probability `peak`) becomes
 * a slot carrying the mean recogniser feature over the run plus [blank steps before it/8, run length/8, peak
 * probability, centre / steps].
 */
export function collapseSlots(best: ArrayLike<number>, peak: ArrayLike<number>, features: Float32Array, steps: number, width: number, dictionary: readonly string[]):
  { ids: Int32Array; features: Float32Array; text: string } {
  const runs: [number, number][] = [];
  for (let t = 0; t < steps; t++) {
    if (best[t] === 0) continue;
    if (runs.length && runs.at(-1)![1] === t && best[t - 1] === best[t]) runs.at(-1)![1] = t + 1;
    else runs.push([t, t + 1]);
  }
  const stride = width + SLOT_EXTRA;
  const out = new Float32Array(runs.length * stride);
  const ids = new Int32Array(runs.length);
  let text = "";
  let prevEnd = 0;
  runs.forEach(([a, b], s) => {
    ids[s] = best[a]!;
    text += dictionary[best[a]!] ?? "";
    let pk = 0;
    for (let t = a; t < b; t++) {
      for (let k = 0; k < width; k++) out[s * stride + k]! += features[t * width + k]! / (b - a);
      pk = Math.max(pk, peak[t]!);
    }
    out[s * stride + width] = (a - prevEnd) / 8;
    out[s * stride + width + 1] = (b - a) / 8;
    out[s * stride + width + 2] = pk;
    out[s * stride + width + 3] = (a + b) / 2 / steps;
    prevEnd = b;
  });
  return { ids, features: out, text };
}

/** The recogniser's class list: blank, the dictionary's lines, then space (PaddleOCR's use_space_char). */
export function parseDictionary(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return ["", ...lines, " "];
}

/**
 * Lines of one recogniser call at most: as many of a group's lines, all padded to the group's `width`, as fit in
 * `rec_max_width` columns together (at least one). The recogniser's working memory follows its input's columns
 * (onnxruntime's arena keeps the largest it has needed): batching by line count alone made that input, and the
 * process's peak memory, grow with the widest group a document happened to contain.
 */
export function recogniserChunk(width: number, cfg: Pick<LinesConfig, "rec_batch" | "rec_max_width">): number {
  return Math.max(1, Math.min(cfg.rec_batch, Math.floor(cfg.rec_max_width / width)));
}

/**
 * Detects, orders and recognises a page's text lines. Lines are grouped by width (rec_batch lines, each padded to
 * the group's widest) and each group is recognised in calls of at most rec_max_width columns (recogniserChunk):
 * a line's padding, and so its features, depend on its group only, never on how the group is split.
 */
export async function pageUnits(page: PagePixels, models: LineModels, cfg: LinesConfig, dictionary: readonly string[]): Promise<LineUnit[]> {
  const det = detectorInput(page, cfg.det_limit);
  const map = await models.detect(det.input);
  const boxes = orderLines(boxesFromMap(map, det.scaleX, det.scaleY, cfg, page.width, page.height));
  const geometry = pageGeometry(boxes, page.width, page.height);
  const crops = boxes.map((b) => recogniserCrop(page, b, cfg.rec_height, cfg.rec_max_width));
  const order = crops.map((_, i) => i).sort((a, b) => crops[a]!.width - crops[b]!.width);
  const units: LineUnit[] = new Array(boxes.length);
  for (let i = 0; i < order.length; i += cfg.rec_batch) {
    const group = order.slice(i, i + cfg.rec_batch);
    const width = Math.ceil(Math.max(...group.map((k) => crops[k]!.width)) / 8) * 8;
    const plane = 3 * cfg.rec_height * width;
    const chunk = recogniserChunk(width, cfg);
    for (let c = 0; c < group.length; c += chunk) {
      const batch = group.slice(c, c + chunk);
      const data = new Float32Array(batch.length * plane);
      batch.forEach((k, j) => {
        const crop = crops[k]!;
        for (let ch = 0; ch < 3; ch++)
          for (let y = 0; y < cfg.rec_height; y++)
            data.set(crop.data.subarray((ch * cfg.rec_height + y) * crop.width, (ch * cfg.rec_height + y + 1) * crop.width), j * plane + (ch * cfg.rec_height + y) * width);
      });
      const { best, peak, features } = await models.recognise({ data, dims: [batch.length, 3, cfg.rec_height, width] });
      const steps = best.dims[1]!, fw = features.dims[2]!;
      batch.forEach((k, j) => {
        // steps that only saw padding are dropped
        const valid = Math.min(steps, Math.ceil((crops[k]!.width / width) * steps));
        const slots = collapseSlots(best.data.subarray(j * steps), peak.data.subarray(j * steps), features.data.subarray(j * steps * fw), valid, fw, dictionary);
        units[k] = { box: boxes[k]!, geometry: geometry[k]!, ...slots, stride: fw + SLOT_EXTRA };
      });
    }
  }
  return units;
}
