// The line-unit vision mode of the default model: a text detector finds the page's text lines, a line
// recogniser turns each into glyph evidence (one slot per CTC symbol run), and the bundle's projector maps a
// line's slots to decoder embeddings. The decoder reads the page line by line in the streaming layout.
// Everything here is pure computation over page pixels and model outputs; the ONNX sessions are passed in.
import { readDiacritics } from "./diacritics.js";
import { caseBySize, slotHeights, smallCaps } from "./letter-case.js";
import { darkRuns, rowGroups, type DarkRun } from "./components.js";
import { inkOutsideBoxes, missedLargeText, missedText } from "./missed-text.js";
import { STRAY_GLYPHS, strayMarks } from "./stray-marks.js";
import { capAlone, dropCaps, withDropCap } from "./drop-caps.js";
import { deskewPage } from "./deskew.js";
import { withoutLinkBorders } from "./link-borders.js";
import { withoutGlyphFrames } from "./glyph-frames.js";
import { splitAtInkGutters } from "../layout/ink-gutters.js";
import { horizontalRules } from "../layout/rules.js";
import { layoutStage, type PageFrame } from "../layout/stage.js";
import { extentOf, median, overlapArea, type Extent } from "../layout/xycut.js";
import { insidePicture, pictureRegions } from "./pictures.js";
import { panelRegions } from "./panels.js";
import type { LinesConfig } from "../model/schema.js";
import { pixelRegion, type PagePixels } from "./preprocess.js";
import { resizeBicubic } from "./resample.js";
import { leaderDots } from "./leaders.js";
import { flatCrop, inkCrop, recogniserBatch, recogniserCrop, type LineCrop, type Tensor } from "./line-crop.js";
import { loadSharp } from "../input/sharp.js";
import { readPageFormulas, type FormulaConfig, type FormulaModels, type PageFormula } from "./formula.js";
import { readingBox, turnedRegion, verticalCandidates, type Turn } from "./vertical.js";

/** Per-slot features after the recogniser's 120 wide: gap before (timesteps/8), run length/8, peak probability, centre/width. */
export const SLOT_EXTRA = 4;
/** Per-unit geometry features (see unitGeometry). */
export const GEOMETRY = 8;

export { cropValue, recogniserBatch, recogniserCrop, type LineCrop, type Tensor } from "./line-crop.js";

/**
 * The two pretrained ONNX models of the mode: detector (probability map) and recogniser (per CTC step: the best
 * class, its probability, and the features the CTC head reads).
 */
export interface LineModels {
  detect(input: Tensor): Promise<Tensor>;
  recognise(input: Tensor): Promise<{ best: Tensor; peak: Tensor; features: Tensor }>;
  /** the diacritics model (vision/diacritics.ts): windows [n, 1, 48, 32], one-hot letters [n, 27] → probabilities [n, classes] */
  diacritics?(patches: Tensor, letters: Tensor): Promise<Tensor>;
  /** the reading order of the detected lines; default: the layout stage's (orderLines) */
  order?(boxes: readonly LineBox[], page: PageFrame): LineBox[];
  /** the formula reader (vision/formula.ts): display formulas among the lines are read to LaTeX */
  formula?: { models: FormulaModels; cfg: FormulaConfig };
}

export interface LineBox extends Extent {
  score: number;
  /** a line set vertically (vision/vertical.ts): how its crop is turned upright */
  turn?: Turn;
  /** the dots of a leader that runs right of the line, to the next on its row (vision/leaders.ts) */
  leader?: number;
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
  /** the recogniser's own greedy reading (of the widened crop where the line was crowded: see CROWDED) */
  text: string;
  /** per character of `text`, its slot's peak probability where `text` is not the reading of `ids` (a crowded line
   * read again widened: the decoder's slots stay those of the first reading, whose scale it was trained on) */
  peaks?: Float32Array;
  /** …and its blank CTC steps before each character (slotGaps), scaled to the first reading's steps */
  gaps?: Float32Array;
  /** per slot, the diacritic the diacritics model reads on its letter (an index of DIACRITICS) and how sure it is;
   * absent where the bundle has no diacritics model or the page shows none beyond the decoder's letters */
  diacritics?: Uint8Array;
  diacriticPeaks?: Float32Array;
  /** per slot, its glyph's height over the line's x-height (NaN: not measured; vision/letter-case.ts slotHeights) */
  heights?: Float32Array;
  /** …and how far it reaches below the baseline, in x-heights */
  depths?: Float32Array;
}

/**
 * A page image smaller than the detector's limit is scaled up, to at most this many times its size: a table cropped
 * from an article at screen resolution has text 7 px high, under what the detector tells apart (cells run together,
 * decimal points are lost); on a page rendered at 150 DPI the detector already sees text half that size.
 */
const DETECTOR_UPSCALE = 2;

/** The scale the detector sees a page at: its longer side at `limit` pixels, grown no more than DETECTOR_UPSCALE times. */
function detectorScale(page: { width: number; height: number }, limit: number): number {
  return Math.min(DETECTOR_UPSCALE, limit / Math.max(page.width, page.height));
}

/** Detector input: the page scaled so its longer side is at most `limit` (and grown no more than DETECTOR_UPSCALE
 * times), sides multiples of 32, ImageNet-normalised. */
export function detectorInput(page: PagePixels, limit: number): { input: Tensor; scaleX: number; scaleY: number } {
  const ratio = detectorScale(page, limit);
  const w = Math.max(32, Math.round((page.width * ratio) / 32) * 32);
  const h = Math.max(32, Math.round((page.height * ratio) / 32) * 32);
  const px = resizeBicubic(page.data, page.width, page.height, w, h);
  const mean = [0.485, 0.456, 0.406];
  const std = [0.229, 0.224, 0.225];
  const data = new Float32Array(3 * w * h);
  for (let c = 0; c < 3; c++) {
    const plane = c * w * h;
    // the same formula per byte value, looked up (same floats as computing it per pixel)
    const lut = Float32Array.from({ length: 256 }, (_, v) => (v / 255 - mean[c]!) / std[c]!);
    for (let i = 0; i < w * h; i++) data[plane + i] = lut[px[i * 3 + c]!]!;
  }
  return { input: { data, dims: [1, 3, h, w] }, scaleX: page.width / w, scaleY: page.height / h };
}

/**
 * Text boxes from the detector's probability map (differentiable binarisation post-processing): connected
 * regions above `threshold`, kept when their mean probability reaches `boxThreshold`, grown back by the
 * shrink the detector was trained with (`unclip`), in page pixels.
 */
