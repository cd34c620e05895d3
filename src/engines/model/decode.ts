// The "model" engine's decode loops: a bundle's encoder (onnxruntime) + native decoder, in the prefix layout
// (DeepSeek-OCR, Unlimited-OCR: a page per pass, or a whole document in one R-SWA pass) or the streaming layout
// (our default model). Loading is bundle.ts, page views views.ts, the page record page.ts, memory memory.ts.
import { availableParallelism } from "node:os";
import type { AttentionPolicy, FocalOptions, GenerateOptions, GenerateResult, NoRepeatRule, Session } from "../../native/index.js";
import { InputError, isInputError } from "../../input/index.js";
import type { PageLine } from "../../layout/page.js";
import { buildPrefixPrompt, buildStreamingPrompt, promptFor } from "../../model/prompt.js";
import { PAGE_SEPARATOR } from "../../output/grounding.js";
import {
  registerEngine,
  type DecodeContext,
  type DecodedPage,
  type DocumentPages,
  type ModelIdentity,
  type PageEngine,
} from "../engine.js";
import type { ModelOptions } from "../settings.js";
import { lineUnitBundle, loadModel, type LoadedModel } from "./bundle.js";
import { documentPass } from "./document-pass.js";
import {
  bannedScript,
  closingQuotes,
  copyrightSigns,
  emailAddresses,
  faithfulLine,
  fallbackReading,
  joinHyphenated,
  languageLetters,
  texLogos,
  typographicApostrophes,
  verticalLine,
} from "./faithful.js";
import { withLeader } from "../../vision/leaders.js";
import { restoreDecimalPoints } from "./numbers.js";
import { runnerUps } from "./words.js";
import { FixationLog } from "./fixations.js";
import { letterRunCaps, scriptBan } from "./letter-runs.js";
import { bytesPerDocument, viewEntries as visualEntries } from "./memory.js";
import type { DecodeOptions } from "./options.js";
import { decodedPageFromText, lineFallback } from "../page.js";
import { withFormulas } from "../../layout/formulas.js";
import { RunawayDetector } from "./runaway.js";
import { PageViews, round, type DecodeView, type PreparedPixels } from "./views.js";

/** Frees the KV cache now rather than at garbage collection. */
function disposeSession(session: Session): void {
  try {
    session.dispose();
  } catch {
    /* already disposed: garbage collection frees the rest */
  }
}

class ModelEngine implements PageEngine {
  readonly engine = "model";
  constructor(
    private readonly m: LoadedModel,
    readonly model: ModelIdentity,
    /** The decode options, resolved once from the request and the bundle (options.ts). */
    readonly options: DecodeOptions,
    /** --fixations: where focal pruning looked, per generated token (streaming layout). */
    private readonly fixations?: FixationLog,
  ) {
    this.views = new PageViews(m);
  }

  private readonly views: PageViews;

  /** A token's text, spelled once per token (words.ts runnerUps spells every token of every line). */
  private readonly spellings = new Map<number, string>();
  private readonly spell = (id: number): string => {
    let text = this.spellings.get(id);
    if (text === undefined) this.spellings.set(id, (text = this.m.tokenizer.decode([id])));
    return text;
  };

