// The line-unit front end of a bundle (model.json vision.lines): detector, recogniser and projector sessions,
// sharing one onnxruntime worker thread, turning a page into one view of decoder embeddings per text line.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { LinesConfig } from "../model/schema.js";
import { OnnxThread, VisionEncoder, type EncoderOptions } from "./encoder.js";
import { assembleVisualEmbeddings, visualTokenCount, type VisualSequence } from "./visual-sequence.js";
import { PairOrderScorer, parsePairOrderModel } from "../layout/learned.js";
import {
  lineParts,
  pageUnits,
  parseDictionary,
  slotGaps,
  slotPeaks,
  stageClock,
  type LineBox,
  type LineModels,
  type LineUnit,
  type Tensor,
} from "./lines.js";
import { parseFormulaConfig, type FormulaConfig, type FormulaModels, type PageFormula } from "./formula.js";
import type { PagePixels } from "./preprocess.js";
import type { Extent } from "../layout/xycut.js";
import type { PageFrame } from "../layout/stage.js";

/** One text line as the decoder sees it: a one-row grid [geometry, slots…] framed as the bundle's layout says. */
export interface LineView {
  box: LineBox;
  /** [rows, cols] of the view's grid: one row, the geometry token and the slot count the line was padded to */
  grid: [number, number];
  embeddings: Float32Array;
  /** embeddings.length / hidden */
  count: number;
  /** the recogniser's own reading, for diagnostics */
  text: string;
  /** page x of each slot's centre (where its symbol run sits on the line) */
  slotX: Float32Array;
  /** each slot's peak probability: the recogniser's surest CTC step over the slot's run (one per character of `text`) */
  slotPeak: Float32Array;
  /** each slot's blank CTC steps before its run (a wide gap with no space read is a space the recogniser missed) */
  slotGap: Float32Array;
  /** each slot's diacritic (an index of vision/diacritics.ts DIACRITICS) and its probability, where the page was read for them */
  slotDiacritic?: Uint8Array;
  slotDiacriticPeak?: Float32Array;
  /** per slot, its glyph's height over the line's x-height (NaN: not measured) */
  slotHeight?: Float32Array;
  /** …and how far it reaches below the baseline, in x-heights */
  slotDepth?: Float32Array;
  /** a line of more slots than the projector takes: the views the decoder reads it in, one after another
   * (vision/lines.ts lineParts); the line's own fields stay its whole evidence, its embeddings, grid and count
   * are its first part's */
  parts?: LineView[];
}

/** A page as the decoder reads it: its lines' views in reading order, its pictures, and its display formulas. */
export interface PageViews {
  views: LineView[];
  pictures: Extent[];
  /** display formulas read to LaTeX, their members indexing `views` */
  formulas: PageFormula[];
  /** the page's horizontal rules (layout/rules.ts), in the pixels of the views' boxes */
  rules: Extent[];
}

/** A unit's evidence as its view carries it: its box, the recogniser's reading, each slot's place on the page, peak
 * and gap, and the diacritics and glyph heights read on it. */
function unitEvidence(u: LineUnit): Omit<LineView, "grid" | "embeddings" | "count"> {
  return {
    box: u.box,
    text: u.text,
    // the last extra feature of a slot is its centre along the line
    slotX: Float32Array.from(u.ids, (_, j) => u.box.xMin + u.features[(j + 1) * u.stride - 1]! * (u.box.xMax - u.box.xMin)),
    // and the one before it the run's peak probability
    // (or the evidence's own, where the line was read again: vision/lines.ts CROWDED)
    slotPeak: u.peaks ?? slotPeaks(u.ids, u.features, u.stride),
    slotGap: u.gaps ?? slotGaps(u.ids, u.features, u.stride),
    ...(u.diacritics ? { slotDiacritic: u.diacritics, slotDiacriticPeak: u.diacriticPeaks } : {}),
    ...(u.heights ? { slotHeight: u.heights, slotDepth: u.depths } : {}),
  };
}

