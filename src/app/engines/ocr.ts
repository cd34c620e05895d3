// The "model" engine: a bundle's encoder (onnxruntime) + native decoder, in the prefix layout (DeepSeek-OCR, Unlimited-OCR)
// or the streaming layout (our default model). Replaces the placeholder registration of model.ts.
import { faithfulLine } from "../faithful.js";
import { letterRunCaps } from "../letter-runs.js";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Engine, EngineError, type AttentionPolicy, type FocalOptions, type GenerateOptions, type NoRepeatRule, type Session } from "../../engine/index.js";
import { loadBundle, type Bundle } from "../../model/bundle.js";
import { ModelFileError } from "../../model/errors.js";
import { buildPrefixPrompt, buildStreamingPrompt, promptFor } from "../../model/prompt.js";
import { resolveModelDir } from "../../model/registry.js";
import { readTensorF32 } from "../../model/safetensors.js";
import { Tokenizer } from "../../model/tokenizer.js";
import { PAGE_SEPARATOR, parseGroundedPage } from "../../output/grounding.js";
import { documentPass } from "./document-pass.js";
import { bytesPerDocument, viewEntries as visualEntries } from "./memory.js";
import type { PageLine } from "../../layout/page.js";
import { layoutStage } from "../../layout/stage.js";
import { balanceTables } from "../../layout/table.js";
import { VisionEncoder } from "../../vision/encoder.js";
import { LineEncoder, type LineView } from "../../vision/line-encoder.js";
import { assembleVisualEmbeddings } from "../../vision/layout.js";
import { cropRegionPng } from "../../vision/crop.js";
import { preparePage, type ContentBox, type PagePixels, type PreparedPage } from "../../vision/preprocess.js";
import { registerDecoder, type DecodeContext, type DecodedPage, type DocumentPages, type ModelIdentity, type PageDecoder } from "../decoder.js";
import { EnvironmentError, UsageError } from "../errors.js";
import { resolveDecodeOptions, type DecodeOptions } from "../decode-options.js";
import { InputError, isInputError } from "../../input/index.js";
import { FixationLog } from "../fixations.js";
import { RunawayDetector } from "../runaway.js";
import type { RunSettings } from "../settings.js";
import { defaultModelDir } from "./model.js";

interface PreparedPixels {
  pageNumber: number;
  timings?: Record<string, number>;
  width: number;
  height: number;
  dpi: number | undefined;
  embeddings: Float32Array;
  count: number;
  pixels: PagePixels;
  /** where the page sits in the global view (view pixels), for locating fixations */
  content?: ContentBox;
  /** line-unit mode: one view per text line, read one after another (embeddings is then empty) */
  views?: LineView[];
}

interface Loaded {
  bundle: Bundle;
  tokenizer: Tokenizer;
  engine: Engine;
  /** the page-grid encoder, or (vision.lines) the line front end */
  encoder?: VisionEncoder;
  lines?: LineEncoder;
  newline?: Float32Array;
  separator?: Float32Array;
}

/** What one decode run reads: a page's whole view, or (line-unit models) one line's view with its box and slots. */
type DecodeView = Pick<LineView, "embeddings"> & Partial<LineView>;

