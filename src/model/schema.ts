// The model.json schema (format "ocr-model/1", docs/bundle.md) as types plus a validator that names every bad field.
import type { NativeDecoderConfig } from "../native/binding.js";
import { ModelFileError } from "./errors.js";

export const BUNDLE_FORMAT = "ocr-model/1";

export type ModelFamily = "deepseek-ocr" | "unlimited-ocr";

/**
 * HF DeepSeek-V2 decoder settings with every default explicit: the numbers the native decoder reads
 * (NativeDecoderConfig, declared once at the binding) and what only the loader and the reference use.
 */
export interface DecoderConfig extends NativeDecoderConfig {
  scoring_func: "softmax";
  topk_method: "greedy";
  max_position_embeddings: number;
  /** safetensors files or one `*.index.json`, relative to the bundle folder */
  weights: string[];
  /** set by `ocr models quantize`: the block format of the decoder matrices (the weights' metadata names each one) */
  quantization?: "q8_0" | "q4_1";
}

export type ResizeKind = "pad" | "stretch";

/** Tiles cut from a page larger than one tile (Gundam): grid by aspect ratio, each tile `size`. */
export interface TileSpec {
  size: [number, number];
  grid: [number, number];
  resize: "stretch";
  min_tiles: number;
  max_tiles: number;
}

/** One named preprocessing mode: the global view, and optionally tiles. `grid` is [rows, cols] of embeddings. */
export interface ModeSpec {
  size: [number, number];
  resize: ResizeKind;
  grid: [number, number];
  /** where a padded page sits: "center" (default; the DeepSeek-OCR reference) or "top-left" (no resize when it fits) */
  anchor?: "center" | "top-left";
  tiles?: TileSpec;
}

export interface VisionConfig {
  encoder: string;
  /** the mode a page read on its own gets (Gundam for the DeepSeek-OCR family, as the reference reads one page) */
  mode: string;
  /** the mode of pages that share a multi-page pass: one untiled view each (the reference never tiles there);
   *  absent: `mode` when it has no tiles, else "base" */
  document_mode?: string;
  modes: Record<string, ModeSpec>;
  mean: [number, number, number];
  std: [number, number, number];
  pad_color: [number, number, number];
  row_newline: boolean;
  view_separator: boolean;
  /** line-unit mode (our default model): pretrained detector + recogniser, `encoder` projects a line's slots */
  lines?: LinesConfig;
}

/**
 * The line-unit vision mode: `detector` (DB probability map) and `recogniser` (CTC posteriors + features) are
 * ONNX files in the bundle, `dictionary` the recogniser's classes; each line becomes one view of `slots` tokens.
 */
export interface LinesConfig {
  detector: string;
  recogniser: string;
  dictionary: string;
  /** the detector sees the page with its longer side at most this many pixels */
  det_limit: number;
  det_threshold: number;
  det_box_threshold: number;
  det_unclip: number;
  det_min_size: number;
  rec_height: number;
  rec_max_width: number;
  rec_batch: number;
  /** slot counts a line is padded to (the smallest that holds it); longer lines are split */
  slots: number[];
  /** the page is rendered at this resolution for the mode */
  dpi: number;
  /** cap the decoder's runs of an ASCII letter at the longest run the recogniser read in the line (src/engines/model/letter-runs.ts) */
  letter_runs?: boolean;
  /** merge each line's Markdown with the recogniser's sure characters (src/engines/model/faithful.ts) */
  faithful?: boolean;
  /** with `faithful`: the decoder never writes letters of a script the line does not use (faithful.ts bannedScript) */
  script_bans?: boolean;
  /** the learned reading order of the detected lines (src/layout/learned.ts), a file in the bundle */
  layout?: string;
  /** the diacritics model (src/vision/diacritics.ts), an ONNX file in the bundle: letters the recogniser and the
   * decoder cannot write (č, ł, ő …) are composed from the diacritic it reads on the recogniser's letter */
  diacritics?: string;
  /** the formula reader (src/vision/formula.ts): its formula.json in the bundle, naming its two ONNX files */
  formula?: string;
  /** per language (as vision/language.ts cyrillicLanguage and pageLanguage name it), its word list in the bundle
   * (src/engines/model/words.ts): a page of the language has a word misread by a letter, or its marks, written as the
   * language spells it */
  words?: Record<string, string>;
}