export function boxesFromMap(
  map: Tensor,
  scaleX: number,
  scaleY: number,
  cfg: LinesConfig,
  pageWidth: number,
  pageHeight: number,
): LineBox[] {
  const h = map.dims[2]!,
    w = map.dims[3]!;
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
    let x0 = w,
      x1 = -1,
      y0 = h,
      y1 = -1,
      sum = 0,
      n = 0;
    while (top > 0) {
      const i = stack[--top]!;
      const x = i % w,
        y = (i - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      sum += p[i]!;
      n++;
      // 4-connected neighbours
      if (x > 0 && label[i - 1] === 0 && p[i - 1]! > cfg.det_threshold) {
        label[i - 1] = next;
        stack[top++] = i - 1;
      }
      if (x + 1 < w && label[i + 1] === 0 && p[i + 1]! > cfg.det_threshold) {
        label[i + 1] = next;
        stack[top++] = i + 1;
      }
      if (y > 0 && label[i - w] === 0 && p[i - w]! > cfg.det_threshold) {
        label[i - w] = next;
        stack[top++] = i - w;
      }
      if (y + 1 < h && label[i + w] === 0 && p[i + w]! > cfg.det_threshold) {
        label[i + w] = next;
        stack[top++] = i + w;
      }
    }
    const bw = x1 - x0 + 1,
      bh = y1 - y0 + 1;
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

/** Lines in reading order, as the layout stage reads them (layout/stage.ts: XY-cut unless a learned stage is set). */
export function orderLines(boxes: readonly LineBox[], page: PageFrame = { width: 0, height: 0 }): LineBox[] {
  return layoutStage().order(boxes, page);
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
export function unitGeometry(
  box: Extent,
  previous: Extent | undefined,
  pageWidth: number,
  pageHeight: number,
  lineHeight: number,
): Float32Array {
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

/** Each slot's blank CTC steps before its run, from its features' extras (collapseSlots: the first). */
export function slotGaps(ids: ArrayLike<number>, features: Float32Array, stride: number): Float32Array {
  return Float32Array.from(ids, (_, slot) => features[(slot + 1) * stride - 4]! * 8);
}

/** Each slot's peak probability, from its features' extras (collapseSlots: the one before the centre). */
export function slotPeaks(ids: ArrayLike<number>, features: Float32Array, stride: number): Float32Array {
  return Float32Array.from(ids, (_, slot) => features[(slot + 1) * stride - 2]!);
}

/**
 * A line of more slots than the projector takes (`max`, its position table: the bundle's largest slot count) in
 * parts of at most `max` slots each, cut at the spaces the recogniser read nearest the line's equal shares (a line
 * of 8-point type across an A4 page holds 130-140 characters; past the cap its text was never seen by the decoder,
 * which wrote words of its own there). Each part is the line's slots and evidence between two cuts, the space cut at
 * left out, in a box of its own stretch of the line (slot centres measured along it again), laid out as the rest
 * of the line on its row (gap above: one line up; indent: from the part before). A line within the cap is itself,
 * alone. `dictionary` gives each slot's character (its reading, `text`, where the line was read once).
 */
export function lineParts(u: LineUnit, max: number, dictionary: readonly string[]): LineUnit[] {
  const n = u.ids.length;
  if (n <= max || u.box.turn || max < 2) return [u];
  const chars = Array.from(u.text);
  // the evidence's characters are the slots' own where the line was read once; else (a crowded line read again,
  // vision/lines.ts CROWDED) each cut goes to the evidence's space nearest its share of the line
  const own = u.peaks === undefined && chars.length === n;
  const count = Math.ceil(n / max);
  // each cut: the part before it ends at `slot` (exclusive), the part after it starts past the space there (or at
  // `slot`, where the line has no space to cut at); `char` the same in the evidence's characters
  const cuts: { slot: number; char: number; space: boolean; charSpace: boolean }[] = [];
  let from = 0;
  for (let k = 1; k < count; k++) {
    const target = Math.round((k * n) / count);
    // a cut leaves at most `max` slots before it, and room for the parts after it
    const lo = Math.max(from + 1, n - (count - k) * max - 1),
      hi = Math.min(from + max, n - 1);
    let slot = Math.min(hi, Math.max(lo, target));
    let space = false;
    for (let d = 0; d <= hi - lo && !space; d++)
      for (const at of [target - d, target + d])
        if (at >= lo && at <= hi && dictionary[u.ids[at]!] === " ") {
          [slot, space] = [at, true];
          break;
        }
    let [char, charSpace] = [slot, space];
    if (!own) {
      const share = Math.round((slot / n) * chars.length);
      const after = cuts.length ? cuts.at(-1)!.char : -1;
      const spaces = chars.flatMap((c, i) => (c === " " && i > after ? [i] : []));
      [char, charSpace] = spaces.length
        ? [spaces.reduce((p, q) => (Math.abs(q - share) < Math.abs(p - share) ? q : p)), true]
        : [Math.max(after + 1, share), false];
    }
    cuts.push({ slot, char, space, charSpace });
    from = space ? slot + 1 : slot;
  }
  const stride = u.stride;
  const centre = (s: number) => u.features[(s + 1) * stride - 1]!;
  // where a cut falls along the line: the space's centre, or midway between the slots it parts
  const at = (c: { slot: number; space: boolean }) => (c.space ? centre(c.slot) : (centre(c.slot - 1) + centre(c.slot)) / 2);
  const width = u.box.xMax - u.box.xMin;
  const g = u.geometry;
  // (the geometry's height entry is the line's height in median line heights, less one: the line height)
  const h = u.box.yMax - u.box.yMin;
  const lineHeight = g[4]! > -1 ? h / (g[4]! + 1) : h;
  const clip = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const pageW = g[2]! > 0 ? u.box.xMax / g[2]! : 1;
  const parts: LineUnit[] = [];
  for (let k = 0; k <= cuts.length; k++) {
    const before = cuts[k - 1],
      after = cuts[k];
    // slots [a, b) and characters [ca, cb): past the cut before, up to the next
    const a = before ? before.slot + (before.space ? 1 : 0) : 0,
      b = after ? after.slot : n;
    const ca = before ? before.char + (before.charSpace ? 1 : 0) : 0,
      cb = after ? after.char : chars.length;
    // the part's stretch of the line: from the cut before it to the cut after it (the line's ends at its ends)
    const left = before ? at(before) : 0,
      right = after ? at(after) : 1;
    const span = Math.max(1e-6, right - left);
    const box: LineBox = { ...u.box, xMin: u.box.xMin + left * width, xMax: u.box.xMin + right * width };
    delete box.leader;
    if (!after && u.box.leader !== undefined) box.leader = u.box.leader;
    const features = u.features.slice(a * stride, b * stride);
    for (let s = 0; s < b - a; s++) features[(s + 1) * stride - 1] = (features[(s + 1) * stride - 1]! - left) / span;
    const geometry = Float32Array.from(g);
    geometry[0] = box.xMin / pageW;
    geometry[2] = box.xMax / pageW;
    if (k > 0) {
      geometry[5] = clip(-h / lineHeight, -4, 4);
      geometry[6] = clip((box.xMin - parts[k - 1]!.box.xMin) / lineHeight, -8, 8) / 4;
    }
    geometry[7] = Math.log(Math.max(1, (box.xMax - box.xMin) / Math.max(1, h))) / 4;
    const slice = <T extends Float32Array | Uint8Array>(v: T | undefined) => (v ? (v.slice(ca, cb) as T) : undefined);
    parts.push({
      box,
      geometry,
      ids: u.ids.slice(a, b),
      features,
      stride,
      text: chars.slice(ca, cb).join(""),
      ...(u.peaks ? { peaks: slice(u.peaks) } : {}),
      ...(u.gaps ? { gaps: slice(u.gaps) } : {}),
      ...(u.diacritics ? { diacritics: slice(u.diacritics), diacriticPeaks: slice(u.diacriticPeaks) } : {}),
      ...(u.heights ? { heights: slice(u.heights), depths: slice(u.depths) } : {}),
    });
  }
  return parts;
}

/**
 * Greedy CTC collapse of one line: each run of one non-blank class (`best`, with its probability `peak`) becomes
 * a slot carrying the mean recogniser feature over the run plus [blank steps before it/8, run length/8, peak
 * probability, centre / steps]; `centres` are the slots' centres in steps (the diacritics model's windows are cut there).
 */
export function collapseSlots(
  best: ArrayLike<number>,
  peak: ArrayLike<number>,
  features: Float32Array,
  steps: number,
  width: number,
  dictionary: readonly string[],
): { ids: Int32Array; features: Float32Array; text: string; centres: Float32Array } {
  const runs: [number, number][] = [];
  for (let t = 0; t < steps; t++) {
    if (best[t] === 0) continue;
    if (runs.length && runs.at(-1)![1] === t && best[t - 1] === best[t]) runs.at(-1)![1] = t + 1;
    else runs.push([t, t + 1]);
  }
  const stride = width + SLOT_EXTRA;
  const out = new Float32Array(runs.length * stride);
  const ids = new Int32Array(runs.length);
  const centres = new Float32Array(runs.length);
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
    centres[s] = (a + b) / 2;
    prevEnd = b;
  });
  return { ids, features: out, text, centres };
}

/** Ink darker than this (0–255 luminance) counts when looking for marks the detector missed. */
const INK = 160;
/** Mark clusters: glyphs this close (in cluster heights) join one mark; a mark is at most this wide (in line heights). */
const MARK_JOIN = 0.6;
const MARK_MAX_WIDTH = 6;

/**
 * Short marks in the page's top and bottom margins that the detector does not find — above all, a page number
 * of one digit, which PP-OCR's detector misses on its own. Ink components beyond the outermost detected lines
 * (away from the page's edges) are joined into marks of a few glyphs; a mark between a fifth of a line and
 * a line high and at most MARK_MAX_WIDTH lines wide is returned as a box grown like a detected one (unclip).
 * The caller keeps those the recogniser reads confidently.
 */
export function marginMarks(page: PagePixels, boxes: readonly LineBox[], unclip: number): LineBox[] {
  if (boxes.length === 0) return [];
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  const top = Math.min(...boxes.map((b) => b.yMin)),
    bottom = Math.max(...boxes.map((b) => b.yMax));
  const edge = Math.round(0.02 * Math.min(page.width, page.height));
  const marks: LineBox[] = [];
  for (const [y0, y1] of [
    [edge, Math.floor(top)],
    [Math.ceil(bottom), page.height - edge],
  ] as const) {
    if (y1 - y0 < 0.2 * line) continue;
    const groups = rowGroups(inkComponents(page, edge, page.width - edge, y0, y1), (m, c) => {
      const h = Math.max(m.yMax - m.yMin, c.yMax - c.yMin);
      const overlap = Math.min(m.yMax, c.yMax) - Math.max(m.yMin, c.yMin);
      return overlap >= 0.5 * Math.min(m.yMax - m.yMin, c.yMax - c.yMin) && c.xMin - m.xMax <= MARK_JOIN * h;
    });
    for (const { extent: g } of groups) {
      const w = g.xMax - g.xMin,
        h = g.yMax - g.yMin;
      if (h < 0.2 * line || h > line || w > MARK_MAX_WIDTH * line) continue;
      const d = (w * h * unclip) / (2 * (w + h));
      marks.push({
        xMin: Math.max(0, g.xMin - d),
        xMax: Math.min(page.width, g.xMax + d),
        yMin: Math.max(0, g.yMin - d),
        yMax: Math.min(page.height, g.yMax + d),
        score: 0,
      });
    }
  }
  return marks;
}

/** 8-connected components of ink in [x0, x1) × [y0, y1), at least 4 pixels each (specks of noise are not glyphs). */
function inkComponents(page: PagePixels, x0: number, x1: number, y0: number, y1: number): Extent[] {
  return darkRuns(page, x0, x1, y0, y1, INK)
    .filter((r) => r.pixels >= 4)
    .map(({ xMin, xMax, yMin, yMax }) => ({ xMin, xMax, yMin, yMax }));
}

/** A margin mark the recogniser read as a few confident symbols (see marginMarks). */
const MARK_MAX_SYMBOLS = 8;
const MARK_MIN_PEAK = 0.8;

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

/** The mean of some peak probabilities (0 for none). */
function meanOf(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return values.length ? sum / values.length : 0;
}

/** Crops read in one call, each padded to the widest: per crop its greedy text and, per symbol, the peak
 * probability of its run's first step. */
async function readTogether(
  crops: readonly LineCrop[],
  models: Pick<LineModels, "recognise">,
  cfg: LinesConfig,
  dictionary: readonly string[],
): Promise<{ text: string; peaks: number[] }[]> {
  const width = Math.ceil(Math.max(...crops.map((c) => c.width)) / 8) * 8;
  const { best, peak } = await models.recognise(recogniserBatch(crops, cfg.rec_height, width));
  const steps = best.dims[1]!;
  return crops.map((crop, j) => {
    const valid = Math.min(steps, Math.ceil((crop.width / width) * steps));
    const peaks: number[] = [];
    let text = "";
    for (let t = j * steps; t < j * steps + valid; t++) {
      const c = best.data[t]!;
      if (c === 0 || (t > j * steps && best.data[t - 1] === c)) continue;
      peaks.push(peak.data[t]!);
      text += dictionary[c] ?? "";
    }
    return { text, peaks };
  });
}

/** The margin marks the recogniser reads as 1–MARK_MAX_SYMBOLS symbols, each at least MARK_MIN_PEAK sure. */
async function confidentMarks(
  page: PagePixels,
  marks: LineBox[],
  models: LineModels,
  cfg: LinesConfig,
  dictionary: readonly string[],
): Promise<LineBox[]> {
  const kept: LineBox[] = [];
  for (const mark of marks) {
    const { text, peaks } = (
      await readTogether([recogniserCrop(page, mark, cfg.rec_height, cfg.rec_max_width)], models, cfg, dictionary)
    )[0]!;
    if (peaks.length >= 1 && peaks.length <= MARK_MAX_SYMBOLS && text.trim() && Math.min(...peaks) >= MARK_MIN_PEAK)
      kept.push({ ...mark, score: Math.min(...peaks) });
  }
  return kept;
}

/** A stray mark (strayMarks) is kept where the recogniser reads it as 1-STRAY_GLYPHS digits, each at least
 * STRAY_MIN_PEAK sure (a frame's corner, a plot's dot or a rule's end reads as punctuation or unsurely). Letters are
 * not taken: the two words of a framed listing's output that the dev set shows ("est", "t") read right, but as lines
 * of their own they moved that page's reading order (cd-autogobble-p2 +9 errors, an order test lost). */
const STRAY_MIN_PEAK = 0.9;
const STRAY_SYMBOLS = /^\p{N}+$/u;

/** The stray marks the recogniser reads surely as a few digits, read rec_batch at a time. */
async function sureStrayMarks(
  page: PagePixels,
  marks: readonly Extent[],
  models: LineModels,
  cfg: LinesConfig,
  dictionary: readonly string[],
): Promise<LineBox[]> {
  const kept: LineBox[] = [];
  for (let i = 0; i < marks.length; i += cfg.rec_batch) {
    const batch = marks.slice(i, i + cfg.rec_batch);
    const reads = await readTogether(
      batch.map((m) => recogniserCrop(page, m, cfg.rec_height, cfg.rec_max_width)),
      models,
      cfg,
      dictionary,
    );
    reads.forEach(({ text, peaks }, k) => {
      const sure = peaks.length ? Math.min(...peaks) : 0;
      const keep = peaks.length >= 1 && peaks.length <= STRAY_GLYPHS && STRAY_SYMBOLS.test(text) && sure >= STRAY_MIN_PEAK;
      if (keep) kept.push({ ...batch[k]!, score: sure });
    });
  }
  return kept;
}

/** A drop cap is set into its line where the recogniser reads it alone as one Latin or Cyrillic letter this sure
 * ("É" read "E" at 0.70 or "é" at 0.67; "O" read "0" at 0.60-0.90; no Greek: a formula's large "Π"), or as one
 * upright stroke ("I" read "1" at 0.49: alone it is "I", "l", "1" or "|"; its line, read with it, tells which). */
const DROP_CAP_PEAK = 0.5;
const DROP_CAP_SYMBOL = /^[\p{Script=Latin}\p{Script=Cyrillic}0]$/u;
const DROP_CAP_STROKE = /^[lI|!]$/;
/** Figures read this sure, each (a "1" surer than this is no "I"), are a number set large beside its text (a step's):
 * it is set a word space before the first line. */
const DROP_CAP_ONE = 0.9;
const DROP_CAP_FIGURES = /^\d{1,3}$/;

/**
 * The page and its boxes with each drop cap (vision/drop-caps.ts) the recogniser reads alone as a letter, an upright
 * stroke or figures (DROP_CAP_*) set again at the start of the line it begins, that line's box reaching over it (the
 * cap's own box, where the detector boxed it alone, left out); where there is none, as they were.
 * `ink`: the page's ink outside the boxes (or outside boxes that held them: the lines of pictures left out), where
 * it was traced.
 */
async function withDropCaps(
  page: PagePixels,
  boxes: LineBox[],
  models: LineModels,
  cfg: LinesConfig,
  dictionary: readonly string[],
  ink?: readonly DarkRun[],
): Promise<{ page: PagePixels; boxes: LineBox[] }> {
  const caps = dropCaps(page, boxes, ink ?? inkOutsideBoxes(page, boxes));
  if (!caps.length) return { page, boxes };
  const reads = await readTogether(
    caps.map(({ cap }) => {
      const alone = capAlone(page, cap);
      return recogniserCrop(alone, { xMin: 0, xMax: alone.width, yMin: 0, yMax: alone.height }, cfg.rec_height, cfg.rec_max_width);
    }),
    models,
    cfg,
    dictionary,
  );
  const out = [...boxes];
  const own = new Set<number>();
  let copied = false;
  caps.forEach((c, k) => {
    const { text, peaks } = reads[k]!;
    const letter = DROP_CAP_SYMBOL.test(text) && peaks[0]! >= DROP_CAP_PEAK;
    const figures = DROP_CAP_FIGURES.test(text) && Math.min(...peaks) >= DROP_CAP_ONE;
    if (!letter && !figures && !DROP_CAP_STROKE.test(text) && !(text === "1" && peaks[0]! < DROP_CAP_ONE)) return;
    const set = withDropCap(page, c.cap, out[c.line]!, copied, c.height, figures);
    if (!set) return;
    copied = true;
    page = set.page;
    out[c.line] = { ...out[c.line]!, ...set.box };
    if (c.own !== undefined) own.add(c.own);
  });
  return { page, boxes: own.size ? out.filter((_, k) => !own.has(k)) : out };
}

/** A vertical reading is taken when its mean peak probability is at least this… */
const VERTICAL_SURE = 0.8;
/** …it has at least this many Latin or Cyrillic letters or digits, and it is surer than the boxes read across. */
const VERTICAL_MIN_SYMBOLS = 3;
const UPRIGHT_SYMBOL = /[0-9\p{Script=Latin}\p{Script=Cyrillic}]/gu;
/** Upright glyphs stacked one above the other (one-figure table cells the detector ran together) read turned as
 * full-width forms or CJK: those readings are not taken. */
const FULL_WIDTH = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u;

/**
 * Whether the glyphs in `box` lie on their side: the median of its ink components' width over height is at least 1.
 * A line set vertically has its glyphs turned (their heights, alike, run across the box); one-figure table cells
 * the detector ran into one tall box stand upright, taller than wide, and read turned as a string of digits all
 * the same ("8100121001003111" down a small table's column).
 */
function lyingGlyphs(page: PagePixels, box: Extent): boolean {
  const { x0, x1, y0, y1 } = pixelRegion(page, box);
  const shapes = inkComponents(page, x0, x1, y0, y1).map((c) => (c.xMax - c.xMin) / (c.yMax - c.yMin));
  return shapes.length > 0 && median(shapes) >= 1;
}

/**
 * Which way a vertical line candidate reads upright (vision/vertical.ts), if either: it is read turned both ways,
 * and the surer way is taken where its glyphs lie on their side (lyingGlyphs) and it reads VERTICAL_MIN_SYMBOLS
 * Latin or Cyrillic letters or digits and no full-width form, at least VERTICAL_SURE sure, and surer than its boxes
 * read across (`across`, their mean peak).
 */
async function uprightTurn(
  page: PagePixels,
  box: Extent,
  across: number,
  models: LineModels,
  cfg: LinesConfig,
  dictionary: readonly string[],
): Promise<Turn | undefined> {
  if (!lyingGlyphs(page, box)) return undefined;
  const turns = ["ccw", "cw"] as const;
  const readings = await readTogether(
    turns.map((turn) => turnedCrop(page, box, turn, cfg.rec_height, cfg.rec_max_width)),
    models,
    cfg,
    dictionary,
  );
  let best: { turn: Turn; sure: number } | undefined;
  for (const [i, turn] of turns.entries()) {
    const { text, peaks } = readings[i]!;
    const sure = meanOf(peaks);
    if (FULL_WIDTH.test(text) || (text.match(UPRIGHT_SYMBOL)?.length ?? 0) < VERTICAL_MIN_SYMBOLS) continue;
    if (sure < VERTICAL_SURE || sure <= across) continue;
    if (!best || sure > best.sure) best = { turn, sure };
  }
  return best?.turn;
}

/** A vertical line's crop for the recogniser, turned upright (recogniserCrop of the turned region). */
function turnedCrop(page: PagePixels, box: Extent, turn: Turn, height: number, maxWidth: number, widen = 1) {
  const region = turnedRegion(page, box, turn);
  return recogniserCrop(region, { xMin: 0, xMax: region.width, yMin: 0, yMax: region.height }, height, maxWidth, widen);
}

/** The recogniser's crop of a line, turned upright where the line is vertical. */
function lineCrop(page: PagePixels, box: LineBox, height: number, maxWidth: number, widen = 1) {
  return box.turn ? turnedCrop(page, box, box.turn, height, maxWidth, widen) : recogniserCrop(page, box, height, maxWidth, widen);
}

/**
 * Detects, orders and recognises a page's text lines. Lines are grouped by width (rec_batch lines, each padded to
 * the group's widest) and each group is recognised in calls of at most rec_max_width columns (recogniserChunk):
 * a line's padding, and so its features, depend on its group only, never on how the group is split.
 */
/**
 * The page turned straight and its detected text lines, before marks and reading order: the boxes the layout stage
 * orders (scripts/train/extract-lines.mjs --boxes-only trains the learned order on exactly these). Where the
 * detector missed text at the page's scale, the page is detected again at a larger one, at most `again` (of the
 * pixels given: a page grown for its small text has no more detail than its own pixels, 1 / its growth).
 */
export async function detectedLines(
  page: PagePixels,
  models: Pick<LineModels, "detect">,
  cfg: LinesConfig,
  clock: (stage: string) => void = () => {},
  again = 1,
): Promise<{ page: PagePixels; found: LineBox[]; ink?: readonly DarkRun[] }> {
  // a page scanned askew is turned straight first: axis-aligned line crops of a skewed line hold its neighbours
  // too (boxes are then in the straightened page's pixels, which differ by the turn about the centre)
  page = deskewPage(page).page;
  clock("deskew");
  const det = detectorInput(page, cfg.det_limit);
  const map = await models.detect(det.input);
  const first = boxesFromMap(map, det.scaleX, det.scaleY, cfg, page.width, page.height);
  // (the ink outside the first pass's boxes is traced once, for small type missed and large)
  const ink = inkOutsideBoxes(page, first);
  const missed = await withMissedText(page, first, models, cfg, again, ink);
  const boxes = await withLargeText(page, missed, models, cfg, missed === first ? ink : undefined);
  // lines of two columns the detector joined (a narrow gutter, a page scanned askew) are cut where the pixels show the gutter
  const found = splitAtInkGutters(boxes, page);
  clock("detect");
  // (where no second look changed the boxes, the ink outside them is the first pass's: cutting a line at a gutter
  // uncovers no ink)
  return boxes === first ? { page, found, ink } : { page, found };
}

/** A page where the detector missed text at its scale (vision/missed-text.ts) is detected again at up to this many
 * times that scale, never past the page's own pixels… */
const MISSED_TEXT_GROWTH = 2;
/** …in strips of at most this many detector rows (the detector's working memory follows its input: a whole A4 page
 * at 150 DPI at its own pixels took ~220 MiB more than at the first pass's scale), overlapping by this many line
 * heights. */
const STRIP_ROWS = 512;
const STRIP_OVERLAP = 4;

/**
 * `boxes`, or where they leave glyphs of text outside them, the page's boxes detected again at a larger scale:
 * small type (8 points at 150 DPI, 10 points on a scan at 300) is 4-5 detector pixels high at the first pass's, and
 * the detector loses stretches of its lines and boxes the rest loosely (the recogniser's crops of them hold more
 * margin than letter). The page goes through the detector in strips overlapping by STRIP_OVERLAP line heights; a
 * strip keeps the boxes whose middle lies in its share (from the middle of one overlap to the next's), so a line cut
 * at a strip's edge is taken whole from its neighbour. `most`: the largest scale (1, a page's own pixels; a grown
 * page's, 1 / its growth). A page the detector already saw at that scale or near it is left as it is. `ink`: the
 * page's ink outside `boxes` (missed-text.ts inkOutsideBoxes), where it was traced.
 */
export async function withMissedText(
  page: PagePixels,
  boxes: LineBox[],
  models: Pick<LineModels, "detect">,
  cfg: LinesConfig,
  most = 1,
  ink?: readonly DarkRun[],
): Promise<LineBox[]> {
  const scale = detectorScale(page, cfg.det_limit);
  const again = Math.min(most, MISSED_TEXT_GROWTH * scale);
  if (again < 1.25 * scale || missedText(page, boxes, ink).length === 0) return boxes;
  const line = median(boxes.map((b) => b.yMax - b.yMin));
  const overlap = Math.ceil(STRIP_OVERLAP * line);
  const rows = Math.max(Math.floor(STRIP_ROWS / again), 3 * overlap);
  // strips of one height (the detector's arena is sized by the largest input it has seen), spread evenly
  const height = Math.min(rows, page.height);
  const strips = height >= page.height ? 1 : Math.ceil((page.height - overlap) / (height - overlap));
  const step = strips > 1 ? (page.height - height) / (strips - 1) : 0;
  const found: LineBox[] = [];
  for (let k = 0; k < strips; k++) {
    const y0 = Math.round(k * step),
      y1 = y0 + height;
    // (each strip's share runs to the middle of its overlap with the next: the strips' shares tile the page)
    const from = k === 0 ? 0 : (y0 + Math.round((k - 1) * step) + height) / 2,
      to = k === strips - 1 ? page.height : (Math.round((k + 1) * step) + y1) / 2;
    for (const b of await stripBoxes(page, y0, y1, again, models, cfg)) {
      const middle = (b.yMin + b.yMax) / 2;
      if (middle >= from && middle < to) found.push(b);
    }
  }
  // (a second pass that finds nothing is no better reading of the page than the first)
  return found.length ? found : boxes;
}

/** A strip round a run of missed large type reaches this many of its heights above and below it. */
const LARGE_STRIP_MARGIN = 0.5;
/** A box of the page's lies this much of its area or more inside one a strip found: the strip's box replaces it. */
const REPLACED = 0.5;

/**
 * `boxes` with the large type the detector missed (missedLargeText) boxed again: each run's strip of the page (the
 * page's width, the run's rows and LARGE_STRIP_MARGIN of its height about them) goes through the detector alone, at
 * the page's scale, and its boxes that reach into the run are taken, in place of the page's boxes that lie mostly
 * inside them (the headline's one word the first pass found, a speck). `ink` as withMissedText's.
 */
export async function withLargeText(
  page: PagePixels,
  boxes: LineBox[],
  models: Pick<LineModels, "detect">,
  cfg: LinesConfig,
  ink?: readonly DarkRun[],
): Promise<LineBox[]> {
  const runs = missedLargeText(page, boxes, ink);
  if (!runs.length) return boxes;
  const scale = detectorScale(page, cfg.det_limit);
  const taken: LineBox[] = [];
  for (const run of runs) {
    const margin = LARGE_STRIP_MARGIN * (run.yMax - run.yMin);
    const y0 = Math.max(0, Math.floor(run.yMin - margin)),
      y1 = Math.min(page.height, Math.ceil(run.yMax + margin));
    for (const box of await stripBoxes(page, y0, y1, scale, models, cfg))
      if (overlapArea(box, run) > 0 && !taken.some((t) => overlapArea(t, box) > 0)) taken.push(box);
  }
  if (!taken.length) return boxes;
  const area = (b: Extent) => (b.xMax - b.xMin) * (b.yMax - b.yMin);
  const kept = boxes.filter((b) => !taken.some((t) => overlapArea(t, b) >= REPLACED * area(b)));
  return [...kept, ...taken];
}

/** The boxes the detector finds in rows [y0, y1) of the page (its width) seen at `scale`, in the page's pixels. */
async function stripBoxes(
  page: PagePixels,
  y0: number,
  y1: number,
  scale: number,
  models: Pick<LineModels, "detect">,
  cfg: LinesConfig,
): Promise<LineBox[]> {
  const strip: PagePixels = { ...page, height: y1 - y0, data: page.data.subarray(y0 * page.width * 3, y1 * page.width * 3) };
  const det = detectorInput(strip, Math.round(scale * Math.max(strip.width, strip.height)));
  const map = await models.detect(det.input);
  return boxesFromMap(map, det.scaleX, det.scaleY, cfg, strip.width, strip.height).map((b) => ({
    ...b,
    yMin: b.yMin + y0,
    yMax: b.yMax + y0,
  }));
}

/** A page's text lines for the decoder, and the pictures found on it (whose lines are left out). */
export interface PageUnits {
  units: LineUnit[];
  /** screenshots, photographs, filled charts (vision/pictures.ts), in the deskewed page's pixels */
  pictures: Extent[];
  /** display formulas read to LaTeX (their members index `units`), where the bundle has a formula reader */
  formulas: PageFormula[];
  /** the page's horizontal rules (layout/rules.ts): they make a ruled table's rows */
  rules: Extent[];
}

export async function pageUnits(
  input: PagePixels,
  models: LineModels,
  cfg: LinesConfig,
  dictionary: readonly string[],
  timings?: Record<string, number>,
): Promise<PageUnits> {
  const clock = stageClock(timings);
  // link frames (hyperref's coloured boxes round references) would be read as brackets and letters
  input = withoutLinkBorders(input).page;
  // and so would the frames round a form's answer letters and its checkboxes
  input = withoutGlyphFrames(input).page;
  clock("links");
  let detected = await detectedLines(input, models, cfg, clock);
  // text set very small for the page's pixels (a table cut from an article at screen resolution: 9–12 px lines) is
  // read on the page grown twice over: the recogniser reads such lines far better from a grown page ("Varlable",
  // "Midde", lost decimal points) than from its own crop grown five times in one step; boxes come back in the
  // page's own pixels
  const grow = growthFor(detected.found, input);
  // (grown, it is detected again where text is missed at no more than its own pixels' scale)
  if (grow > 1) detected = await detectedLines(await grownPage(input, grow), models, cfg, clock, 1 / grow);
  let page = detected.page;
  // a picture's text (a toolbar's labels, a plot's ticks) is not the document's: its lines are not read
  const pictures = pictureRegions(page, detected.found);
  let inText = pictures.length ? detected.found.filter((b) => !insidePicture(b, pictures)) : detected.found;
  // a paragraph's drop cap, which the detector leaves out, is set again at the start of its first line
  ({ page, boxes: inText } = await withDropCaps(page, inText, models, cfg, dictionary, detected.ink));
  // a table of contents' dot leaders, which the detector does not box: found right of their lines, written after their
  // text (decode.ts), and in the reading order a line whose leader runs up to the next box on its row (its page
  // number) reaches over it, one row (not to the margin: a worksheet's blanks would join its columns)
  const leaders = leaderDots(page, inText);
  const found: LineBox[] = inText.map((b, k) => (leaders[k]!.dots ? { ...b, leader: leaders[k]!.dots } : b));
  // lone figures among the lines the detector does not box (a table's row numbers, a plot's tick): read as lines
  // where the recogniser is sure of them, in the reading order with the rest
  clock("layout");
  found.push(...(await sureStrayMarks(page, strayMarks(page, found, pictures, cfg.det_unclip), models, cfg, dictionary)));
  clock("marks");
  const reach = found.map((b, k) => (leaders[k]?.to ? { ...b, xMax: Math.max(b.xMax, leaders[k]!.to!.xMin) } : b));
  const reached = new Map(reach.map((r, k) => [r, found[k]!] as const));
  clock("layout");
  // marks lie above or below every detected line: they are read first or last, left to right, and do not take part
  // in the XY-cut (a small box there would change the page's median line height and its cuts)
  const marks = (await confidentMarks(page, marginMarks(page, found, cfg.det_unclip), models, cfg, dictionary))
    .filter((m) => !insidePicture(m, pictures))
    .sort((p, q) => p.xMin - q.xMin);
  clock("marks");
  const top = found.length ? Math.min(...found.map((b) => b.yMin)) : 0;
  // (rules drawn across the page: a gutter they cross between rows is a ruled table's, read row by row)
  // (and rectangles of flat colour holding text: each one's lines are read together)
  const frame = {
    width: page.width,
    height: page.height,
    rules: horizontalRules(page, found),
    pictures,
    panels: panelRegions(page, found),
  };
  let boxes = [
    ...marks.filter((m) => m.yMax <= top),
    ...(models.order ? models.order(reach, frame) : orderLines(reach, frame)).map((b) => reached.get(b) ?? b),
    ...marks.filter((m) => m.yMax > top),
  ];
  let geometry = pageGeometry(boxes, page.width, page.height);
  clock("layout");
  let crops = boxes.map((b) => recogniserCrop(page, b, cfg.rec_height, cfg.rec_max_width));
  clock("crops");
  let units: LineUnit[] = new Array(boxes.length);
  // each slot's centre in its crop's columns (the diacritics model's windows)
  let slotColumns: Float32Array[] = new Array(boxes.length);
  // each line's CTC steps in its first reading
  let firstSteps = new Float32Array(boxes.length);
  // characters the recogniser read per CTC step of each line
  let density = new Float32Array(boxes.length);
  // and its mean peak probability
  let meanPeak = new Float32Array(boxes.length);
  // (`again`: the lines' second reading, widened: only their evidence is taken)
  const read = async (lines: number[], again = false) => {
    const order = [...lines].sort((a, b) => crops[a]!.width - crops[b]!.width);
    for (let i = 0; i < order.length; i += cfg.rec_batch) {
      const group = order.slice(i, i + cfg.rec_batch);
      const width = Math.ceil(Math.max(...group.map((k) => crops[k]!.width)) / 8) * 8;
      const chunk = recogniserChunk(width, cfg);
      for (let c = 0; c < group.length; c += chunk) {
        const batch = group.slice(c, c + chunk);
        const input = recogniserBatch(
          batch.map((k) => crops[k]!),
          cfg.rec_height,
          width,
        );
        clock("crops");
        const { best, peak, features } = await models.recognise(input);
        const steps = best.dims[1]!,
          fw = features.dims[2]!;
        batch.forEach((k, j) => {
          // steps that only saw padding are dropped
          const valid = Math.min(steps, Math.ceil((crops[k]!.width / width) * steps));
          const slots = collapseSlots(
            best.data.subarray(j * steps),
            peak.data.subarray(j * steps),
            features.data.subarray(j * steps * fw),
            valid,
            fw,
            dictionary,
          );
          const { centres, ...unit } = slots;
          const stride = fw + SLOT_EXTRA;
          const peaks = slotPeaks(unit.ids, unit.features, stride);
          const sureness = meanOf(peaks);
          // (the second reading is taken where the recogniser is surer of it)
          if (again && sureness < meanPeak[k]!) return;
          // (a gap in the widened reading's steps is a gap of the first's: the crop was widened `steps / first` times)
          if (again) {
            const gaps = slotGaps(unit.ids, unit.features, stride).map((g) => (g * firstSteps[k]!) / valid);
            units[k] = { ...units[k]!, text: unit.text, peaks, gaps };
          } else {
            units[k] = { box: boxes[k]!, geometry: geometry[k]!, ...unit, stride };
            firstSteps[k] = valid;
          }
          slotColumns[k] = centres.map((c) => (c * width) / steps);
          density[k] = valid >= CROWDED_STEPS ? centres.length / valid : 0;
          meanPeak[k] = sureness;
        });
        clock("recognise");
      }
    }
  };
  await read(crops.map((_, k) => k));
  // a line set vertically, which the detector found as one tall box or a stack of glyph boxes and the recogniser
  // read across unsure (mean peak under UNSURE: a column of one-figure table cells reads sure, 0.97, and stays; the
  // turned glyphs of a form's document number 0.68), is read upright where it reads so (uprightTurn): one line in
  // place of its boxes, at the first one's place in the reading order, laid out for the decoder as it would lie
  // upright (readingBox)
  const drop = new Set<number>();
  for (const { members } of verticalCandidates(found)) {
    const at = members.map((m) => boxes.indexOf(found[m]!));
    if (at.some((k) => k < 0)) continue;
    const peaks = at.flatMap((k) => Array.from(slotPeaks(units[k]!.ids, units[k]!.features, units[k]!.stride)));
    const across = meanOf(peaks);
    if (across >= UNSURE) continue;
    const box = extentOf(at, boxes);
    const turn = await uprightTurn(page, box, across, models, cfg, dictionary);
    if (!turn) continue;
    const k = Math.min(...at);
    boxes[k] = { ...box, score: Math.max(...at.map((j) => boxes[j]!.score)), turn };
    crops[k] = lineCrop(page, boxes[k]!, cfg.rec_height, cfg.rec_max_width);
    for (const j of at) if (j !== k) drop.add(j);
    await read([k]);
  }
  // a box the recogniser read nothing in that reaches into a box on each side of it on its row holds only their
  // glyphs' edges: the detector's box over the wide space between a heading's number and its title, where the
  // decoder wrote a brace ("10.3.1 { Вырезать")
  for (const k of gapBoxes(boxes, units)) drop.add(k);
  // and a box over flat ground holds nothing (whatever the recogniser guessed there)
  crops.forEach((c, k) => flatCrop(c) && drop.add(k));
  if (drop.size) {
    const keep = <T>(_: T, k: number) => !drop.has(k);
    [boxes, crops, units, slotColumns] = [boxes.filter(keep), crops.filter(keep), units.filter(keep), slotColumns.filter(keep)];
    [firstSteps, density, meanPeak] = [firstSteps.filter(keep), density.filter(keep), meanPeak.filter(keep)];
  }
  if (boxes.some((b) => b.turn)) {
    geometry = pageGeometry(
      boxes.map((b) => (b.turn ? readingBox(b, page) : b)),
      page.width,
      page.height,
    );
    units = units.map((u, k) => ({ ...u, box: boxes[k]!, geometry: geometry[k]! }));
  }
  clock("vertical");
  // a crowded line (a narrow face, dense type) is read again widened: its CTC steps were too few for its letters,
  // and the recogniser dropped some ("volme", "artile" for "volume", "article"); the second reading is the line's
  // evidence (text, peaks, diacritics), its first stays the decoder's input (widened slots look like larger type
  // to the decoder, which then writes body lines as headings)
  const crowded = crops.map((_, k) => k).filter((k) => density[k]! > CROWDED || (density[k]! > CROWDED_UNSURE && meanPeak[k]! < UNSURE));
  const firstCrops = new Map(crowded.map((k) => [k, crops[k]!]));
  if (crowded.length) {
    for (const k of crowded)
      crops[k] = lineCrop(page, boxes[k]!, cfg.rec_height, cfg.rec_max_width, Math.min(MAX_WIDEN, density[k]! / SPREAD));
    await read(crowded, true);
    // (a first reading kept keeps its crop, which its slot columns index)
    for (const k of crowded) if (units[k]!.peaks === undefined) crops[k] = firstCrops.get(k)!;
  }
  // (the glyphs' marks and heights are measured on ink dark on paper, whatever the line's colours)
  const inked = crops.map(inkCrop);
  if (models.diacritics) {
    await readDiacritics(units, inked, slotColumns, models.diacritics, cfg.rec_height);
    clock("diacritics");
  }
  caseBySize(units, inked, slotColumns);
  smallCaps(units, inked, slotColumns);
  slotHeights(units, inked, slotColumns);
  const formulas = models.formula
    ? await readPageFormulas(
        page,
        boxes,
        units.map((u) => u.text),
        models.formula,
      )
    : [];
  if (models.formula) clock("formulas");
  if (grow === 1) return { units, pictures, formulas, rules: [...frame.rules] };
  const back = <B extends Extent>(b: B): B => ({
    ...b,
    xMin: b.xMin / grow,
    xMax: b.xMax / grow,
    yMin: b.yMin / grow,
    yMax: b.yMax / grow,
  });
  return {
    units: units.map((u) => ({ ...u, box: back(u.box) })),
    pictures: pictures.map(back),
    formulas: formulas.map((f) => ({ ...f, box: back(f.box) })),
    rules: frame.rules.map(back),
  };
}

/** A box this share of a line box's height or nearer beside it touches it. */
const TOUCHING = 0.25;

/** The boxes the recogniser read nothing in that overlap a box of their row on each side: at their left edge one
 * that starts before them, at their right edge one that ends after them, one nearer than TOUCHING of their height
 * counting (rows: a vertical overlap of half the lower box). */
export function gapBoxes(boxes: readonly Extent[], units: readonly { text: string }[]): number[] {
  const row = (a: Extent, b: Extent) =>
    Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin) >= 0.5 * Math.min(a.yMax - a.yMin, b.yMax - b.yMin);
  return boxes.flatMap((b, k) => {
    if (units[k]?.text.trim() !== "") return [];
    const beside = boxes.filter((o, j) => j !== k && row(o, b) && units[j]?.text.trim());
    const touch = TOUCHING * (b.yMax - b.yMin);
    const left = beside.some((o) => o.xMin < b.xMin && o.xMax >= b.xMin - touch && o.xMax < b.xMax);
    const right = beside.some((o) => o.xMax > b.xMax && o.xMin <= b.xMax + touch && o.xMin > b.xMin);
    return left && right ? [k] : [];
  });
}

/**
 * A line of at least CROWDED_STEPS recogniser steps that read more than CROWDED characters a step is read again
 * with its crop widened to about SPREAD characters a step (at most MAX_WIDEN times). Dev pages' lines read
 * 0.51-0.57 characters a step on average; those of a dense ACM page 0.64-0.74, where the recogniser drops
 * letters, and reads them widened 1.3 times. A line crowded so far that it dropped a third of its letters reads
 * fewer a step, but unsure ("procedings (f a conference, symosium, workhp frexam", mean peak 0.81): the second
 * rule. The second reading is taken where its mean peak is the higher. Dev bench: -41 errors (the first rule)
 * and -102 (the second), for ~160 ms of recogniser a page.
 */
const CROWDED = 0.62;
/** …and so is one of more than CROWDED_UNSURE characters a step whose mean peak probability is under UNSURE. */
const CROWDED_UNSURE = 0.5;
const UNSURE = 0.9;
const CROWDED_STEPS = 16;
const SPREAD = 0.5;
const MAX_WIDEN = 1.6;

/** A page whose detected lines are this low or less (median, pixels) is read grown by SMALL_TEXT_GROWTH… */
const SMALL_TEXT = 20;
const SMALL_TEXT_GROWTH = 2;
/** …when it holds at most this many pixels (a small image: a crop, a screenshot, a low-resolution scan). */
const SMALL_TEXT_PIXELS = 4_000_000;

/** How many times over a page is read: SMALL_TEXT_GROWTH where its text is very small, else 1. */
export function growthFor(found: readonly Extent[], page: { width: number; height: number }): number {
  if (found.length < 2 || page.width * page.height > SMALL_TEXT_PIXELS) return 1;
  return median(found.map((b) => b.yMax - b.yMin)) <= SMALL_TEXT ? SMALL_TEXT_GROWTH : 1;
}

/**
 * The page grown `factor` times by libvips (sharp) with Mitchell's filter, smooth where it enlarges: grown with our
 * bicubic resampler instead, the dev set's small pages read worse (a form 196 -> 329 errors, a table 65 -> 95).
 */
async function grownPage(page: PagePixels, factor: number): Promise<PagePixels> {
  const sharp = await loadSharp();
  const width = Math.round(page.width * factor),
    height = Math.round(page.height * factor);
  const data = await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
    .resize(width, height, { kernel: "mitchell", fit: "fill" })
    .raw()
    .toBuffer();
  return { ...page, width, height, data };
}

/**
 * Stage timer of a page: each call adds the milliseconds since the previous call (or since the clock was made) to
 * `timings[stage]`. Without a record it does nothing.
 */
export function stageClock(timings?: Record<string, number>): (stage: string) => void {
  if (!timings) return () => {};
  let last = performance.now();
  return (stage) => {
    const now = performance.now();
    timings[stage] = (timings[stage] ?? 0) + (now - last);
    last = now;
  };
}
