// The line-unit front end of a bundle (model.json vision.lines): detector, recogniser and projector sessions,
// sharing one onnxruntime worker thread, turning a page into one view of decoder embeddings per text line.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { LinesConfig } from "../model/schema.js";
import { OnnxThread, VisionEncoder, type EncoderOptions } from "./encoder.js";
import { assembleVisualEmbeddings, visualTokenCount, type VisualLayout } from "./layout.js";
import { pageUnits, parseDictionary, stageClock, type LineBox, type LineModels, type LineUnit } from "./lines.js";
import type { PagePixels } from "./preprocess.js";

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
}

export class LineEncoder {
  private constructor(
    private readonly cfg: LinesConfig,
    private readonly detector: VisionEncoder,
    private readonly recogniser: VisionEncoder,
    private readonly projector: VisionEncoder,
    private readonly dictionary: string[],
  ) {}

  /** Opens the three models of a bundle directory; `projectorPath` is the bundle's encoder.onnx. */
  static async open(dir: string, cfg: LinesConfig, projectorPath: string, options: EncoderOptions = {}): Promise<LineEncoder> {
    const dictionary = parseDictionary(await readFile(path.join(dir, cfg.dictionary), "utf8"));
    const opened: VisionEncoder[] = [];
    // a page runs detector, recogniser and projector in turn: one worker thread holds the three sessions
    const thread = new OnnxThread(options);
    thread.acquire();
    try {
      opened.push(await VisionEncoder.open(path.join(dir, cfg.detector), options, { inputs: ["pixels"], outputs: ["probability"] }, thread));
      opened.push(await VisionEncoder.open(path.join(dir, cfg.recogniser), options, { inputs: ["pixels"], outputs: ["best", "peak", "features"] }, thread));
      opened.push(await VisionEncoder.open(projectorPath, options, { inputs: ["ids", "feats", "valid", "geometry"], outputs: ["embeddings"] }, thread));
    } catch (err) {
      await Promise.all(opened.map((e) => e.close()));
      await thread.release();
      throw err;
    }
    // the sessions hold the thread from here: it ends when the last of them closes
    await thread.release();
    return new LineEncoder(cfg, opened[0]!, opened[1]!, opened[2]!, dictionary);
  }

  get provider(): "cpu" | "cuda" {
    return this.detector.provider;
  }

  private models(): LineModels {
    return {
      // the front end builds each input afresh and drops it after the call: hand the buffers over
      detect: async (t) => (await this.detector.run({ pixels: { type: "float32", data: t.data, dims: t.dims } }, { transfer: true })).probability!,
      recognise: async (t) => {
        const r = await this.recogniser.run({ pixels: { type: "float32", data: t.data, dims: t.dims } }, { transfer: true });
        return { best: r.best!, peak: r.peak!, features: r.features! };
      },
    };
  }

  /** The page's lines in reading order, each projected to decoder embeddings and framed by the visual layout. */
  async views(page: PagePixels, hidden: number, frame: { rowNewline: boolean; viewSeparator: boolean; newline?: Float32Array; separator?: Float32Array },
    timings?: Record<string, number>): Promise<LineView[]> {
    const units = await pageUnits(page, this.models(), this.cfg, this.dictionary, timings);
    const clock = stageClock(timings);
    const byLength = new Map<number, number[]>();
    units.forEach((u, i) => {
      const length = this.cfg.slots.find((s) => u.ids.length <= s) ?? this.cfg.slots.at(-1)!;
      byLength.set(length, [...(byLength.get(length) ?? []), i]);
    });
    const views: LineView[] = new Array(units.length);
    for (const [length, idx] of byLength) {
      const emb = await this.project(idx.map((i) => units[i]!), length);
      const layout: VisualLayout = { global: { rows: 1, cols: 1 + length }, rowNewline: frame.rowNewline, viewSeparator: frame.viewSeparator };
      const per = (1 + length) * hidden;
      idx.forEach((i, k) => {
        const embeddings = assembleVisualEmbeddings(layout, { hidden, global: emb.subarray(k * per, (k + 1) * per), newline: frame.newline, separator: frame.separator });
        const u = units[i]!;
        // the last extra feature of a slot is its centre along the line
        const slotX = Float32Array.from(u.ids, (_, j) => u.box.xMin + u.features[(j + 1) * u.stride - 1]! * (u.box.xMax - u.box.xMin));
        // and the one before it the run's peak probability
        const slotPeak = Float32Array.from(u.ids, (_, j) => u.features[(j + 1) * u.stride - 2]!);
        views[i] = { box: u.box, grid: [1, 1 + length], embeddings, count: visualTokenCount(layout), text: u.text, slotX, slotPeak };
      });
    }
    clock("project");
    return views;
  }

  /** Projector over units padded (or cut) to `length` slots → [n, 1, 1 + length, hidden] flattened. */
  private async project(units: LineUnit[], length: number): Promise<Float32Array> {
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
    const r = await this.projector.run({
      ids: { type: "int64", data: ids, dims: [n, length] },
      feats: { type: "float32", data: feats, dims: [n, length, width] },
      valid: { type: "float32", data: valid, dims: [n, length] },
      geometry: { type: "float32", data: geometry, dims: [n, units[0]!.geometry.length] },
    });
    return r.embeddings!.data;
  }

  async close(): Promise<void> {
    await Promise.all([this.detector.close(), this.recogniser.close(), this.projector.close()]);
  }
}