/** The decoder's separator and block marker (new paragraph, heading, list item) before the recogniser's text. */
export function lineFallback(decoded: string, recognised: string): string {
  const lead = /^\s*(?:#{1,6} |[-*+] |\d{1,3}[.)] )?/.exec(decoded)![0];
  return lead + recognised.trim();
}

/** Frees the KV cache now rather than at garbage collection. */
function disposeSession(session: Session): void {
  try {
    session.dispose();
  } catch {
    /* already disposed: garbage collection frees the rest */
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

class OcrDecoder implements PageDecoder {
  readonly engine = "model";
  constructor(
    private readonly m: Loaded,
    readonly model: ModelIdentity,
    /** The decode options, resolved once from the request and the bundle (decode-options.ts). */
    readonly options: DecodeOptions,
    /** --fixations: where focal pruning looked, per generated token (streaming layout). */
    private readonly fixations?: FixationLog,
  ) {}

  private get mode(): string {
    return this.options.mode;
  }
  private get attention(): AttentionPolicy {
    return this.options.attention;
  }
  private get maxTokens(): number {
    return this.options.maxTokens;
  }
  /** Focal pruning (from model.json attention.focal, overridden by --focal-*, off with --no-focal). */
  private get focal(): FocalOptions | undefined {
    return this.options.focal;
  }

  private noRepeat(pagesInPass: number): NoRepeatRule | undefined {
    const rule = this.m.bundle.json.decoding.no_repeat_ngram;
    if (!rule) return undefined;
    const window = pagesInPass > 1 && rule.document_window ? rule.document_window : rule.window;
    return { n: rule.n, window, exempt: rule.exempt };
  }

  /** Encodes a prepared page (global view, then tiles when present) into its visual sequence. */
  private async visual(prepared: PreparedPage): Promise<Float32Array> {
    const hidden = this.m.bundle.json.decoder.hidden_size;
    const g = prepared.global;
    const global = await this.m.encoder!.encode(g.pixels.slice(), [1, 3, g.height, g.width]);
    let tiles: Float32Array | undefined;
    if (prepared.tiles) {
      const t = prepared.tiles;
      tiles = (await this.m.encoder!.encode(t.pixels.slice(), [t.count, 3, t.height, t.width])).data;
    }
    if (global.dims[3] !== hidden)
      throw new EnvironmentError(`${this.m.bundle.encoderPath}: embeddings are ${global.dims[3]} wide, the decoder expects ${hidden}`);
    return assembleVisualEmbeddings(prepared.layout, { hidden, global: global.data, tiles, newline: this.m.newline, separator: this.m.separator });
  }

  private async preparePages(pages: DocumentPages, numbers: number[], timings: Map<number, Record<string, number>>, mode = this.mode): Promise<PreparedPixels[]> {
    const out: PreparedPixels[] = [];
    for (const pageNumber of numbers) {
      let t = performance.now();
      const raster = await pages.render(pageNumber);
      const render = performance.now() - t;
      t = performance.now();
      // pixels are kept for figure crops only when the run writes files
      const pixels = pages.figureDir ? raster : { width: 0, height: 0, data: Buffer.alloc(0) };
      if (this.m.lines) {
        const json = this.m.bundle.json;
        const stages: Record<string, number> = {};
        const lines = await this.m.lines.views(raster, json.decoder.hidden_size,
          { rowNewline: json.vision.row_newline, viewSeparator: json.vision.view_separator, newline: this.m.newline, separator: this.m.separator }, stages);
        // encode is the whole vision front end; its stages (detect, marks, layout, crops, recognise, project) follow it
        const encode = performance.now() - t;
        timings.set(pageNumber, { render: round(render), encode: round(encode), ...Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, round(v)])) });
        out.push({ pageNumber, width: raster.width, height: raster.height, dpi: raster.dpi, embeddings: new Float32Array(0), count: lines.reduce((s, v) => s + v.count, 0), pixels, views: lines });
        continue;
      }
      const prepared = await preparePage(raster, this.m.bundle.json.vision, mode);
      const embeddings = await this.visual(prepared);
      timings.set(pageNumber, { render: round(render), encode: round(performance.now() - t) });
      out.push({ pageNumber, width: raster.width, height: raster.height, dpi: raster.dpi, embeddings, count: prepared.visualTokens, pixels, content: prepared.global.content });
    }
    return out;
  }

  /** The page's record from its text (and, for line-unit models, its lines); `output` times the Markdown/blocks parse and figure crops. */
  private async page(pages: DocumentPages, p: PreparedPixels, text: string, tokenCount: number, truncated: boolean, timings: Record<string, number>, missing = false,
    lines?: PageLine[]): Promise<DecodedPage> {
    const t = performance.now();
    const page = await decodedPageFromText(text, p, { figureDir: pages.figureDir, tokenCount, truncated, timings, missing, maxTokens: this.maxTokens, lines });
    page.timings = { ...page.timings, output: round(performance.now() - t) };
    return page;
  }

  async *decodeDocument(pages: DocumentPages, context: DecodeContext): AsyncIterable<DecodedPage> {
    if (this.m.bundle.json.layout === "streaming") yield* this.streaming(pages, context);
    else yield* this.prefix(pages, context);
  }

  /**
   * Prefix layout. A model with a document prompt under R-SWA reads a document of several pages in one pass
   * (documentPass: pages enter in turn, each retired after the marker that closes it, no page cap); otherwise each
   * page is a pass of its own, in the page mode (Gundam for the DeepSeek-OCR family).
   */
  private async *prefix(pages: DocumentPages, context: DecodeContext): AsyncIterable<DecodedPage> {
    const json = this.m.bundle.json;
    const numbers = [...pages.pageNumbers];
    if (json.prompts.document && this.attention.kind === "rswa" && numbers.length > 1) {
      yield* this.documentPass(pages, numbers, context);
      return;
    }
    for (const pageNumber of numbers) {
      if (context.signal.aborted) return;
      const timings = new Map<number, Record<string, number>>();
      const [p] = await this.preparePages(pages, [pageNumber], timings, this.mode);
      const prompt = buildPrefixPrompt(this.m.tokenizer, json, promptFor(json, 1), p!.count);
      const textIds = prompt.ids.filter((_, k) => k < prompt.visualStart || k >= prompt.visualStart + p!.count);
      const positions = Array.from({ length: p!.count }, (_, k) => prompt.visualStart + k);
      const session = this.m.engine.createSession({ attention: this.attention, focal: this.focal });
      try {
        let t = performance.now();
        await session.prefill({ tokens: textIds, embeddings: p!.embeddings, embeddingPositions: positions });
        const prefill = performance.now() - t;
        t = performance.now();
        const result = await this.generatePage(session, pageNumber, { maxTokens: this.maxTokens, stopTokens: [json.tokens.eos], noRepeat: this.noRepeat(1) }, context);
        const decode = performance.now() - t;
        const ended = result.reason === "stop";
        if (result.reason === "runaway") context.warn(`page ${pageNumber} was ended after ${result.tokens.length} tokens: the output kept repeating itself`);
        const text = this.m.tokenizer.decode(ended ? result.tokens.slice(0, -1) : result.tokens);
        const share = { ...timings.get(pageNumber)!, prefill: round(prefill), decode: round(decode) };
        const page = await this.page(pages, p!, text, result.tokens.length, !ended, share);
        const stats = session.stats();
        page.cache = { liveEntries: stats.liveEntries, bytes: stats.cacheBytes };
        yield page;
      } finally {
        disposeSession(session);
      }
    }
  }

  /** One R-SWA pass over the whole document (src/app/engines/document-pass.ts); page k+1 is prepared while page k decodes. */
  private async *documentPass(pages: DocumentPages, numbers: number[], context: DecodeContext): AsyncIterable<DecodedPage> {
    const json = this.m.bundle.json;
    const hidden = json.decoder.hidden_size;
    // pages are prepared one ahead of the page being decoded and dropped once yielded
    const prepared = new Map<number, Promise<PreparedPixels | InputError>>();
    const timings = new Map<number, Record<string, number>>();
    const prepare = (i: number) => {
      if (i < numbers.length && !prepared.has(i)) {
        const p = this.preparePages(pages, [numbers[i]!], timings, this.options.documentMode).then(
          ([x]) => x!,
          // a page that cannot be read becomes an empty page with its reason; the pass goes on without it
          (err: unknown) => {
            if (isInputError(err)) return err;
            throw err;
          },
        );
        p.catch(() => {});
        prepared.set(i, p);
      }
      return prepared.get(i)!;
    };
    const view = async (i: number) => {
      const p = await prepare(i);
      prepare(i + 1);
      return p instanceof InputError ? undefined : p.embeddings;
    };
    // the prompt's visual span is the first page's size: every page of the pass has the document mode's one view
    const first = await prepare(0);
    const rows = first instanceof InputError ? visualEntries(json.vision.modes[this.options.documentMode]!) : first.count;
    const prompt = buildPrefixPrompt(this.m.tokenizer, json, promptFor(json, numbers.length), rows);
    const ids = prompt.ids.filter((_, k) => k < prompt.visualStart || k >= prompt.visualStart + rows);
    const session = this.m.engine.createSession({ attention: this.attention, focal: this.focal });
    let current = -1;
    let started = performance.now();
    try {
      const pass = documentPass(session, numbers.length, view, {
        prompt: { ids, visualStart: prompt.visualStart }, text: this.m.tokenizer, marker: PAGE_SEPARATOR, eos: json.tokens.eos,
        maxTokens: this.maxTokens, noRepeat: this.noRepeat(numbers.length), signal: context.signal,
        progress: (i, n) => {
          if (i !== current) [current, started] = [i, performance.now()];
          context.progress?.(numbers[i]!, n, performance.now() - started);
        },
      }, hidden);
      let i = 0;
      for await (const r of pass) {
        const p = await prepared.get(i)!;
        prepared.delete(i);
        const pageNumber = numbers[i++]!;
        if (p instanceof InputError) {
          yield await this.failedPage(pages, pageNumber, p.message);
          continue;
        }
        if (r.end === "runaway") context.warn(`page ${pageNumber} was ended after ${r.tokens} tokens: the output kept repeating itself`);
        const share = { ...timings.get(pageNumber)!, prefill: round(r.prefillMs), decode: round(r.decodeMs) };
        const page = await this.page(pages, p, r.text.replace(/^\s*\n/, ""), r.tokens, r.end !== "marker" && r.end !== "eos", share);
        page.decodeMs = r.decodeMs;
        page.cache = { liveEntries: r.cache.liveEntries, bytes: r.cache.bytes };
        yield page;
      }
    } finally {
      disposeSession(session);
    }
  }

  /**
   * One pass per document. BOS + prompt once; per page: retire the previous page's visual range, extend this
   * page's, generate to <PAGE>. Page k+1 is rendered and encoded (encoder on its worker thread) while page k
   * decodes, so at most two pages of visual embeddings exist at once besides the text window.
   */
  private async *streaming(pages: DocumentPages, context: DecodeContext): AsyncIterable<DecodedPage> {
    const json = this.m.bundle.json;
    const pageToken = json.tokens.page!;
    const session: Session = this.m.engine.createSession({ attention: this.attention, focal: this.focal, recordFixations: !!this.fixations });
    const numbers = pages.pageNumbers;
    const prepare = (pageNumber: number): Promise<PreparedPixels | InputError> => {
      const timings = new Map<number, Record<string, number>>();
      return this.preparePages(pages, [pageNumber], timings).then(
        ([p]) => Object.assign(p!, { timings: timings.get(pageNumber)! }),
        // a page that cannot be read becomes an empty page with its reason; the document goes on
        (err: unknown) => {
          if (isInputError(err)) return err;
          throw err;
        },
      );
    };
    let next: Promise<PreparedPixels | InputError> | undefined = numbers.length ? prepare(numbers[0]!) : undefined;
    next?.catch(() => {});
    try {
      await session.prefill({ tokens: buildStreamingPrompt(this.m.tokenizer, json, promptFor(json, 1)).ids });
      let previous: [number, number] | undefined;
      // <PAGE> entries the driver appended after truncated pages: extended entries stay attended until retired,
      // so each is retired one page later (about when a generated <PAGE> would leave the text window)
      let closer: number | undefined;
      let oldCloser: number | undefined;
      for (let i = 0; i < numbers.length; i++) {
        const pageNumber = numbers[i]!;
        if (context.signal.aborted) return;
        const p = await next!;
        next = i + 1 < numbers.length ? prepare(numbers[i + 1]!) : undefined;
        next?.catch(() => {});
        if (p instanceof InputError) {
          yield await this.failedPage(pages, pageNumber, p.message);
          continue;
        }
        // a page is one view, or (line-unit models) one view per text line, each generated to its <PAGE>
        const views: DecodeView[] = p.views ?? [{ embeddings: p.embeddings }];
        let prefill = 0, decodeMs = 0, count = 0, truncated = false, runaway = false;
        const texts: string[] = [];
        const lineWarnings: string[] = [];
        for (const [index, view] of views.entries()) {
          const embeddings = view.embeddings;
          if (context.signal.aborted) break;
          if (previous) await session.retire(previous[0], previous[1]);
          if (oldCloser !== undefined) await session.retire(oldCloser, oldCloser + 1);
          oldCloser = closer;
          closer = undefined;
          let t = performance.now();
          const ext = await session.extend({ tokens: [], embeddings });
          previous = [ext.start, ext.start + ext.count];
          prefill += performance.now() - t;
          t = performance.now();
          // a line's Markdown is at most 2 tokens per recogniser slot + 24 (every aligned line of 2,000 validation
          // and 11,000 training lines is within 2 per slot + 10): a line still going there has run away
          const remaining = Math.max(1, this.maxTokens - count);
          const slots = view.slotX?.length; // line views only
          const lineCap = slots !== undefined ? Math.min(remaining, 2 * slots + 24) : remaining;
          const maxRun = view.text !== undefined && json.vision.lines?.letter_runs ? letterRunCaps(view.text, this.m.tokenizer) : undefined;
          const run = await this.generatePage(session, pageNumber, { maxTokens: lineCap, stopTokens: [pageToken, json.tokens.eos], noRepeat: this.noRepeat(1), maxRun }, context);
          decodeMs += performance.now() - t;
          if (this.fixations) this.recordFixations(this.fixations, pages.source, p, session, ext.start, view, index, count);
          const ended = run.reason === "stop";
          count += run.tokens.length;
          const decoded = this.m.tokenizer.decode(ended ? run.tokens.slice(0, -1) : run.tokens);
          const cut = run.reason === "length" && lineCap < remaining;
          // a line the decoder lost its place in reads as the recogniser read it, after the decoder's separator
          const line = cut && view.text !== undefined ? lineFallback(decoded, view.text) : decoded;
          // and stays on the recogniser's sure characters (src/app/faithful.ts)
          texts.push(p.views && json.vision.lines?.faithful ? faithfulLine(line, p.views, index, { source: pages.source, pageNumber }) : line);
          if (run.reason === "runaway") runaway = true;
          if (!ended) {
            if (cut) lineWarnings.push(`line ${index + 1} of page ${pageNumber} did not end within ${run.tokens.length} tokens: the recogniser's reading is used`);
            else if (run.reason !== "cancelled") truncated = true;
            // the view never ended: close it so the next one starts after a <PAGE>, as in training
            closer = (await session.extend({ tokens: [pageToken] })).start;
          }
          if (count >= this.maxTokens || run.reason === "cancelled") break;
        }
        // a line-unit page is its lines' Markdown (each carries its own separator), each line with its box
        const lines = p.views ? texts.map((markdown, k) => ({ box: p.views![k]!.box, markdown })) : undefined;
        const page = await this.page(pages, p, texts.join(""), count, truncated,
          { ...p.timings, prefill: round(prefill), decode: round(decodeMs) }, false, lines);
        if (runaway) {
          page.warnings = page.warnings.filter((w) => !w.includes("token limit"));
          page.warnings.push(`page ${pageNumber} was ended after ${count} tokens: the output kept repeating itself`);
        }
        page.warnings.push(...lineWarnings);
        page.decodeMs = decodeMs;
        const stats = session.stats();
        page.cache = { liveEntries: stats.liveEntries, bytes: stats.cacheBytes };
        yield page;
      }
    } finally {
      disposeSession(session);
    }
  }

  /** Greedy decoding with progress callbacks (reported against `pageNumber`) and the runaway rule. */
  private async generatePage(session: Session, pageNumber: number, options: GenerateOptions, context: DecodeContext):
    Promise<{ reason: "stop" | "length" | "cancelled" | "runaway"; tokens: number[] }> {
    const stream = session.generate(options);
    const onAbort = () => stream.cancel();
    context.signal.addEventListener("abort", onAbort, { once: true });
    const started = performance.now();
    const detector = new RunawayDetector();
    let count = 0;
    let runaway = false;
    try {
      for await (const token of stream) {
        count++;
        context.progress?.(pageNumber, count, performance.now() - started);
        if (!runaway && detector.push(token)) {
          runaway = true;
          stream.cancel();
        }
      }
      const result = await stream.result;
      if (runaway) return { reason: "runaway", tokens: result.tokens };
      return result;
    } finally {
      context.signal.removeEventListener("abort", onAbort);
    }
  }

  private async failedPage(pages: DocumentPages, pageNumber: number, message: string): Promise<DecodedPage> {
    const size = await pages.pixelSize(pageNumber).catch(() => ({ width: 0, height: 0, dpi: undefined }));
    return {
      pageNumber, width: size.width, height: size.height, dpi: size.dpi, markdown: "", blocks: [], tokenCount: 0, truncated: false,
      timings: {}, warnings: [`page ${pageNumber} has no text: ${message}`], error: message,
    };
  }

  /**
   * Logs where focal pruning looked while one view was read: kept cells of the view's grid, located on the
   * page (a line's slots along its box; a page grid's cells through the page's placement in the global view).
   */
  private recordFixations(log: FixationLog, source: string, p: PreparedPixels, session: Session, visualStart: number,
    view: DecodeView, index: number, firstStep: number): void {
    const vision = this.m.bundle.json.vision;
    const size: [number, number] = [p.width, p.height];
    if (view.box) {
      const b = view.box;
      const slotX = view.slotX!;
      const yc = (b.yMin + b.yMax) / 2 / p.height;
      // col 0 is the line's geometry token (drawn at the line's start), then one col per slot
      const locate = (_r: number, c: number): [number, number] | undefined =>
        c === 0 ? [b.xMin / p.width, yc] : c - 1 < slotX.length ? [slotX[c - 1]! / p.width, yc] : undefined;
      const box = [b.xMin, b.yMin, b.xMax, b.yMax].map((v) => Math.round(v)) as [number, number, number, number];
      log.page(source, p.pageNumber, session.takeFixations(), visualStart, view.grid!, vision.row_newline, { index, box, firstStep }, locate, size);
      return;
    }
    const mode = vision.modes[this.mode]!;
    const [rows, cols] = mode.grid;
    const c = p.content;
    // a global-view cell's centre, through the page's placement in the view (tiles are not located)
    const locate = c ? (r: number, col: number): [number, number] =>
      [((col + 0.5) * mode.size[0] / cols - c.x) / c.width, ((r + 0.5) * mode.size[1] / rows - c.y) / c.height] : undefined;
    log.page(source, p.pageNumber, session.takeFixations(), visualStart, mode.grid, vision.row_newline, undefined, locate, size);
  }

  /** Peak bytes of one document in flight (memory.ts): R-SWA's constant cache, two pages of pixels and embeddings. */
  bytesPerDocument(dpi: number): number {
    return bytesPerDocument(this.m.bundle.json, { ...this.options, lineUnit: !!this.m.lines }, dpi);
  }

  async close(): Promise<void> {
    await this.fixations?.close();
    await this.m.encoder?.close();
    await this.m.lines?.close();
  }
}