  /** Pages the streaming pass prepares at once: a line-unit model's lanes run one thread each, one per thread. */
  private get pagesAhead(): number {
    return this.m.lines ? Math.max(1, this.options.threads ?? availableParallelism()) : 1;
  }

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
    // model.json's `window` / `document_window` are the rule's look-back, not the R-SWA attention window
    const lookback = pagesInPass > 1 && rule.document_window ? rule.document_window : rule.window;
    return { n: rule.n, lookback, exempt: rule.exempt };
  }

  /** The page's record from its text (and, for line-unit models, its lines); `output` times the Markdown/blocks parse and figure crops. */
  private async page(
    pages: DocumentPages,
    p: PreparedPixels,
    text: string,
    tokenCount: number,
    truncated: boolean,
    timings: Record<string, number>,
    missing = false,
    lines?: PageLine[],
  ): Promise<DecodedPage> {
    const t = performance.now();
    const page = await decodedPageFromText(text, p, {
      figureDir: pages.figureDir,
      tokenCount,
      truncated,
      timings,
      missing,
      maxTokens: this.maxTokens,
      lines,
      pictures: p.pictures,
      rules: p.rules,
    });
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
      const [p] = await this.views.prepare(pages, [pageNumber], timings, this.mode);
      const prompt = buildPrefixPrompt(this.m.tokenizer, json, promptFor(json, 1), p!.count);
      const textIds = prompt.ids.filter((_, k) => k < prompt.visualStart || k >= prompt.visualStart + p!.count);
      const positions = Array.from({ length: p!.count }, (_, k) => prompt.visualStart + k);
      const session = this.m.decoder.createSession({ attention: this.attention, focal: this.focal });
      try {
        let t = performance.now();
        await session.prefill({ tokens: textIds, embeddings: p!.embeddings, embeddingPositions: positions });
        const prefill = performance.now() - t;
        t = performance.now();
        const result = await this.generatePage(
          session,
          pageNumber,
          { maxTokens: this.maxTokens, stopTokens: [json.tokens.eos], noRepeat: this.noRepeat(1) },
          context,
        );
        const decode = performance.now() - t;
        const ended = result.reason === "stop";
        if (result.reason === "runaway")
          context.warn(`page ${pageNumber} was ended after ${result.tokens.length} tokens: the output kept repeating itself`);
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

  /** One R-SWA pass over the whole document (src/engines/model/document-pass.ts); page k+1 is prepared while page k decodes. */
  private async *documentPass(pages: DocumentPages, numbers: number[], context: DecodeContext): AsyncIterable<DecodedPage> {
    const json = this.m.bundle.json;
    const hidden = json.decoder.hidden_size;
    // pages are prepared one ahead of the page being decoded and dropped once yielded
    const prepared = new Map<number, Promise<PreparedPixels | InputError>>();
    const timings = new Map<number, Record<string, number>>();
    const prepare = (i: number) => {
      if (i < numbers.length && !prepared.has(i)) {
        const p = this.views.prepare(pages, [numbers[i]!], timings, this.options.documentMode).then(
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
    const session = this.m.decoder.createSession({ attention: this.attention, focal: this.focal });
    let current = -1;
    let started = performance.now();
    try {
      const pass = documentPass(
        session,
        numbers.length,
        view,
        {
          prompt: { ids, visualStart: prompt.visualStart },
          text: this.m.tokenizer,
          marker: PAGE_SEPARATOR,
          eos: json.tokens.eos,
          maxTokens: this.maxTokens,
          noRepeat: this.noRepeat(numbers.length),
          signal: context.signal,
          progress: (i, n) => {
            if (i !== current) [current, started] = [i, performance.now()];
            context.progress?.(numbers[i]!, n, performance.now() - started);
          },
        },
        hidden,
      );
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
    const session: Session = this.m.decoder.createSession({
      attention: this.attention,
      focal: this.focal,
      recordFixations: !!this.fixations,
    });
    const numbers = pages.pageNumbers;
    const prepare = (pageNumber: number): Promise<PreparedPixels | InputError> => {
      const timings = new Map<number, Record<string, number>>();
      return this.views.prepare(pages, [pageNumber], timings, this.mode).then(
        ([p]) => Object.assign(p!, { timings: timings.get(pageNumber)! }),
        // a page that cannot be read becomes an empty page with its reason; the document goes on
        (err: unknown) => {
          if (isInputError(err)) return err;
          throw err;
        },
      );
    };
    // pages prepared ahead of the one being decoded: one, or (line-unit models) one per thread, each on its own
    // lane of vision sessions, so a document's pages keep every core busy
    const queue: Promise<PreparedPixels | InputError>[] = [];
    let issued = 0;
    const fill = () => {
      while (issued < numbers.length && queue.length < this.pagesAhead) {
        const p = prepare(numbers[issued++]!);
        p.catch(() => {});
        queue.push(p);
      }
    };
    fill();
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
        const p = await queue.shift()!;
        fill();
        if (p instanceof InputError) {
          yield await this.failedPage(pages, pageNumber, p.message);
          continue;
        }
        // a page is one view, or (line-unit models) one view per text line, each generated to its <PAGE>
        const views: DecodeView[] = p.views ?? [{ embeddings: p.embeddings }];
        let prefill = 0,
          decodeMs = 0,
          count = 0,
          truncated = false,
          runaway = false;
        const texts: string[] = [];
        // (the decoder's own Markdown of each line, before the merge: languageLetters takes its words back where the
        // merge spelled them as no word of the language)
        const decodedTexts: string[] = [];
        // (…and, by offset in it, the letters the decoder ranked next to each of its letters)
        const alternatives: ReadonlyMap<number, string>[] = [];
        const lineWarnings: string[] = [];
        const faithfulPage = !!p.views && !!json.vision.lines?.faithful;
        for (const [index, view] of views.entries()) {
          if (context.signal.aborted) break;
          // letters of a script the line does not use are never written (src/engines/model/faithful.ts bannedScript)
          const script = p.views && faithfulPage && json.vision.lines!.script_bans ? bannedScript(p.views, index) : undefined;
          const ban = script ? scriptBan(this.m.tokenizer, script, view.text ?? "") : undefined;
          // a line of more slots than the projector takes is read in parts (vision/lines.ts lineParts), each part
          // after the first continuing the line: its separator is a space, given, not generated
          const pieces: DecodeView[] = view.parts ?? [view];
          let kept = "",
            decodedLine = "";
          const lineAlternatives = new Map<number, string>();
          for (const [part, piece] of pieces.entries()) {
            if (part > 0 && (context.signal.aborted || count >= this.maxTokens)) break;
            if (previous) await session.retire(previous[0], previous[1]);
            if (oldCloser !== undefined) await session.retire(oldCloser, oldCloser + 1);
            oldCloser = closer;
            closer = undefined;
            let t = performance.now();
            const ext = await session.extend({ tokens: [], embeddings: piece.embeddings });
            previous = [ext.start, ext.start + ext.count];
            if (part > 0) await session.extend({ tokens: this.m.tokenizer.encode(" ") });
            prefill += performance.now() - t;
            t = performance.now();
            // a line's Markdown is at most 2 tokens per recogniser slot + 24 (every aligned line of 2,000 validation
            // and 11,000 training lines is within 2 per slot + 10): a line still going there has run away
            const remaining = Math.max(1, this.maxTokens - count);
            const slots = piece.slotX?.length; // line views only
            const lineCap = slots !== undefined ? Math.min(remaining, 2 * slots + 24) : remaining;
            const maxRun =
              piece.text !== undefined && json.vision.lines?.letter_runs ? letterRunCaps(piece.text, this.m.tokenizer) : undefined;
            const run = await this.generatePage(
              session,
              pageNumber,
              {
                maxTokens: lineCap,
                stopTokens: [pageToken, json.tokens.eos],
                noRepeat: this.noRepeat(1),
                maxRun,
                ban,
                alternatives: faithfulPage,
              },
              context,
            );
            decodeMs += performance.now() - t;
            if (this.fixations) this.recordFixations(this.fixations, pages.source, p, session, ext.start, piece, index, count);
            const pieceEnded = run.reason === "stop";
            count += run.tokens.length;
            // (a part after the first opens with the space it was given)
            const decoded = (part > 0 ? " " : "") + this.m.tokenizer.decode(pieceEnded ? run.tokens.slice(0, -1) : run.tokens);
            const cut = run.reason === "length" && lineCap < remaining;
            // a line the decoder lost its place in reads as the recogniser read it, after the decoder's separator
            // (on a Cyrillic page, its look-alikes as the Cyrillic letters they stand for: faithful.ts fallbackReading)
            const own = piece === view ? undefined : piece;
            const fallback = faithfulPage ? fallbackReading(p.views!, index, own) : piece.text;
            const line = cut && fallback !== undefined ? lineFallback(decoded, fallback) : decoded;
            // the letters the decoder ranked next to each it wrote, where it wrote the line itself (words.ts nearestWord)
            if (run.alternatives && line === decoded)
              runnerUps(
                run.tokens,
                decoded.slice(part > 0 ? 1 : 0),
                run.alternatives,
                this.spell,
                decodedLine.length + (part > 0 ? 1 : 0),
                lineAlternatives,
              );
            decodedLine += line;
            // and stays on the recogniser's sure characters (src/engines/model/faithful.ts)
            kept += faithfulPage
              ? faithfulLine(line, p.views!, index, { source: pages.source, pageNumber }, own && { evidence: own, index: part })
              : line;
            if (run.reason === "runaway") runaway = true;
            if (!pieceEnded) {
              if (cut)
                lineWarnings.push(
                  `line ${index + 1} of page ${pageNumber} did not end within ${run.tokens.length} tokens: the recogniser's reading is used`,
                );
              else if (run.reason !== "cancelled") truncated = true;
              // the view never ended: close it so the next one starts after a <PAGE>, as in training
              closer = (await session.extend({ tokens: [pageToken] })).start;
            }
            if (run.reason === "cancelled" || (!pieceEnded && !cut)) break;
          }
          // (a line set vertically is no heading)
          const upright = view.box?.turn ? verticalLine(kept) : kept;
          // (a table of contents' dot leader, found in the pixels right of the line, follows its text)
          const faithful = view.box?.leader ? withLeader(upright, view.box.leader) : upright;
          // …and a word hyphenated across the line break stays one word
          if (index > 0 && p.views && texts.length) {
            const [previous, joined] = joinHyphenated(texts[texts.length - 1]!, p.views[index - 1]?.text, faithful);
            texts[texts.length - 1] = previous;
            texts.push(joined);
          } else texts.push(faithful);
          decodedTexts.push(decodedLine);
          alternatives.push(lineAlternatives);
          if (count >= this.maxTokens || context.signal.aborted) break;
        }
        // decimal points too faint to read come back where the page's own numbers show its format (numbers.ts); a
        // page's apostrophes inside words are of one kind, a quote opened by “ closes with ”, a page's letters are its
        // language's, an e-mail address holds no space, and TeX's logo "TEX" is as its type sets it (faithful.ts)
        const read = p.views
          ? texLogos(
              languageLetters(
                copyrightSigns(emailAddresses(closingQuotes(typographicApostrophes(restoreDecimalPoints(texts))))),
                this.m.words,
                p.views.map((v) => v.text),
                decodedTexts,
                alternatives,
              ),
            )
          : texts;
        // a line-unit page is its lines' Markdown (each carries its own separator), each line with its box
        const written = p.views ? read.map((markdown, k) => ({ box: p.views![k]!.box, markdown })) : undefined;
        // display formulas the formula reader wrote as LaTeX take the place of their lines (layout/formulas.ts)
        const formulas = (p.formulas ?? []).filter((f) => [...f.members, f.tag?.line ?? 0].every((k) => k < read.length));
        const lines = written && formulas.length ? withFormulas(written, formulas) : written;
        const page = await this.page(
          pages,
          p,
          read.join(""),
          count,
          truncated,
          { ...p.timings, prefill: round(prefill), decode: round(decodeMs) },
          false,
          lines,
        );
        if (runaway) {
          page.warnings = page.warnings.filter((w) => !w.includes("token limit"));
          page.warnings.push(`page ${pageNumber} was ended after ${count} tokens: the output kept repeating itself`);
        }
        page.warnings.push(...lineWarnings);
        for (const f of formulas)
          if (!f.sure)
            page.warnings.push(
              `a formula on page ${pageNumber} (at ${Math.floor(f.box.xMin)},${Math.floor(f.box.yMin)}) is written as its text: the formula reader is unsure of its LaTeX`,
            );
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
  private async generatePage(
    session: Session,
    pageNumber: number,
    options: GenerateOptions,
    context: DecodeContext,
  ): Promise<{ reason: "stop" | "length" | "cancelled" | "runaway"; tokens: number[]; alternatives?: GenerateResult["alternatives"] }> {
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
      if (runaway) return { reason: "runaway", tokens: result.tokens, alternatives: result.alternatives };
      return result;
    } finally {
      context.signal.removeEventListener("abort", onAbort);
    }
  }

  private async failedPage(pages: DocumentPages, pageNumber: number, message: string): Promise<DecodedPage> {
    const size = await pages.pixelSize(pageNumber).catch(() => ({ width: 0, height: 0, dpi: undefined }));
    return {
      pageNumber,
      width: size.width,
      height: size.height,
      dpi: size.dpi,
      markdown: "",
      blocks: [],
      tokenCount: 0,
      truncated: false,
      timings: {},
      warnings: [`page ${pageNumber} has no text: ${message}`],
      error: message,
    };
  }

  /**
   * Logs where focal pruning looked while one view was read: kept cells of the view's grid, located on the
   * page (a line's slots along its box; a page grid's cells through the page's placement in the global view).
   */
  private recordFixations(
    log: FixationLog,
    source: string,
    p: PreparedPixels,
    session: Session,
    visualStart: number,
    view: DecodeView,
    index: number,
    firstStep: number,
  ): void {
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
      log.page(
        source,
        p.pageNumber,
        session.takeFixations(),
        visualStart,
        view.grid!,
        vision.row_newline,
        { index, box, firstStep },
        locate,
        size,
      );
      return;
    }
    const mode = vision.modes[this.mode]!;
    const [rows, cols] = mode.grid;
    const c = p.content;
    // a global-view cell's centre, through the page's placement in the view (tiles are not located)
    const locate = c
      ? (r: number, col: number): [number, number] => [
          (((col + 0.5) * mode.size[0]) / cols - c.x) / c.width,
          (((r + 0.5) * mode.size[1]) / rows - c.y) / c.height,
        ]
      : undefined;
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

/** The "model" engine: the bundle loaded once, then its decoder. */
export async function createModelEngine(settings: { model: ModelOptions }): Promise<PageEngine> {
  const { loaded, identity, options } = await loadModel(settings);
  const fixations = options.fixationsFile ? new FixationLog(options.fixationsFile) : undefined;
  return new ModelEngine(loaded, identity, options, fixations);
}

registerEngine(
  {
    name: "model",
    description: "the OCR model (vision encoder + native decoder)",
    create: createModelEngine,
    readsDocumentsAtOnce: lineUnitBundle,
  },
  { replace: true },
);