/** One set of the sessions on one worker thread; a page uses one lane from detection to projection. */
interface Lane {
  detector: VisionEncoder;
  recogniser: VisionEncoder;
  projector: VisionEncoder;
  /** where the bundle has a diacritics model */
  diacritics?: VisionEncoder;
  /** where the bundle has a formula reader: its two halves */
  formula?: { encoder: VisionEncoder; decoder: VisionEncoder };
  busy: boolean;
}

/** The lane's model files: detector, recogniser, projector, the diacritics model, the formula reader's two halves. */
interface LanePaths {
  detector: string;
  recogniser: string;
  projector: string;
  diacritics?: string;
  formula?: { encoder: string; decoder: string };
}

export class LineEncoder {
  /** Lanes are opened when a page arrives while every lane is busy (documents read at once, pages prepared ahead). */
  private readonly lanes: Lane[] = [];
  private opening?: Promise<Lane>;

  private constructor(
    private readonly cfg: LinesConfig,
    first: Lane,
    private readonly dictionary: string[],
    private readonly paths: LanePaths,
    private readonly options: EncoderOptions,
    private readonly order?: PairOrderScorer,
    private readonly formula?: FormulaConfig,
  ) {
    this.lanes.push(first);
  }

  /**
   * Opens the three models of a bundle directory; `projectorPath` is the bundle's encoder.onnx. With `readingOrder`
   * "learned" the lines are read in the order of the bundle's learned model (cfg.layout), else by XY-cut.
   */
  static async open(
    dir: string,
    cfg: LinesConfig,
    projectorPath: string,
    options: EncoderOptions = {},
    readingOrder: "xy-cut" | "learned" = "xy-cut",
  ): Promise<LineEncoder> {
    const dictionary = parseDictionary(await readFile(path.join(dir, cfg.dictionary), "utf8"));
    let order: PairOrderScorer | undefined;
    if (readingOrder === "learned") {
      if (!cfg.layout) throw new Error(`${path.join(dir, "model.json")}: vision.lines.layout names no learned reading order`);
      const file = path.join(dir, cfg.layout);
      order = new PairOrderScorer(parsePairOrderModel(await readBundleJson(file), file));
    }
    const paths: LanePaths = {
      detector: path.join(dir, cfg.detector),
      recogniser: path.join(dir, cfg.recogniser),
      projector: projectorPath,
    };
    if (cfg.diacritics) paths.diacritics = path.join(dir, cfg.diacritics);
    let formula: FormulaConfig | undefined;
    if (cfg.formula) {
      const file = path.join(dir, cfg.formula);
      formula = parseFormulaConfig(await readBundleJson(file), file);
      paths.formula = { encoder: path.join(dir, formula.encoder), decoder: path.join(dir, formula.decoder) };
    }
    return new LineEncoder(cfg, await openLane(paths, options), dictionary, paths, options, order, formula);
  }

  get provider(): "cpu" | "cuda" {
    return this.lanes[0]!.detector.provider;
  }

  /** A free lane, marked busy: an idle one, else a new one (a lane per page in flight: --jobs, pages prepared ahead). */
  private async take(): Promise<Lane> {
    for (;;) {
      const free = this.lanes.find((l) => !l.busy);
      if (free) {
        free.busy = true;
        return free;
      }
      if (!this.opening) {
        this.opening = openLane(this.paths, this.options).finally(() => (this.opening = undefined));
        const lane = await this.opening;
        lane.busy = true;
        this.lanes.push(lane);
        return lane;
      }
      await this.opening.catch(() => undefined);
    }
  }

