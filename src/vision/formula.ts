// The formula reader of a line-unit bundle (model.json vision.lines.formula, trained by python/ocr_tools/formula/train.py):
// a display formula's region of the page, cut to its ink at the scale the reader was trained at (a body line
// `line_pitch` pixels apart), read to LaTeX by greedy decoding. Its first step says whether the region is a formula
// at all: prose gets the <text> token.
import { appendFileSync } from "node:fs";
import { formulaRegions } from "../layout/formulas.js";
import { linePitch } from "../layout/page.js";
import { median, type Extent } from "../layout/xycut.js";
import { insideBundle } from "../model/schema.js";
import type { PagePixels } from "./preprocess.js";
import { resizeBicubic } from "./resample.js";
import type { Tensor } from "./lines.js";

/** formula.json of a bundle (written by python/ocr_tools/formula/export.py). */
export interface FormulaConfig {
  encoder: string;
  decoder: string;
  /** input rows: regions are scaled so a body line is `line_pitch` px apart, then shrunk to fit and padded to this */
  height: number;
  max_width: number;
  max_tokens: number;
  line_pitch: number;
  vocab: string[];
  bos: number;
  eos: number;
  pad: number;
  text: number;
}

/** Checks a parsed formula.json; throws naming the file and the field. */
export function parseFormulaConfig(json: unknown, file: string): FormulaConfig {
  const o = json as Record<string, unknown>;
  const fail = (what: string) => {
    throw new Error(`${file}: ${what}`);
  };
  if (!o || typeof o !== "object") fail("expected an object");
  for (const k of ["encoder", "decoder"]) if (typeof o[k] !== "string") fail(`${k}: expected a file name`);
  for (const k of ["encoder", "decoder"]) if (!insideBundle(o[k] as string)) fail(`${k}: file names must stay inside the bundle folder`);
  for (const k of ["height", "max_width", "max_tokens", "line_pitch"])
    if (!Number.isSafeInteger(o[k]) || (o[k] as number) < 1) fail(`${k}: expected a positive integer`);
  if (!Array.isArray(o.vocab) || !o.vocab.every((t) => typeof t === "string")) fail("vocab: expected a list of tokens");
  const n = (o.vocab as string[]).length;
  for (const k of ["bos", "eos", "pad", "text"])
    if (!Number.isSafeInteger(o[k]) || (o[k] as number) < 0 || (o[k] as number) >= n) fail(`${k}: expected a token index below ${n}`);
  return o as unknown as FormulaConfig;
}

/** The two halves of the reader: pixels → memory, then memory and tokens so far → the next token's log-probabilities. */
export interface FormulaModels {
  encode(pixels: Tensor): Promise<Tensor>;
  step(memory: Tensor, tokens: BigInt64Array): Promise<Float32Array>;
}

export interface FormulaReading {
  /** the LaTeX, "" when the region reads as prose */
  latex: string;
  /** probability that the region is a formula (1 − P(<text>) at the first step) */
  math: number;
  /** mean log-probability of the tokens written (EOS included) */
  confidence: number;
}

/** Body lines' pitch over their detected (dilated) height, for a page too sparse to measure its pitch: 31 / 33 and
 * 38.5 / 32 px on two 150-DPI dev pages (a LaTeX manual, a code listing). */
export const PITCH_PER_HEIGHT = 1.1;

/** Paper in a grey byte above this is blank (the trainer cut its samples to ink the same way). */
const INK = 160;

/**
 * The region cut from the page as the reader reads it: scaled by line_pitch / pitch, trimmed to its ink (with a
 * two-pixel margin), shrunk to fit `height` rows if taller, padded to `height` rows centred and to a multiple of 8
 * columns; ink 1, paper 0, [1, 1, height, width]. Undefined when the region holds no ink.
 */