export interface TokenIds {
  bos: number;
  eos: number;
  pad: number;
  image: number;
  /** `<PAGE>` as one token (streaming layout); absent when pages are separated by literal text */
  page?: number;
}

export interface Prompts {
  page: string;
  /** prompt for several pages in one pass; absent when the model reads one page at a time */
  document?: string;
}

export interface AttentionConfig {
  kind: "full" | "rswa";
  /** the R-SWA window: the last `window` generated tokens are attended */
  window: number;
  focal?: { keep: number; layers: number; warmup: number };
}

/** The no-repeat n-gram rule. `window` and `document_window` are its look-back (the file's names; the code says
 * `lookback`, as "window" means the R-SWA window), not an attention window. */
export interface NoRepeatConfig {
  n: number;
  /** look back over this many generated tokens (0 = all) */
  window: number;
  /** the look-back when several pages are decoded in one pass (Unlimited-OCR uses 1024) */
  document_window?: number;
  exempt: number[];
}

export interface DecodingConfig {
  max_tokens_per_page: number;
  no_repeat_ngram?: NoRepeatConfig;
}

export interface ModelJson {
  format: typeof BUNDLE_FORMAT;
  name: string;
  family: ModelFamily;
  decoder: DecoderConfig;
  vision: VisionConfig;
  tokens: TokenIds;
  prompts: Prompts;
  /** the sequence layout (how pages and views enter the decoder's sequence), not a page layout (src/layout) */
  layout: "streaming" | "prefix";
  attention: AttentionConfig;
  decoding: DecodingConfig;
  /** where a converted checkpoint came from (hub id, revision); informational */
  source?: { repo?: string; revision?: string; checkpoint?: string };
}

/** Collects problems as "field: what is wrong" so one error lists them all. */
class Checker {
  readonly problems: string[] = [];
  fail(path: string, problem: string): void {
    this.problems.push(`${path}: ${problem}`);
  }
  object(v: unknown, path: string): Record<string, unknown> | undefined {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      this.fail(path, `expected an object but found ${describe(v)}`);
      return undefined;
    }
    return v as Record<string, unknown>;
  }
  int(o: Record<string, unknown>, key: string, path: string, min = 0): void {
    const v = o[key];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min)
      this.fail(`${path}.${key}`, `expected an integer >= ${min} but found ${describe(v)}`);
  }
  num(o: Record<string, unknown>, key: string, path: string, positive = false): void {
    const v = o[key];
    if (typeof v !== "number" || !Number.isFinite(v) || (positive && v <= 0))
      this.fail(`${path}.${key}`, `expected a ${positive ? "positive " : ""}number but found ${describe(v)}`);
  }
  bool(o: Record<string, unknown>, key: string, path: string): void {
    if (typeof o[key] !== "boolean") this.fail(`${path}.${key}`, `expected true or false but found ${describe(o[key])}`);
  }
  str(o: Record<string, unknown>, key: string, path: string): void {
    if (typeof o[key] !== "string" || (o[key] as string).length === 0)
      this.fail(`${path}.${key}`, `expected a non-empty string but found ${describe(o[key])}`);
  }
  oneOf(o: Record<string, unknown>, key: string, path: string, allowed: readonly string[]): void {
    if (!allowed.includes(o[key] as string))
      this.fail(`${path}.${key}`, `expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")} but found ${describe(o[key])}`);
  }
  pair(o: Record<string, unknown>, key: string, path: string): void {
    const v = o[key];
    if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => Number.isSafeInteger(x) && x > 0))
      this.fail(`${path}.${key}`, `expected two positive integers but found ${describe(v)}`);
  }
  triple(o: Record<string, unknown>, key: string, path: string, min: number, max: number): void {
    const v = o[key];
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === "number" && x >= min && x <= max))
      this.fail(`${path}.${key}`, `expected three numbers in [${min}, ${max}] but found ${describe(v)}`);
  }
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  const s = JSON.stringify(v);
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