  private models(lane: Lane): LineModels {
    return {
      // the front end builds each input afresh and drops it after the call: hand the buffers over
      detect: async (t) =>
        (await lane.detector.run({ pixels: { type: "float32", data: t.data, dims: t.dims } }, { transfer: true })).probability!,
      recognise: async (t) => {
        const r = await lane.recogniser.run({ pixels: { type: "float32", data: t.data, dims: t.dims } }, { transfer: true });
        return { best: r.best!, peak: r.peak!, features: r.features! };
      },
      ...(lane.diacritics
        ? {
            diacritics: async (patches: Tensor, letters: Tensor) =>
              (
                await lane.diacritics!.run(
                  {
                    patch: { type: "float32", data: patches.data, dims: patches.dims },
                    letter: { type: "float32", data: letters.data, dims: letters.dims },
                  },
                  { transfer: true },
                )
              ).probability!,
          }
        : {}),
      ...(this.order ? { order: (boxes: readonly LineBox[], page: PageFrame) => this.order!.order(boxes, page) } : {}),
      ...(lane.formula && this.formula ? { formula: { models: formulaModels(lane.formula), cfg: this.formula } } : {}),
    };
  }

  /**
   * The page's lines in reading order, each projected to decoder embeddings and framed by the visual layout, and the
   * page's pictures (whose lines are not read).
   */
  async views(
    page: PagePixels,
    hidden: number,
    frame: { rowNewline: boolean; viewSeparator: boolean; newline?: Float32Array; separator?: Float32Array },
    timings?: Record<string, number>,
  ): Promise<PageViews> {
    const lane = await this.take();
    try {
      return await this.laneViews(lane, page, hidden, frame, timings);
    } finally {
      lane.busy = false;
    }
  }

  private async laneViews(
    lane: Lane,
    page: PagePixels,
    hidden: number,
    frame: { rowNewline: boolean; viewSeparator: boolean; newline?: Float32Array; separator?: Float32Array },
    timings?: Record<string, number>,
  ): Promise<PageViews> {
    const { units, pictures, formulas, rules } = await pageUnits(page, this.models(lane), this.cfg, this.dictionary, timings);
    const clock = stageClock(timings);
    // a line of more slots than the projector takes is read by the decoder in parts (lineParts): its parts are
    // projected in its place, and its own view is its whole evidence with its first part's embeddings
    const max = Math.max(...this.cfg.slots);
    const split = units.map((u) => lineParts(u, max, this.dictionary));
    const projected = split.flat();
    const byLength = new Map<number, number[]>();
    projected.forEach((u, i) => {
      const length = this.cfg.slots.find((s) => u.ids.length <= s) ?? this.cfg.slots.at(-1)!;
      byLength.set(length, [...(byLength.get(length) ?? []), i]);
    });
    const built: LineView[] = new Array(projected.length);
    for (const [length, idx] of byLength) {
      const emb = await this.project(
        lane,
        idx.map((i) => projected[i]!),
        length,
      );
      const sequence: VisualSequence = {
        global: { rows: 1, cols: 1 + length },
        rowNewline: frame.rowNewline,
        viewSeparator: frame.viewSeparator,
      };
      const per = (1 + length) * hidden;
      idx.forEach((i, k) => {
        const embeddings = assembleVisualEmbeddings(sequence, {
          hidden,
          global: emb.subarray(k * per, (k + 1) * per),
          newline: frame.newline,
          separator: frame.separator,
        });
        built[i] = { ...unitEvidence(projected[i]!), grid: [1, 1 + length], embeddings, count: visualTokenCount(sequence) };
      });
    }
    let at = 0;
    const views = split.map((parts, i) => {
      const mine = built.slice(at, (at += parts.length));
      return parts.length > 1 ? { ...mine[0]!, ...unitEvidence(units[i]!), parts: mine } : mine[0]!;
    });
    clock("project");
    return { views, pictures, formulas, rules };
  }