export function formulaInput(
  page: PagePixels,
  box: Extent,
  pitch: number,
  cfg: Pick<FormulaConfig, "height" | "max_width" | "line_pitch">,
): Tensor | undefined {
  const x0 = Math.max(0, Math.floor(box.xMin)),
    x1 = Math.min(page.width, Math.ceil(box.xMax));
  const y0 = Math.max(0, Math.floor(box.yMin)),
    y1 = Math.min(page.height, Math.ceil(box.yMax));
  if (x1 - x0 < 2 || y1 - y0 < 2) return undefined;
  // the ink's bounds inside the box
  let top = Infinity,
    bottom = -1,
    left = Infinity,
    right = -1;
  for (let y = y0; y < y1; y++) {
    const row = y * page.width * 3;
    for (let x = x0; x < x1; x++) {
      const i = row + x * 3;
      const grey = (page.data[i]! + page.data[i + 1]! + page.data[i + 2]!) / 3;
      if (grey < INK) {
        if (y < top) top = y;
        if (y > bottom) bottom = y;
        if (x < left) left = x;
        if (x > right) right = x;
      }
    }
  }
  if (bottom < 0) return undefined;
  const scale = cfg.line_pitch / pitch;
  const margin = Math.max(1, Math.round(2 / scale));
  const cx0 = Math.max(0, left - margin),
    cx1 = Math.min(page.width, right + 1 + margin);
  const cy0 = Math.max(0, top - margin),
    cy1 = Math.min(page.height, bottom + 1 + margin);
  const cw = cx1 - cx0,
    ch = cy1 - cy0;
  let s = scale;
  if (ch * s > cfg.height) s = cfg.height / ch;
  if (cw * s > cfg.max_width) s = cfg.max_width / cw;
  const w = Math.max(8, Math.round(cw * s)),
    h = Math.max(1, Math.min(cfg.height, Math.round(ch * s)));
  const crop = new Uint8Array(cw * ch * 3);
  for (let y = 0; y < ch; y++)
    crop.set(page.data.subarray(((cy0 + y) * page.width + cx0) * 3, ((cy0 + y) * page.width + cx1) * 3), y * cw * 3);
  const px = resizeBicubic(crop, cw, ch, w, h);
  const width = Math.ceil(w / 8) * 8;
  const data = new Float32Array(cfg.height * width);
  const off = Math.floor((cfg.height - h) / 2);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      data[(off + y) * width + x] = 1 - (px[i]! + px[i + 1]! + px[i + 2]!) / 765;
    }
  return { data, dims: [1, 1, cfg.height, width] };
}

/** Tokens back to LaTeX: a space only where a control word meets a letter (as python/ocr_tools/formula/vocab.py). */
export function formulaLatex(tokens: readonly string[]): string {
  let s = "";
  for (const t of tokens) {
    if (s && /\\[a-zA-Z]+$/.test(s) && /^[a-zA-Z]/.test(t)) s += " ";
    s += t;
  }
  return s;
}

/** Reads one region: greedy decoding to EOS or max_tokens; prose (the first token <text>) reads as "". */
export async function readFormula(models: FormulaModels, input: Tensor, cfg: FormulaConfig): Promise<FormulaReading> {
  const memory = await models.encode(input);
  const tokens: number[] = [cfg.bos];
  let sum = 0;
  let math = 0;
  for (let step = 0; step < cfg.max_tokens; step++) {
    const logp = await models.step(memory, BigInt64Array.from(tokens, BigInt));
    let best = 0;
    for (let i = 1; i < logp.length; i++) if (logp[i]! > logp[best]!) best = i;
    if (step === 0) {
      math = 1 - Math.exp(logp[cfg.text]!);
      if (best === cfg.text) return { latex: "", math, confidence: logp[best]! };
    }
    sum += logp[best]!;
    if (best === cfg.eos) break;
    tokens.push(best);
  }
  const written = tokens.slice(1).map((t) => cfg.vocab[t]!);
  return { latex: formulaLatex(written), math, confidence: sum / tokens.length };
}

/** A display formula read on a page: the lines it replaces, its equation number, its LaTeX. */
export interface PageFormula {
  /** indices of the page's lines (in reading order) the formula was detected as */
  members: number[];
  /** the line of its equation number and the number ("7" of "(7)") */
  tag?: { line: number; number: string };
  box: Extent;
  latex: string;
  math: number;
  confidence: number;
  /** false when the LaTeX is too unsure to write (confidence below FORMULA_MIN_CONFIDENCE): the lines' text is written */
  sure: boolean;
}

/** The LaTeX is written when its tokens' mean log-probability is at least this (set on the synthetic held-out samples:
 * see models/default/README.md). */
export const FORMULA_MIN_CONFIDENCE = -0.35;

/** Where OCR_FORMULA_TRACE names a file, every candidate region and its reading as JSON Lines (for tuning the gates). */
const TRACE = process.env.OCR_FORMULA_TRACE;

/**
 * The display formulas among a page's lines (`texts`: the recogniser's readings): the candidate regions of
 * layout/formulas.ts, each read unless it reads as prose.
 */
export async function readPageFormulas(
  page: PagePixels,
  boxes: readonly Extent[],
  texts: readonly string[],
  reader: { models: FormulaModels; cfg: FormulaConfig },
): Promise<PageFormula[]> {
  const regions = formulaRegions(boxes, texts);
  if (!regions.length) return [];
  const h = median(boxes.map((b) => b.yMax - b.yMin)) || 10;
  // a page of one formula has no line pitch
  const pitch = linePitch(boxes) || PITCH_PER_HEIGHT * h;
  const out: PageFormula[] = [];
  for (const r of regions) {
    const input = formulaInput(page, r.box, pitch, reader.cfg);
    if (!input) continue;
    const read = await readFormula(reader.models, input, reader.cfg);
    if (TRACE)
      appendFileSync(
        TRACE,
        JSON.stringify({ box: r.box, members: r.members.map((k) => texts[k]), pitch, width: input.dims[3], ...read }) + "\n",
      );
    // prose (its first token <text>) is left as it was read; P(<text>) above ½ makes <text> the first token
    if (!read.latex) continue;
    out.push({ ...r, ...read, sure: read.confidence >= FORMULA_MIN_CONFIDENCE });
  }
  return out;
}
