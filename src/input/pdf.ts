// PDF back end: pdfjs-dist (legacy Node build) with its own @napi-rs/canvas, run on a worker thread so a
// runaway document (a content stream nested 100,000 deep, a decompression bomb) is stopped by its time or
// memory budget and the batch goes on; the only importer of pdfjs (through the worker).
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { InputError } from "./errors.js";
import { PDF_WORKER_SOURCE, type PdfFailure, type PdfRequest } from "./pdf-worker.js";
import { DEFAULT_DPI, DEFAULT_MAX_PIXELS, pdfRasterSize, rgbaToRgb, type RasterPage, type RenderOptions } from "./raster.js";
import type { DocumentMetadata, OpenedDocument, PageSize, PageText, TextRun } from "./types.js";

/**
 * Folders inside the pdfjs-dist package. Without them non-embedded fonts (the 14 standard
 * fonts), CJK cMaps, JPEG2000/JBIG2 (wasm) and ICC colour all render wrong or not at all.
 */
function packageFolders(): { standardFontDataUrl: string; cMapUrl: string; wasmUrl: string; iccUrl: string } {
  const root = path.dirname(require.resolve("pdfjs-dist/package.json"));
  // pdfjs' Node factories read these with fs, so plain paths with a trailing slash work.
  const folder = (name: string) => path.join(root, name) + path.sep;
  return {
    standardFontDataUrl: folder("standard_fonts"),
    cMapUrl: folder("cmaps"),
    wasmUrl: folder("wasm"),
    iccUrl: folder("iccs"),
  };
}

const require = createRequire(import.meta.url);
let folders: ReturnType<typeof packageFolders> | undefined;

/**
 * Pages rendered between two drops of the document's caches. pdfjs keeps every font and image it decoded
 * for the document's lifetime: over 100 pages that each bring their own fonts, a render-only pass grew
 * 200 -> 257 MiB; dropping the caches every 10 pages kept it at 175-212 MiB, at no measurable cost per page
 * (fonts that later pages use again are parsed again).
 */
export const PDF_CACHE_PAGES = 8;

/** Default time one step of a PDF (opening it, loading, rendering or reading the text of one page) may take. */
export const DEFAULT_PAGE_TIMEOUT_MS = 60_000;

/**
 * JavaScript heap one PDF's parser may use (the worker's old generation); a document that needs more is
 * stopped with RESOURCE_LIMIT. The largest normal documents here stay under 300 MiB.
 */
export const PDF_HEAP_MB = 2048;

/** pdfjs PasswordResponses codes. */
const NEED_PASSWORD = 1;
const INCORRECT_PASSWORD = 2;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: PdfFailure;
  notes: string[];
  dropped?: boolean;
}

/** One worker thread hosting pdfjs; it serves one document at a time and is reused by the next one. */
class PdfWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending & { onReply?: (r: Reply) => void }>();
  private nextId = 1;
  /** Set once the worker is stopped or died: every later request fails with it. */
  failure: Error | undefined;

  constructor() {
    alive++;
    this.worker = new Worker(PDF_WORKER_SOURCE, {
      eval: true,
      workerData: { pdfjsPath: require.resolve("pdfjs-dist/legacy/build/pdf.mjs"), verbose: !!process.env.OCR_PDFJS_VERBOSE },
      // a deep but legitimate nesting needs stack; a runaway one is stopped by the heap limit or the timer
      resourceLimits: { maxOldGenerationSizeMb: PDF_HEAP_MB, stackSizeMb: 16 },
      stderr: false,
      // pdfjs's Node build loads @napi-rs/canvas, which registers every system font at load (~0.6 s of CPU and
      // 58 MiB with ~700 font files); pdfjs draws glyphs from the PDF's own fonts or its standard_fonts and never
      // asks the canvas for a system font (44 real pages render to the same bytes without them), so the worker
      // skips that load unless the environment says otherwise
      env: { ...process.env, DISABLE_SYSTEM_FONTS_LOAD: process.env.DISABLE_SYSTEM_FONTS_LOAD ?? "1" },
    });
    this.worker.on("message", (r: Reply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      p.onReply?.(r);
      if (r.ok) p.resolve(r.result);
      else p.reject(r.error);
    });
    this.worker.on("error", (error: NodeJS.ErrnoException) => {
      this.fail(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new PdfBudgetError("RESOURCE_LIMIT", `the PDF parser needed more than its ${PDF_HEAP_MB} MiB memory budget`)
          : new PdfBudgetError("CORRUPT_PDF", `the PDF parser failed: ${error.message}`),
      );
    });
    this.worker.on("exit", (code) => {
      alive--;
      this.fail(new PdfBudgetError("CORRUPT_PDF", `the PDF parser stopped (exit code ${code})`));
    });
  }

  request(message: PdfRequest, transfer: ArrayBuffer[] = [], onReply?: (r: Reply) => void): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onReply });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Stops the thread at once (a synchronous loop in pdfjs included); pending requests fail with `error`. */
  stop(error: Error): void {
    this.fail(error);
    void this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
  }

  ref(): void {
    this.worker.ref();
  }

  unref(): void {
    this.worker.unref();
  }
}