  /** Projector over units padded (or cut) to `length` slots → [n, 1, 1 + length, hidden] flattened. */
  private async project(lane: Lane, units: LineUnit[], length: number): Promise<Float32Array> {
    const width = units[0]!.stride;
    const n = units.length;
    const ids = new BigInt64Array(n * length);
    const feats = new Float32Array(n * length * width);
    const valid = new Float32Array(n * length);
    const geometry = new Float32Array(n * units[0]!.geometry.length);
    units.forEach((u, k) => {
      const s = Math.min(length, u.ids.length);
      for (let j = 0; j < s; j++) {
        ids[k * length + j] = BigInt(u.ids[j]!);
        valid[k * length + j] = 1;
      }
      feats.set(u.features.subarray(0, s * width), k * length * width);
      geometry.set(u.geometry, k * u.geometry.length);
    });
    const r = await lane.projector.run({
      ids: { type: "int64", data: ids, dims: [n, length] },
      feats: { type: "float32", data: feats, dims: [n, length, width] },
      valid: { type: "float32", data: valid, dims: [n, length] },
      geometry: { type: "float32", data: geometry, dims: [n, units[0]!.geometry.length] },
    });
    return r.embeddings!.data;
  }

  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    await Promise.all(
      this.lanes.flatMap((l) => [
        l.detector.close(),
        l.recogniser.close(),
        l.projector.close(),
        ...(l.diacritics ? [l.diacritics.close()] : []),
        ...(l.formula ? [l.formula.encoder.close(), l.formula.decoder.close()] : []),
      ]),
    );
  }
}

/** A JSON file of the bundle, parsed; a file that cannot be read or parsed is named in the error. */
async function readBundleJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** The detector, recogniser and projector sessions on one worker thread (a page runs them in turn). */
async function openLane(paths: LanePaths, options: EncoderOptions): Promise<Lane> {
  const opened: VisionEncoder[] = [];
  // No arenas: the three sessions run in turn, so without them the detector's working memory (~100 MiB on a
  // 150-DPI A4 page) is reused by the recogniser and the projector instead of each session holding its own
  // high-water mark (README "Where a page's time and memory go").
  const thread = new OnnxThread({ ...options, memArena: options.memArena ?? false });
  thread.acquire();
  const open = async (file: string, inputs: string[], outputs: string[]) => {
    const session = await VisionEncoder.open(file, options, { inputs, outputs }, thread);
    opened.push(session);
    return session;
  };
  try {
    const detector = await open(paths.detector, ["pixels"], ["probability"]);
    const recogniser = await open(paths.recogniser, ["pixels"], ["best", "peak", "features"]);
    const projector = await open(paths.projector, ["ids", "feats", "valid", "geometry"], ["embeddings"]);
    const diacritics = paths.diacritics ? await open(paths.diacritics, ["patch", "letter"], ["probability"]) : undefined;
    const formula = paths.formula
      ? {
          encoder: await open(paths.formula.encoder, ["pixels"], ["memory"]),
          decoder: await open(paths.formula.decoder, ["memory", "tokens"], ["logprobs"]),
        }
      : undefined;
    return { detector, recogniser, projector, ...(diacritics ? { diacritics } : {}), ...(formula ? { formula } : {}), busy: false };
  } catch (err) {
    await Promise.all(opened.map((e) => e.close()));
    throw err;
  } finally {
    // the sessions hold the thread from here: it ends when the last of them closes
    await thread.release();
  }
}

/** The formula reader's two sessions as vision/formula.ts calls them. */
function formulaModels(sessions: { encoder: VisionEncoder; decoder: VisionEncoder }): FormulaModels {
  return {
    encode: async (t) =>
      (await sessions.encoder.run({ pixels: { type: "float32", data: t.data, dims: t.dims } }, { transfer: true })).memory!,
    step: async (memory, tokens) =>
      (
        await sessions.decoder.run({
          memory: { type: "float32", data: memory.data, dims: memory.dims },
          tokens: { type: "int64", data: tokens, dims: [1, tokens.length] },
        })
      ).logprobs!.data,
  };
}