/**
 * A page from the model's text. Line-unit models give `lines` (each line's box and the Markdown written for it, in
 * reading order): blocks with roles and boxes grow from them (layout/page.ts). Otherwise the text is grounded
 * output: blocks with boxes in page pixels, Markdown cleaned of the tags, figure regions cropped from the page
 * pixels to PNGs under `figureDir` (relative to the Markdown file) and linked. Tables come out balanced either way.
 */
export async function decodedPageFromText(
  text: string,
  p: { pageNumber: number; width: number; height: number; dpi: number | undefined; pixels: PagePixels },
  o: { figureDir?: string; tokenCount: number; truncated: boolean; timings: Record<string, number>; missing?: boolean; maxTokens: number; lines?: PageLine[] },
): Promise<DecodedPage> {
  const dir = o.figureDir;
  const grounded = o.lines
    ? { ...layoutStage().assemble(o.lines, p), figures: [], warnings: [] }
    : parseGroundedPage(text, p.width, p.height, dir ? { figurePath: (n) => `${dir}/page-${p.pageNumber}-${n}.png` } : {});
  if (!o.lines) grounded.markdown = balanceTables(grounded.markdown);
  const warnings = [...grounded.warnings];
  const figures: { file: string; png: Uint8Array }[] = [];
  for (const f of grounded.figures) {
    const png = await cropRegionPng(p.pixels, f.bbox);
    if (png) figures.push({ file: f.path, png });
    else warnings.push(`figure ${f.index} on page ${p.pageNumber} has an empty box`);
  }
  if (o.missing) warnings.push(`the pass ended (token limit ${o.maxTokens} per page) before the model reached page ${p.pageNumber}`);
  else if (o.truncated) warnings.push(`page ${p.pageNumber} stopped at the token limit (${o.maxTokens}) before the model ended it`);
  return {
    pageNumber: p.pageNumber, width: p.width, height: p.height, dpi: p.dpi, markdown: grounded.markdown, blocks: grounded.blocks,
    tokenCount: o.tokenCount, truncated: o.truncated, timings: o.timings, warnings, ...(figures.length ? { figures } : {}), rawText: text,
    ...(o.lines ? { pageLines: o.lines } : {}),
  };
}