/** A budget or worker failure, turned into an InputError naming the document where it surfaces. */
class PdfBudgetError extends Error {
  constructor(
    readonly code: "TIMEOUT" | "RESOURCE_LIMIT" | "CORRUPT_PDF" | "INTERRUPTED",
    message: string,
  ) {
    super(message);
  }
}

/** Workers between documents: a warm one saves the thread start and pdfjs' import (~100 ms) per document. */
const idle: PdfWorker[] = [];
const IDLE_WORKERS = 4;
/** PDF documents the run will still open (expectPdfDocuments); a worker is kept idle only for one of them. */
let pdfsToCome = Number.POSITIVE_INFINITY;
/** Worker threads alive (tests read it through pdfWorkersAlive). */
let alive = 0;

/**
 * How many PDF documents are still to be opened (a batch knows its list): a worker that a document gives back is kept
 * for the next only while one is to come, and stopped otherwise, so its memory (pdfjs, the page's drawing) goes
 * before the last document's pages are read. Unset, workers are kept (a server opens documents as they come).
 */
export function expectPdfDocuments(count: number): void {
  pdfsToCome = count;
}

/** PDF worker threads alive now (for tests). */
export function pdfWorkersAlive(): number {
  return alive;
}

function acquireWorker(): PdfWorker {
  const worker = idle.pop() ?? new PdfWorker();
  worker.ref();
  return worker;
}

function releaseWorker(worker: PdfWorker): void {
  if (worker.failure || worker.busy || idle.length >= Math.min(IDLE_WORKERS, pdfsToCome)) {
    worker.stop(new PdfBudgetError("INTERRUPTED", "closed"));
    return;
  }
  worker.unref();
  idle.push(worker);
}

/**
 * Starts a PDF worker and loads pdfjs in it ahead of the first document (the run calls this while the
 * model loads), so the first PDF does not wait for either.
 */
export function warmPdfWorker(): void {
  if (idle.length > 0 || pdfsToCome <= 0) return;
  const worker = new PdfWorker();
  worker.unref();
  idle.push(worker);
  void worker.request({ op: "load" }).catch(() => {});
}

/** Stops every idle PDF worker (the end of a run; idle ones never hold the process open either way), and forgets
 * the run's expectPdfDocuments. */
export async function closePdfWorkers(): Promise<void> {
  pdfsToCome = Number.POSITIVE_INFINITY;
  for (const worker of idle.splice(0)) worker.stop(new PdfBudgetError("INTERRUPTED", "closed"));
}

export interface PdfOpenOptions {
  password?: string;
  /** Time budget of each step (open, one page's load, render or text); default DEFAULT_PAGE_TIMEOUT_MS. */
  pageTimeoutMs?: number;
  /** Aborting stops the document's parser at once; its pending steps fail with INTERRUPTED. */
  signal?: AbortSignal;
}

