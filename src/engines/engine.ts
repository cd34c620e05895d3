// The page-engine seam: engines (text layer, OCR model, OCR server) turn a document's pages into Markdown + blocks.
import type { DocumentKind, PageText, RasterPage } from "../input/index.js";
import type { PageLine } from "../layout/page.js";
import type { Block } from "../output/schema.js";
import type { EngineSettings } from "./settings.js";

/** What an engine may read of one document: selected pages, rendered on demand at the run's DPI. */
export interface DocumentPages {
  /** Path as given (or "-" for stdin). */
  readonly source: string;
  readonly kind: DocumentKind;
  readonly pageCount: number;
  /** 1-based page numbers selected by --pages, ascending. */
  readonly pageNumbers: readonly number[];
  /** Renders at the run's DPI and pixel cap; the app records any cap warnings. */
  render(pageNumber: number): Promise<RasterPage>;
  /** Pixel size a page has (or will have) when rendered; the space block boxes are given in. */
  pixelSize(pageNumber: number): Promise<{ width: number; height: number; dpi: number | undefined }>;
  /** The PDF's text layer, or undefined for images. */
  textContent(pageNumber: number): Promise<PageText | undefined>;
  /** Folder, relative to the Markdown file, that figure crops go to; undefined when no files are written. */
  readonly figureDir?: string;
}

/** One decoded page. Boxes are in the page's pixel space (width × height). */
export interface DecodedPage {
  pageNumber: number;
  width: number;
  height: number;
  dpi: number | undefined;
  markdown: string;
  blocks: Block[];
  /** Tokens the model generated for this page (0 for engines without tokens). */
  tokenCount: number;
  /** True when decoding stopped at --max-tokens (or the model's limit) before the page ended. */
  truncated: boolean;
  /** Milliseconds per stage, e.g. { render, encode, decode }. */
  timings: Record<string, number>;
  warnings: string[];
  /** Figure crops the Markdown links to, each at `file` relative to the Markdown file's folder. */
  figures?: { file: string; png: Uint8Array }[];
  /** Why the page has no text (it could not be rendered or encoded); the other pages go on. */
  error?: string;
  /** Milliseconds spent generating tokens (for tokens/s); absent for engines without tokens. */
  decodeMs?: number;
  /** The model's text before grounding tags were parsed out (what `ocr serve` answers with). */
  rawText?: string;
  /** Line-unit models: each line's box and the Markdown written for it, from which the blocks were built (what
   * `ocr serve` sends along so that a client builds the same blocks). */
  pageLines?: PageLine[];
  /** Decoder KV cache after the page: entries attended and bytes allocated (shows retirement at work). */
  cache?: { liveEntries: number; bytes: number };
}

/** Identifies what produced the results; stored in NAME.json and part of --resume's key. */
export interface ModelIdentity {
  name: string;
  /** Folder the bundle was loaded from, or null for engines without a model. */
  dir: string | null;
  /** Content identity (e.g. a hash of model.json and weight headers); changes when the model does. */
  id: string;
}

export interface DecodeContext {
  signal: AbortSignal;
  /** Non-fatal notes for the current document (shown to the user, stored in NAME.json). */
  warn(message: string, pageNumber?: number): void;
  /** Tokens generated so far on a page being decoded; the app throttles what it reports. */
  progress?(pageNumber: number, tokens: number, decodeMs: number): void;
}

/**
 * A loaded engine. decodeDocument yields pages in order as they finish, so multi-page
 * models can carry state from page to page and the app can report progress per page.
 */
export interface PageEngine {
  readonly engine: string;
  readonly model: ModelIdentity | null;
  decodeDocument(pages: DocumentPages, context: DecodeContext): AsyncIterable<DecodedPage>;
  /**
   * Bytes one document in flight can hold at its peak besides the shared weights (KV cache, page pixels,
   * visual embeddings), so `--jobs` can be held to what memory allows. Absent: no meaningful bound.
   */
  bytesPerDocument?(dpi: number): number;
  /** Frees the engine (native memory, sessions). Called once at the end of the run. */
  close(): Promise<void>;
}

export interface EngineDefinition {
  name: string;
  description: string;
  /**
   * Loads the engine once per run. Throws EnvironmentError (exit 3) when the machine lacks what
   * it needs (no model, no addon), UsageError (exit 2) for settings it cannot honour.
   */
  create(settings: EngineSettings): Promise<PageEngine>;
  /**
   * Whether a batch of several documents should read one per thread, each on one thread (pages whose stages gain
   * little from a second thread), instead of one document at a time on every thread (the default: a large model's
   * decoder wants every core on one sequence). Asked before create, so it must be cheap.
   */
  readsDocumentsAtOnce?(settings: EngineSettings): Promise<boolean>;
}

const engines = new Map<string, EngineDefinition>();

/**
 * Registers an engine under its --engine name. `replace: true` swaps an existing one:
 * this is how the real model engine takes over the "model" name.
 */
export function registerEngine(definition: EngineDefinition, options: { replace?: boolean } = {}): void {
  if (engines.has(definition.name) && !options.replace) {
    throw new Error(`engine "${definition.name}" is already registered (pass { replace: true } to swap it)`);
  }
  engines.set(definition.name, definition);
}

export function getEngine(name: string): EngineDefinition | undefined {
  return engines.get(name);
}

export function registeredEngines(): EngineDefinition[] {
  return [...engines.values()];
}