/** Validates a parsed model.json; throws one ModelFileError listing every problem. */
/** A file name a bundle may give: relative, and never climbing out of the bundle's folder. */
export function insideBundle(name: string): boolean {
  return !name.startsWith("/") && !name.split(/[\\/]/).includes("..");
}

export function validateModelJson(value: unknown, file: string): ModelJson {
  const c = new Checker();
  const root = c.object(value, "model.json");
  if (!root) throw new ModelFileError(file, c.problems.join("; "));
  if (root.format !== BUNDLE_FORMAT) c.fail("format", `expected ${JSON.stringify(BUNDLE_FORMAT)} but found ${describe(root.format)}`);
  c.str(root, "name", "model");
  c.oneOf(root, "family", "model", ["deepseek-ocr", "unlimited-ocr"]);
  c.oneOf(root, "layout", "model", ["streaming", "prefix"]);

  const dec = c.object(root.decoder, "decoder");
  if (dec) {
    for (const k of [
      "vocab_size",
      "hidden_size",
      "num_hidden_layers",
      "num_attention_heads",
      "num_key_value_heads",
      "head_dim",
      "intermediate_size",
      "max_position_embeddings",
    ] as const)
      c.int(dec, k, "decoder", 1);
    for (const k of [
      "moe_intermediate_size",
      "n_routed_experts",
      "num_experts_per_tok",
      "n_shared_experts",
      "first_k_dense_replace",
    ] as const)
      c.int(dec, k, "decoder", 0);
    c.bool(dec, "norm_topk_prob", "decoder");
    c.bool(dec, "tie_word_embeddings", "decoder");
    c.num(dec, "routed_scaling_factor", "decoder", true);
    c.num(dec, "rms_norm_eps", "decoder", true);
    c.num(dec, "rope_theta", "decoder", true);
    c.oneOf(dec, "scoring_func", "decoder", ["softmax"]);
    c.oneOf(dec, "topk_method", "decoder", ["greedy"]);
    if (!Array.isArray(dec.weights) || dec.weights.length === 0 || !dec.weights.every((w) => typeof w === "string" && w.length > 0))
      c.fail("decoder.weights", `expected a non-empty list of file names but found ${describe(dec.weights)}`);
    else if (dec.weights.some((w: string) => !insideBundle(w))) c.fail("decoder.weights", "file names must stay inside the bundle folder");
    if (dec.quantization !== undefined) c.oneOf(dec, "quantization", "decoder", ["q8_0", "q4_1"]);
    if (
      typeof dec.num_attention_heads === "number" &&
      typeof dec.num_key_value_heads === "number" &&
      dec.num_attention_heads % dec.num_key_value_heads !== 0
    )
      c.fail("decoder.num_key_value_heads", "must divide num_attention_heads");
    if (
      typeof dec.n_routed_experts === "number" &&
      typeof dec.num_experts_per_tok === "number" &&
      dec.n_routed_experts > 0 &&
      dec.num_experts_per_tok > dec.n_routed_experts
    )
      c.fail("decoder.num_experts_per_tok", "exceeds n_routed_experts");
    if (
      typeof dec.n_routed_experts === "number" &&
      typeof dec.num_experts_per_tok === "number" &&
      dec.n_routed_experts > 0 &&
      dec.num_experts_per_tok < 1
    )
      c.fail("decoder.num_experts_per_tok", "must be at least 1 when the model has routed experts");
    if (typeof dec.head_dim === "number" && dec.head_dim % 2 !== 0) c.fail("decoder.head_dim", "must be even (rotary halves)");
  }

  const vis = c.object(root.vision, "vision");
  if (vis) {
    c.str(vis, "encoder", "vision");
    c.str(vis, "mode", "vision");
    c.triple(vis, "mean", "vision", 0, 1);
    c.triple(vis, "std", "vision", 1e-6, 10);
    c.triple(vis, "pad_color", "vision", 0, 255);
    c.bool(vis, "row_newline", "vision");
    c.bool(vis, "view_separator", "vision");
    if (vis.lines !== undefined) {
      const l = c.object(vis.lines, "vision.lines");
      if (l) {
        for (const k of ["detector", "recogniser", "dictionary"]) c.str(l, k, "vision.lines");
        for (const k of ["det_threshold", "det_box_threshold", "det_unclip"]) c.num(l, k, "vision.lines", true);
        for (const k of ["det_limit", "det_min_size", "rec_height", "rec_max_width", "rec_batch", "dpi"]) c.int(l, k, "vision.lines", 1);
        if (l.letter_runs !== undefined) c.bool(l, "letter_runs", "vision.lines");
        if (l.faithful !== undefined) c.bool(l, "faithful", "vision.lines");
        if (l.script_bans !== undefined) c.bool(l, "script_bans", "vision.lines");
        if (l.layout !== undefined) c.str(l, "layout", "vision.lines");
        if (l.diacritics !== undefined) c.str(l, "diacritics", "vision.lines");
        if (l.formula !== undefined) c.str(l, "formula", "vision.lines");
        if (l.words !== undefined) {
          const words = c.object(l.words, "vision.lines.words");
          for (const [lang, file] of Object.entries(words ?? {}))
            if (typeof file !== "string" || !insideBundle(file))
              c.fail(`vision.lines.words.${lang}`, `expected a file name inside the bundle folder but found ${describe(file)}`);
        }
        if (
          !Array.isArray(l.slots) ||
          l.slots.length === 0 ||
          !l.slots.every((x, i, a) => Number.isSafeInteger(x) && x > 0 && (i === 0 || x > a[i - 1]))
        )
          c.fail("vision.lines.slots", `expected increasing positive integers but found ${describe(l.slots)}`);
        for (const k of ["detector", "recogniser", "dictionary", "layout", "diacritics", "formula"])
          if (typeof l[k] === "string" && !insideBundle(l[k] as string))
            c.fail(`vision.lines.${k}`, "file names must stay inside the bundle folder");
      }
    }
    const modes = c.object(vis.modes, "vision.modes");
    if (modes) {
      if (Object.keys(modes).length === 0) c.fail("vision.modes", "no modes defined");
      for (const [name, spec] of Object.entries(modes)) {
        const p = `vision.modes.${name}`;
        const m = c.object(spec, p);
        if (!m) continue;
        c.pair(m, "size", p);
        c.pair(m, "grid", p);
        c.oneOf(m, "resize", p, ["pad", "stretch"]);
        if (m.anchor !== undefined) c.oneOf(m, "anchor", p, ["center", "top-left"]);
        if (m.tiles !== undefined) {
          const t = c.object(m.tiles, `${p}.tiles`);
          if (t) {
            c.pair(t, "size", `${p}.tiles`);
            c.pair(t, "grid", `${p}.tiles`);
            c.oneOf(t, "resize", `${p}.tiles`, ["stretch"]);
            c.int(t, "min_tiles", `${p}.tiles`, 1);
            c.int(t, "max_tiles", `${p}.tiles`, 1);
            if ((t.min_tiles as number) > (t.max_tiles as number)) c.fail(`${p}.tiles`, "min_tiles exceeds max_tiles");
          }
        }
      }
      if (typeof vis.mode === "string" && !(vis.mode in modes))
        c.fail("vision.mode", `names no mode in vision.modes (${Object.keys(modes).join(", ")})`);
      if (vis.document_mode !== undefined) {
        c.str(vis, "document_mode", "vision");
        const d = vis.document_mode;
        if (typeof d === "string" && !(d in modes))
          c.fail("vision.document_mode", `names no mode in vision.modes (${Object.keys(modes).join(", ")})`);
        else if (typeof d === "string" && (modes[d] as { tiles?: unknown }).tiles !== undefined)
          c.fail("vision.document_mode", `"${d}" cuts tiles; pages of a multi-page pass are read as one view each`);
      }
    }
  }

  const tok = c.object(root.tokens, "tokens");
  if (tok) {
    for (const k of ["bos", "eos", "pad", "image"]) c.int(tok, k, "tokens", 0);
    if (tok.page !== undefined) c.int(tok, "page", "tokens", 0);
    const vocab = dec && typeof dec.vocab_size === "number" ? dec.vocab_size : Infinity;
    for (const [k, v] of Object.entries(tok))
      if (typeof v === "number" && v >= vocab) c.fail(`tokens.${k}`, `id ${v} is outside the vocabulary (${vocab})`);
  }
  const prompts = c.object(root.prompts, "prompts");
  if (prompts) {
    c.str(prompts, "page", "prompts");
    if (prompts.document !== undefined) c.str(prompts, "document", "prompts");
    for (const k of ["page", "document"]) {
      const p = prompts[k];
      if (typeof p === "string" && p.split("<image>").length !== 2) c.fail(`prompts.${k}`, "must contain exactly one <image> placeholder");
    }
  }
  if (vis && vis.lines !== undefined && root.layout !== "streaming")
    c.fail("vision.lines", "line-unit models read in the streaming sequence layout (one view per line)");
  if (root.layout === "streaming" && tok && tok.page === undefined)
    c.fail("tokens.page", "the streaming sequence layout needs a <PAGE> token id");

  const att = c.object(root.attention, "attention");
  if (att) {
    c.oneOf(att, "kind", "attention", ["full", "rswa"]);
    c.int(att, "window", "attention", 1);
    if (att.focal !== undefined) {
      const f = c.object(att.focal, "attention.focal");
      if (f) {
        c.num(f, "keep", "attention.focal", true);
        if (typeof f.keep === "number" && f.keep > 1) c.fail("attention.focal.keep", "must be at most 1");
        c.int(f, "layers", "attention.focal", 1);
        // the engine measures the focal layers' attention share during the warm-up: at least one step
        c.int(f, "warmup", "attention.focal", 1);
        if (dec && typeof dec.num_hidden_layers === "number" && typeof f.layers === "number" && f.layers > dec.num_hidden_layers)
          c.fail("attention.focal.layers", `${f.layers} exceeds decoder.num_hidden_layers (${dec.num_hidden_layers})`);
      }
    }
  }
  const decoding = c.object(root.decoding, "decoding");
  if (decoding) {
    c.int(decoding, "max_tokens_per_page", "decoding", 1);
    if (decoding.no_repeat_ngram !== undefined) {
      const nr = c.object(decoding.no_repeat_ngram, "decoding.no_repeat_ngram");
      if (nr) {
        c.int(nr, "n", "decoding.no_repeat_ngram", 1);
        c.int(nr, "window", "decoding.no_repeat_ngram", 1);
        if (nr.document_window !== undefined) c.int(nr, "document_window", "decoding.no_repeat_ngram", 1);
        if (!Array.isArray(nr.exempt) || !nr.exempt.every((x) => Number.isSafeInteger(x) && x >= 0))
          c.fail("decoding.no_repeat_ngram.exempt", `expected a list of token ids but found ${describe(nr.exempt)}`);
      }
    }
  }
  if (c.problems.length > 0) throw new ModelFileError(file, `invalid model.json: ${c.problems.join("; ")}`);
  return value as ModelJson;
}