export async function openPdf(bytes: Uint8Array, source: string, passwordOrOptions?: string | PdfOpenOptions): Promise<OpenedDocument> {
  const options = typeof passwordOrOptions === "string" ? { password: passwordOrOptions } : (passwordOrOptions ?? {});
  folders ??= packageFolders();
  if (Number.isFinite(pdfsToCome)) pdfsToCome = Math.max(0, pdfsToCome - 1);
  const doc = new PdfDocument(acquireWorker(), source, options, bytes);
  try {
    doc.pageCount = await doc.open();
  } catch (error) {
    await doc.close();
    throw error;
  }
  return doc;
}

function translateOpenError(error: PdfFailure, source: string, password?: string): InputError {
  if (error?.name === "PasswordException") {
    if (error.code === INCORRECT_PASSWORD || (error.code === NEED_PASSWORD && password)) {
      return new InputError("PASSWORD_WRONG", "encrypted PDF: the password given is wrong", source, { cause: error });
    }
    return new InputError("PASSWORD_REQUIRED", "encrypted PDF: a password is required (use --password)", source, {
      cause: error,
    });
  }
  const detail = error?.message ? `: ${error.message}` : "";
  return new InputError("CORRUPT_PDF", `corrupt or truncated PDF${detail}`, source, { cause: error });
}

interface TextItem {
  str: string;
  m: number[];
  width: number;
  fontName: string;
  fontFamily: string;
  ascent: number | undefined;
  descent: number | undefined;
  hasEOL: boolean;
  dir: string;
}

class PdfDocument implements OpenedDocument {
  readonly kind = "pdf" as const;
  pageCount = 0;
  private rendered = 0;
  /** Times pdfjs' caches were dropped (PDF_CACHE_PAGES); tests read it. */
  cacheDrops = 0;
  /** Times the document was opened again after release(); tests read it. */
  reopens = 0;
  private closed = false;
  /** The worker was given back (release); the next step opens the document again. */
  private released = false;
  private reopening: Promise<void> | undefined;
  /** The password the document opens with (none where a --password was given but it needs none). */
  private password: string | undefined;
  /** Page sizes read so far: they need no parser after release. */
  private readonly sizes = new Map<number, PageSize>();
  private readonly timeoutMs: number;
  private readonly onAbort = () => this.worker.stop(new PdfBudgetError("INTERRUPTED", "interrupted"));

