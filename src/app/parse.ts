// The programmatic API: parse(input, options) → the same DocumentRecord that NAME.json holds, with progress events.
import { readFileSync } from "node:fs";
import { formatPageSelection, parsePageSelection, type PageRange } from "../input/index.js";
import type { DocumentRecord } from "../output/schema.js";
import type { RunEvent } from "./events.js";
import { UsageError } from "../engines/errors.js";
import { runBatch } from "./run.js";
import { defaultModelOptions } from "../engines/settings.js";
import type { RunSettings } from "./settings.js";

export interface ParseOptions {
  /** "model" (default: the OCR model) or "text" (a PDF's own text layer). */
  engine?: string;
  /** Model bundle folder or pulled model name; default the package's models/default (or OCR_MODEL). */
  model?: string;
  /** Preprocessing mode of the bundle (e.g. "base", "gundam"). */
  mode?: string;
  /** Per-page token cap; default the bundle's decoding.max_tokens_per_page. A page that hits it is `truncated`. */
  maxTokens?: number;
  /** CPU threads for the encoder and the decoder. */
  threads?: number;
  /** Reading order of a page's detected lines: "xy-cut" (the default) or "learned" (the bundle's, where it has one). */
  readingOrder?: "xy-cut" | "learned";
  attention?: "full" | "rswa";
  /** R-SWA window in generated tokens. */
  window?: number;
  /**
   * Focal pruning: off with enabled false; on when the bundle has attention.focal or any field is given (`keep` share
   * of visual entries kept, `layers` focal layer count K, `warmup` full-attention steps >= 1 per view).
   */
  focal?: { enabled?: boolean; keep?: number; layers?: number; warmup?: number };
  /** Keep running headers, footers and page numbers in the Markdown (they are in the blocks either way). */
  keepHeaders?: boolean;
  /** Tables as balanced HTML (default) or Markdown pipe tables where no cell spans. */
  tables?: "html" | "markdown";
  /** PDF rendering resolution (default 150). */
  dpi?: number;
  /** Pixel cap per page (default 50 megapixels). */
  maxPixels?: number;
  /** Pages to parse, 1-based: "1-3,7,10-" or ranges. */
  pages?: string | PageRange[];
  password?: string;
  /** Seconds each PDF step (opening, reading or rendering one page) may take; default 60. */
  pageTimeout?: number;
  /** Name used for the document in events and in the record's source.path when the input is bytes. */
  name?: string;
  /** Called for every event (page-progress, page-done, warning, …) as it happens. */
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

/** A failed document: `code` is the input layer's reason code (CORRUPT_PDF, NOT_FOUND, …). */
export class ParseError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly source: string,
  ) {
    super(`${source}: ${message}`);
    this.name = "ParseError";
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}

function settingsFor(o: ParseOptions, ranges: PageRange[] | undefined): RunSettings {
  const model = defaultModelOptions();
  model.dir = o.model ?? process.env.OCR_MODEL;
  model.mode = o.mode;
  model.maxTokens = o.maxTokens;
  model.threads = o.threads;
  model.attention = o.attention;
  model.readingOrder = o.readingOrder;
  model.window = o.window;
  model.focal = { enabled: o.focal?.enabled !== false, keep: o.focal?.keep, layers: o.focal?.layers, warmup: o.focal?.warmup };
  return {
    engine: o.engine ?? "model",
    dpi: o.dpi ?? 150,
    maxPixels: o.maxPixels ?? 50_000_000,
    pages: formatPageSelection(ranges),
    formats: ["json"],
    model,
    layout: { keepHeaders: !!o.keepHeaders, tables: o.tables ?? "html" },
  };
}

/**
 * Parses one document (a path, or its bytes) and resolves to its record. Rejects with ParseError when the
 * document cannot be read, and with UsageError / EnvironmentError (exitCode 2 / 3) for bad options or no model.
 * Nothing is written to disk.
 */
export async function parse(input: string | Buffer | Uint8Array, options: ParseOptions = {}): Promise<DocumentRecord> {
  const ranges = typeof options.pages === "string" ? parsePageSelection(options.pages) : options.pages;
  const bytes = typeof input === "string" ? undefined : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let record: DocumentRecord | undefined;
  let failure: ParseError | undefined;
  // a folder or glob would give several documents: parse() answers for one, runBatch is for batches
  let documents = 0;
  const controller = new AbortController();
  const outer = options.signal;
  const onOuterAbort = () => controller.abort();
  if (outer?.aborted) controller.abort();
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  const summary = await runBatch({
    inputs: [bytes ? "-" : (input as string)],
    cwd: process.cwd(),
    settings: settingsFor(options, ranges),
    pageRanges: ranges,
    password: options.password,
    pageTimeoutMs: options.pageTimeout !== undefined ? options.pageTimeout * 1000 : undefined,
    outputDir: null,
    resume: false,
    jobs: 1,
    readStdin: async () => bytes!,
    onRecord: (r) => {
      record = r;
      if (bytes && options.name) record.source.path = options.name;
    },
    emit: (event) => {
      if (event.type === "run-start") documents = event.documents;
      if (event.type === "run-start" && event.documents > 1) controller.abort();
      if (event.type === "document-failed")
        failure = new ParseError(event.code, event.message, bytes ? (options.name ?? "-") : event.source);
      options.onEvent?.(event);
    },
    signal: controller.signal,
    version: packageVersion(),
  }).finally(() => outer?.removeEventListener("abort", onOuterAbort));
  if (documents > 1) throw new UsageError(`${String(input)} names ${documents} documents; parse() reads one (runBatch reads many)`);
  if (failure) throw failure;
  if (!record)
    throw new ParseError(
      summary.interrupted ? "INTERRUPTED" : "NO_RESULT",
      summary.interrupted ? "interrupted" : "no result",
      typeof input === "string" ? input : (options.name ?? "-"),
    );
  return record;
}

/** What parseEvents yields: every run event, then the finished document. */
export type ParseEvent = RunEvent | { type: "document"; document: DocumentRecord };

/**
 * The same as parse, as an async iterator: events as they happen, ending with { type: "document" }.
 * Breaking out of the loop aborts the run.
 */
export async function* parseEvents(
  input: string | Buffer | Uint8Array,
  options: Omit<ParseOptions, "onEvent"> = {},
): AsyncGenerator<ParseEvent> {
  const queue: ParseEvent[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let error: unknown;
  const controller = new AbortController();
  const outer = options.signal;
  const onOuterAbort = () => controller.abort();
  outer?.addEventListener("abort", onOuterAbort, { once: true });
  const push = (e: ParseEvent) => {
    queue.push(e);
    wake?.();
  };
  parse(input, { ...options, signal: controller.signal, onEvent: push })
    .then(
      (document) => push({ type: "document", document }),
      (err: unknown) => (error = err),
    )
    .finally(() => {
      finished = true;
      wake?.();
    });
  try {
    for (;;) {
      while (queue.length === 0 && !finished) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      if (queue.length > 0) {
        yield queue.shift()!;
        continue;
      }
      if (error) throw error;
      return;
    }
  } finally {
    controller.abort();
    outer?.removeEventListener("abort", onOuterAbort);
  }
}