async function modelIdentity(bundle: Bundle): Promise<ModelIdentity> {
  const h = createHash("sha256");
  h.update(await readFile(bundle.modelJsonPath));
  for (const t of [...bundle.tensors.values()].sort((a, b) => a.name.localeCompare(b.name))) h.update(`${t.name}:${t.dtype}:${t.shape}:${t.byteLength};`);
  return { name: bundle.json.name, dir: bundle.dir, id: h.digest("hex").slice(0, 16) };
}

export async function createOcrDecoder(settings: RunSettings): Promise<PageDecoder> {
  const requested = settings.model.dir;
  const dir = requested ? resolveModelDir(requested) : defaultModelDir();
  if (!dir) throw new UsageError(`--model ${requested}: no such folder, and no pulled model of that name (see ocr models list)`);
  let bundle: Bundle;
  try {
    bundle = await loadBundle(dir);
  } catch (err) {
    if (err instanceof ModelFileError) throw new EnvironmentError(`no usable model: ${err.message}`, { cause: err });
    throw err;
  }
  const json = bundle.json;
  const options = resolveDecodeOptions(settings.model, json, bundle.dir);
  // a file the bundle names outside its folder is not part of the model that --resume and NAME.json identify
  const inside = path.relative(bundle.dir, bundle.encoderPath);
  if (inside.startsWith("..") || path.isAbsolute(inside))
    throw new EnvironmentError(`no usable model: ${bundle.modelJsonPath}: vision.encoder "${json.vision.encoder}" points outside the bundle folder`);
  // the tokenizer first: a broken one must stop the run before any thread or native session starts
  let tokenizer: Tokenizer;
  try {
    tokenizer = await Tokenizer.load(bundle.tokenizerPath);
  } catch (err) {
    throw new EnvironmentError(`no usable model: ${err instanceof ModelFileError ? err.message : `${bundle.tokenizerPath}: ${(err as Error).message}`}`, { cause: err });
  }
  let engine: Engine;
  try {
    engine = await Engine.load(bundle.dir, { threads: options.threads });
  } catch (err) {
    if (err instanceof EngineError) throw new EnvironmentError(err.message, { cause: err });
    throw err;
  }
  const encoderOptions = { threads: options.threads };
  let encoder: VisionEncoder | undefined;
  let lines: LineEncoder | undefined;
  try {
    if (json.vision.lines) lines = await LineEncoder.open(bundle.dir, json.vision.lines, bundle.encoderPath, encoderOptions);
    else encoder = await VisionEncoder.open(bundle.encoderPath, encoderOptions);
  } catch (err) {
    throw new EnvironmentError((err as Error).message, { cause: err });
  }
  const row = async (name: string) => (bundle.tensors.has(name) ? readTensorF32(bundle.tensors.get(name)!) : undefined);
  const loaded: Loaded = { bundle, tokenizer, engine, encoder, lines, newline: await row("model.image_newline"), separator: await row("model.view_seperator") };
  const fixations = options.fixationsFile ? new FixationLog(options.fixationsFile) : undefined;
  return new OcrDecoder(loaded, await modelIdentity(bundle), options, fixations);
}

registerDecoder(
  { name: "model", description: "the OCR model (vision encoder + native decoder)", create: createOcrDecoder },
  { replace: true },
);