  constructor(
    private worker: PdfWorker,
    readonly source: string,
    private readonly options: PdfOpenOptions,
    /** the caller's bytes, not copied: each opening sends the worker a copy of its own */
    private readonly bytes: Uint8Array,
  ) {
    this.timeoutMs = options.pageTimeoutMs ?? DEFAULT_PAGE_TIMEOUT_MS;
    this.password = options.password;
    if (options.signal?.aborted) this.onAbort();
    options.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Loads pdfjs in the worker and opens the document there: its page count. */
  async open(): Promise<number> {
    // the worker takes the copy (transferred); the caller keeps its bytes
    const data = new Uint8Array(this.bytes);
    const paths = (folders ??= packageFolders());
    try {
      // the thread's start and pdfjs' import are not the document's time: they come before its budget starts
      await this.send({ op: "load" }, "starting the PDF parser", [], undefined, false);
      const opened = (await this.send({ op: "open", data, password: this.password, folders: paths }, "opening", [data.buffer])) as {
        pageCount: number;
      };
      return opened.pageCount;
    } catch (error) {
      const failure = error as PdfFailure;
      // a PDF with only an owner password opens without one: a --password meant for other documents of the
      // batch must not make it fail as "wrong password"
      if (!(error instanceof InputError) && failure?.name === "PasswordException" && this.password) {
        try {
          const copy = new Uint8Array(this.bytes);
          const opened = (await this.send({ op: "open", data: copy, folders: paths }, "opening", [copy.buffer])) as { pageCount: number };
          this.password = undefined;
          return opened.pageCount;
        } catch {
          // needs a password after all: the given one is wrong
        }
      }
      throw error instanceof InputError ? error : translateOpenError(failure, this.source, this.options.password);
    }
  }

  /**
   * Gives the worker back (to the next document, or stopped where none is to come: expectPdfDocuments) once the
   * caller has rendered what it reads; the next step opens the document again in a worker.
   */
  async release(): Promise<void> {
    if (this.closed || this.released || this.reopening || this.worker.failure || this.worker.busy) return;
    this.released = true;
    try {
      await this.send({ op: "close" }, "closing");
    } catch {
      // a worker that failed to close is stopped by releaseWorker
    }
    releaseWorker(this.worker);
  }

  /** Opens the document again after release(), once however many steps ask at the same time. */
  private async ensureOpen(): Promise<void> {
    if (!this.released && !this.reopening) return;
    this.reopening ??= (async () => {
      this.worker = acquireWorker();
      this.released = false;
      this.rendered = 0;
      this.reopens++;
      await this.open();
    })().finally(() => {
      this.reopening = undefined;
    });
    await this.reopening;
  }

  /** A step of the document (opening it again first where it was released). */
  async call(message: PdfRequest, what: string, transfer: ArrayBuffer[] = [], onReply?: (r: Reply) => void): Promise<unknown> {
    if (this.closed) throw new InputError("CORRUPT_PDF", `${what}: the document is closed`, this.source);
    await this.ensureOpen();
    return this.send(message, what, transfer, onReply);
  }

  /**
   * Sends one step to the worker under the time budget. A step over budget stops the worker: pdfjs may be in a
   * synchronous loop that nothing else can interrupt; the document fails with TIMEOUT, later steps with it too.
   * Untimed (`timed` false): starting the parser, which is not the document's time.
   */
  private async send(
    message: PdfRequest,
    what: string,
    transfer: ArrayBuffer[] = [],
    onReply?: (r: Reply) => void,
    timed = true,
  ): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const racers: Promise<unknown>[] = [this.worker.request(message, transfer, onReply)];
    if (timed) {
      const seconds = Math.round(this.timeoutMs / 100) / 10;
      racers.push(
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const error = new PdfBudgetError(
              "TIMEOUT",
              `${what} took longer than the ${seconds} s budget (--page-timeout); the document was stopped`,
            );
            this.worker.stop(error);
            reject(error);
          }, this.timeoutMs);
        }),
      );
    }
    try {
      return await Promise.race(racers);
    } catch (error) {
      if (error instanceof PdfBudgetError) throw new InputError(error.code, error.message, this.source, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private check(pageNumber: number): void {
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > this.pageCount) {
      throw new InputError("PAGE_RANGE", `page ${pageNumber} does not exist (document has ${this.pageCount})`, this.source);
    }
  }

  /** Turns a failure reported by the worker into the InputError the in-thread back end threw. */
  private pageError(error: unknown, pageNumber: number): never {
    if (error instanceof InputError) throw error;
    const e = error as PdfFailure;
    if (e?.stage === "render") {
      throw new InputError("RENDER_FAILED", `page ${pageNumber} failed to render: ${e.message}`, this.source, { cause: error });
    }
    if (e?.stage === "text") {
      throw new InputError("CORRUPT_PDF", `page ${pageNumber} text cannot be read: ${e.message}`, this.source, { cause: error });
    }
    throw new InputError("CORRUPT_PDF", `page ${pageNumber} cannot be read: ${e?.message}`, this.source, { cause: error });
  }

  async pageSize(pageNumber: number): Promise<PageSize> {
    this.check(pageNumber);
    const known = this.sizes.get(pageNumber);
    if (known) return known;
    try {
      const size = (await this.call({ op: "size", page: pageNumber }, `page ${pageNumber}`)) as { width: number; height: number };
      const measured = { ...size, unit: "pt" as const };
      this.sizes.set(pageNumber, measured);
      return measured;
    } catch (error) {
      this.pageError(error, pageNumber);
    }
  }

  async renderPage(pageNumber: number, options: RenderOptions = {}): Promise<RasterPage> {
    const unit = await this.pageSize(pageNumber);
    const dpi = options.dpi ?? DEFAULT_DPI;
    const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
    const warnings: string[] = [];
    const { width, height, scale, capped, wanted } = pdfRasterSize(unit.width, unit.height, dpi, maxPixels);
    if (capped) {
      warnings.push(
        `page ${pageNumber} at ${dpi} DPI would be ${wanted.width}x${wanted.height} pixels, over the pixel cap; ` +
          `rendered at ${Math.floor(scale * 72)} DPI (${width}x${height}) instead`,
      );
    }
    // Memory must not grow with the page count (PDF_CACHE_PAGES). pdfjs refuses while another page of this
    // document is rendering; then the next page tries again.
    const dropCaches = ++this.rendered >= PDF_CACHE_PAGES;
    let notes: string[] = [];
    try {
      const { rgba } = (await this.call(
        { op: "render", page: pageNumber, width, height, scale, dropCaches },
        `page ${pageNumber}`,
        [],
        (reply) => {
          notes = reply.notes;
          if (reply.dropped) {
            this.rendered = 0;
            this.cacheDrops++;
          }
        },
      )) as { rgba: Uint8Array };
      warnings.push(...skippedContent(pageNumber, notes));
      return { width, height, channels: 3, data: rgbaToRgb(rgba, width, height), dpi: scale * 72, scale, warnings };
    } catch (error) {
      this.pageError(error, pageNumber);
    }
  }

  async textContent(pageNumber: number): Promise<PageText> {
    this.check(pageNumber);
    let content: { width: number; height: number; items: TextItem[] };
    let notes: string[] = [];
    try {
      content = (await this.call({ op: "text", page: pageNumber }, `page ${pageNumber}`, [], (r) => (notes = r.notes))) as typeof content;
    } catch (error) {
      this.pageError(error, pageNumber);
    }
    const runs: TextRun[] = [];
    for (const item of content.items) {
      // Text space → viewport (top-left origin, page rotation applied), done by the worker.
      const m = item.m;
      const fontSize = Math.hypot(m[2]!, m[3]!);
      runs.push({
        text: item.str,
        x: m[4]!,
        baseline: m[5]!,
        width: item.width,
        fontSize,
        fontName: item.fontName,
        fontFamily: item.fontFamily ?? "",
        // pdfjs reports 0/0 or absurd values for fonts without metrics; keep only plausible ones.
        ascent: item.ascent !== undefined && item.ascent > 0.3 && item.ascent < 1.5 ? item.ascent : undefined,
        descent: item.descent !== undefined && item.descent < 0 && item.descent > -1 ? item.descent : undefined,
        endOfLine: item.hasEOL,
        direction: item.dir,
      });
    }
    const warnings = skippedContent(pageNumber, notes);
    return { width: content.width, height: content.height, runs, ...(warnings.length ? { warnings } : {}) };
  }

  async metadata(): Promise<DocumentMetadata> {
    return (await this.call({ op: "metadata" }, "reading the metadata")) as DocumentMetadata;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.signal?.removeEventListener("abort", this.onAbort);
    await this.reopening?.catch(() => {});
    if (this.released) return;
    if (!this.worker.failure) {
      try {
        await this.send({ op: "close" }, "closing");
      } catch {
        // a worker that failed to close is stopped below
      }
    }
    releaseWorker(this.worker);
  }
}

/** What pdfjs skipped on a page because it nested too deep: the page's content may be incomplete. */
function skippedContent(pageNumber: number, notes: string[]): string[] {
  if (notes.length === 0) return [];
  return [
    `page ${pageNumber}: part of the page nests too deep to read (${notes.length} place${notes.length > 1 ? "s" : ""}: ` +
      `${notes[0]!.slice(0, 120)}); its text may be incomplete`,
  ];
}
