// Batch orchestration: discover → open → decode pages → write outputs, one event stream, failures isolated.
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rm, rmdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  closePdfWorkers,
  discoverDocuments,
  expectPdfDocuments,
  InputError,
  isInputError,
  openDocument,
  readDocumentBytes,
  renderedSize,
  resolvePages,
  type DiscoveredDocument,
  type OpenedDocument,
  type PageRange,
  warmPdfWorker,
} from "../input/index.js";
import { sweepTempFiles, TEMP_PREFIX, writeFileAtomic } from "../output/atomic.js";
import { assignOutputStems, outputFileFor } from "../output/paths.js";
import { DOCUMENT_SCHEMA, type DocumentRecord, type PageRecord } from "../output/schema.js";
import { claimOutputStem, outputsUpToDate, renderDocumentMarkdown, writeDocumentOutputs } from "../output/write.js";
import { getEngine, registeredEngines, type DocumentPages, type PageEngine } from "../engines/engine.js";
import "../engines/index.js";
import { EnvironmentError, ExitCode, UsageError } from "../engines/errors.js";
import type { EventSink, RunSummary } from "./events.js";
import { bundleContentHash } from "./bundle-hash.js";
import { resultSettings, stableHash, type RunSettings } from "./settings.js";
import { inShard, type Shard } from "./shard.js";
import { finishDocumentPages } from "../layout/document.js";

export interface BatchRequest {
  /** Paths, folders, glob patterns, or "-" for one document's bytes on stdin. */
  inputs: string[];
  include?: string[];
  exclude?: string[];
  cwd: string;
  settings: RunSettings;
  pageRanges?: PageRange[];
  password?: string;
  /** Time budget of each step of a PDF (opening it, reading or rendering one page), ms; default 60 s. */
  pageTimeoutMs?: number;
  /** Folder for NAME.md / NAME.json; null with --stdout. */
  outputDir: string | null;
  resume: boolean;
  /** --shard K/N: only the documents (and input problems) whose path hashes to shard K. */
  shard?: Shard;
  /** Documents read at once; undefined: one per thread when the inputs name several (see planParallelism). */
  jobs?: number;
  /** Reads all of stdin (for the "-" input). */
  readStdin: () => Promise<Buffer>;
  /** Receives every finished document's record (the programmatic API returns it). */
  onRecord?: (record: DocumentRecord) => void;
  /** Receives the Markdown of the single document in --stdout mode. */
  writeMarkdown?: (markdown: string) => void;
  emit: EventSink;
  signal: AbortSignal;
  /** Version written into NAME.json's producer field. */
  version: string;
  /** Milliseconds from process start to the run's start (the CLI passes performance.now()), recorded in every document. */
  processStartMs?: number;
}

/**
 * Runs a batch and resolves to its summary. Throws UsageError / EnvironmentError only for
 * problems that stop every document (unknown engine, no model); a bad document never throws.
 */
/** Documents that fit at once when each needs `perDocument` bytes: at most 3/4 of free memory, at least one. */
export function jobsForMemory(jobs: number, perDocument: number, free: number): number {
  return Math.max(1, Math.min(jobs, Math.floor((free * 0.75) / perDocument)));
}

/**
 * How a batch spreads its CPU threads: `threads` (--threads, else the machine's cores) go to documents read at once,
 * one thread each, when the inputs name several, --jobs is not given and the engine reads documents at once
 * (`byDocument`: the default model; a large model's decoder keeps every thread on one document). A page's stages gain little from a second
 * intra-op thread at the default model's sizes (ten dev pages: 32.0 s on two threads, 31.7-35.1 s on one), while
 * documents at once keep the cores busy; one document more than the threads, since a document's stages run one
 * after another and each waits on the last (twelve dev pages, two threads: 1.54x one thread's pages per minute
 * with two documents at once, 1.71x with three). With one document, or --jobs given, the threads are shared out
 * among the jobs; with neither --threads nor several jobs each runtime keeps its own default (`threads` undefined).
 */
export function planParallelism(
  jobs: number | undefined,
  threads: number | undefined,
  documents: number,
  cpus: number,
  byDocument = true,
): { jobs: number; threads: number | undefined } {
  const budget = threads ?? cpus;
  const n = jobs ?? (byDocument && documents > 1 ? Math.max(1, Math.min(budget > 1 ? budget + 1 : 1, documents)) : 1);
  if (threads === undefined && n === 1) return { jobs: n, threads: undefined };
  return { jobs: n, threads: Math.max(1, Math.floor(budget / n)) };
}

export async function runBatch(request: BatchRequest): Promise<RunSummary> {
  const started = performance.now();
  const { emit } = request;
  let { settings } = request;
  // more threads than the machine has slow everything down (1024 on 2 cores ran two tiny documents > 120 s)
  const cpus = os.availableParallelism();
  const early: string[] = [];
  if (settings.model.threads !== undefined && settings.model.threads > cpus) {
    early.push(`--threads ${settings.model.threads}: this machine has ${cpus} CPU threads; using ${cpus}`);
    settings = { ...settings, model: { ...settings.model, threads: cpus } };
  }
  const definition = getEngine(settings.engine);
  if (!definition) {
    const names = registeredEngines()
      .map((d) => d.name)
      .join(", ");
    throw new UsageError(`unknown engine "${settings.engine}" (available: ${names})`);
  }
  const discovery = await discoverDocuments(request.inputs, {
    cwd: request.cwd,
    include: request.include,
    exclude: request.exclude,
  });
  // output names are chosen over the whole batch, so a shard writes what an unsharded run would (a.pdf.md beside a.png.md)
  const allStems = assignOutputStems(discovery.documents.map((d) => d.relative));
  const taken = discovery.documents.map((d) => inShard(d.shardKey, request.shard));
  discovery.documents = discovery.documents.filter((_, i) => taken[i]);
  discovery.problems = discovery.problems.filter((p) => inShard(p.path, request.shard));
  const byDocument = request.jobs === undefined && (await definition.readsDocumentsAtOnce?.(settings)) === true;
  const plan = planParallelism(request.jobs, settings.model.threads, discovery.documents.length, cpus, byDocument);
  if (plan.threads !== settings.model.threads) settings = { ...settings, model: { ...settings.model, threads: plan.threads } };
  if (request.writeMarkdown && discovery.documents.length + discovery.problems.length > 1) {
    throw new UsageError(
      `--stdout writes one document, but the inputs name ${discovery.documents.length + discovery.problems.length}; use -o DIR for batches`,
    );
  }
  // an unusable -o fails now, before the model loads and the documents are read, not after
  const created = request.outputDir && !request.writeMarkdown ? await prepareOutputDir(request.outputDir) : undefined;
  // the PDF parser's thread starts (and loads pdfjs) while the model loads; a worker a document gives back is kept
  // for the next one while one is to come (a PDF named so, or stdin), and stopped after the last
  const pdfs = discovery.documents.filter((d) => d.path === "-" || /\.pdf$/i.test(d.path)).length;
  expectPdfDocuments(pdfs);
  if (pdfs > 0) warmPdfWorker();
  const loading = performance.now();
  let engine: PageEngine;
  try {
    engine = await definition.create(settings);
  } catch (error) {
    await closePdfWorkers();
    // a run that stops before any document leaves no empty output folder behind
    if (created) await removeEmptyFolders(request.outputDir!, created);
    throw error;
  }
  const runTimings = {
    ...(request.processStartMs !== undefined ? { processStartMs: Math.round(request.processStartMs) } : {}),
    modelLoadMs: Math.round(performance.now() - loading),
  };
  // --resume's key covers every byte of the model bundle, not only what the engine's id hashes
  let modelFiles: string | null = null;
  try {
    modelFiles = engine.model?.dir ? await bundleContentHash(engine.model.dir) : null;
  } catch (error) {
    await engine.close();
    await closePdfWorkers();
    throw new EnvironmentError(`cannot read the model bundle ${engine.model!.dir}: ${(error as Error).message}`, { cause: error });
  }
  const summary: RunSummary = {
    documents: discovery.documents.length + discovery.problems.length,
    done: 0,
    failed: 0,
    skipped: 0,
    pages: 0,
    tokens: 0,
    truncatedPages: 0,
    failedPages: 0,
    elapsedMs: 0,
    interrupted: false,
    exitCode: ExitCode.ok,
  };
  try {
    emit({ type: "run-start", documents: summary.documents, engine: settings.engine, outputDir: request.outputDir });
    for (const message of early) emit({ type: "warning", source: null, page: null, message });
    for (const w of discovery.warnings) emit({ type: "warning", source: w.path, page: null, message: w.message });
    for (const problem of discovery.problems) {
      summary.failed++;
      emit({ type: "document-failed", source: problem.path, code: problem.code, message: problem.message });
    }
    const stems = allStems.filter((_, i) => taken[i]);
    let next = 0;
    const runState = { modelOk: false };
    const worker = async () => {
      while (next < discovery.documents.length && !request.signal.aborted) {
        const index = next++;
        const outcome = await processDocument(
          request,
          engine,
          modelFiles,
          runState,
          discovery.documents[index]!,
          stems[index]!,
          index,
          runTimings,
        );
        if (outcome.kind === "done") {
          summary.done++;
          summary.pages += outcome.pages;
          summary.tokens += outcome.tokens;
          summary.truncatedPages += outcome.truncated;
          summary.failedPages += outcome.failedPages;
        } else if (outcome.kind === "skipped") summary.skipped++;
        else if (outcome.kind === "failed") summary.failed++;
      }
    };
    let jobs = Math.max(1, Math.min(plan.jobs, discovery.documents.length));
    const perDocument = engine.bytesPerDocument?.(settings.dpi);
    if (jobs > 1 && perDocument) {
      const allowed = jobsForMemory(jobs, perDocument, os.freemem());
      if (allowed < jobs) {
        emit({
          type: "warning",
          source: null,
          page: null,
          message:
            `${request.jobs !== undefined ? `--jobs ${request.jobs}` : `${jobs} threads, a document each`}: memory allows ${allowed} documents at once ` +
            `(about ${Math.ceil(perDocument / 2 ** 20)} MiB each, ${Math.floor(os.freemem() / 2 ** 20)} MiB free); running ${allowed}`,
        });
        jobs = allowed;
      }
    }
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    await engine.close();
    await closePdfWorkers();
  }
  summary.interrupted = request.signal.aborted;
  summary.elapsedMs = Math.round(performance.now() - started);
  // a page that could not be read is a failure a pipeline must notice, even though its document was written
  summary.exitCode = summary.failed > 0 || summary.failedPages > 0 ? ExitCode.someFailed : ExitCode.ok;
  // an interrupted run ends with the signal's code (the abort reason carries it: 130 SIGINT, 143 SIGTERM)
  if (summary.interrupted) summary.exitCode = interruptExitCode(request.signal.reason);
  emit({ type: "run-end", summary });
  return summary;
}

/**
 * Creates the output folder and proves a file can be made in it. Not a folder (a file, or a file on its
 * path) is a usage error; a folder that cannot be written (permissions, read-only) an environment error.
 * Temp files that killed runs left there are swept.
 */
async function prepareOutputDir(dir: string): Promise<string | undefined> {
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory()) throw new UsageError(`-o ${dir}: is a file, not a folder`);
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "EEXIST") throw new UsageError(`-o ${dir}: a part of the path is a file, not a folder`);
    throw new EnvironmentError(`-o ${dir}: cannot create the folder: ${(error as Error).message}`);
  }
  const probe = path.join(dir, `${TEMP_PREFIX}probe.${process.pid}.${Math.random().toString(16).slice(2, 10).padEnd(8, "0")}`);
  try {
    await (await open(probe, "w")).close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EROFS" ? "read-only file system" : (error as Error).message;
    throw new EnvironmentError(`-o ${dir}: cannot write there: ${why}`);
  } finally {
    await rm(probe, { force: true });
  }
  await sweepTempFiles(dir);
  return created;
}

/** Removes `dir` and its parents up to `top` (the first folder mkdir made) while they are empty. */
async function removeEmptyFolders(dir: string, top: string): Promise<void> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      await rmdir(d);
    } catch {
      return;
    }
    if (d === path.resolve(top) || path.dirname(d) === d) return;
  }
}

/** Exit code of an interrupted run: the abort reason's exitCode when it has one, else 130 (SIGINT). */
export function interruptExitCode(reason: unknown): number {
  const code = (reason as { exitCode?: unknown } | undefined)?.exitCode;
  return typeof code === "number" ? code : 130;
}

const PROGRESS_MS = 250;

/** Times one kind of warning (its text with numbers blanked) is shown per document before it is counted. */
export const REPEATED_WARNINGS = 3;

function rate(tokens: number, ms: number): number {
  return ms > 0 ? Math.round((tokens / ms) * 10000) / 10 : 0;
}

/** A failure inside the engine that is not the document's (no InputError): onnxruntime, the native decoder. */
class ModelFailure extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

async function* tagModelFailures<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* pages;
  } catch (error) {
    if (isInputError(error) || (error as { exitCode?: number })?.exitCode !== undefined) throw error;
    throw new ModelFailure(error);
  }
}

type Outcome =
  | { kind: "done"; pages: number; tokens: number; truncated: number; failedPages: number }
  | { kind: "skipped" | "failed" | "interrupted" };

async function processDocument(
  request: BatchRequest,
  engine: PageEngine,
  modelFiles: string | null,
  /** modelOk: the model has finished a document in this run (a later model failure may be the document's). */
  run: { modelOk: boolean },
  found: DiscoveredDocument,
  assignedStem: string,
  index: number,
  runTimings: { processStartMs?: number; modelLoadMs?: number } = {},
): Promise<Outcome> {
  const { emit, settings } = request;
  const source = found.display;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  let document: OpenedDocument | undefined;
  const warnings: string[] = [];
  const pageWarnings = new Map<number, string[]>();
  // the same warning on every page (a 5,000-page blank PDF) is shown REPEATED_WARNINGS times, then counted;
  // NAME.json keeps every one
  const repeats = new Map<string, { count: number; first: string }>();
  const show = (message: string, page: number | null) => {
    const kind = message.replace(/\d+/g, "#");
    const seen = repeats.get(kind) ?? { count: 0, first: message };
    repeats.set(kind, { ...seen, count: seen.count + 1 });
    if (seen.count < REPEATED_WARNINGS) emit({ type: "warning", source, page, message });
  };
  const showRepeats = () => {
    for (const { count, first } of repeats.values()) {
      if (count > REPEATED_WARNINGS) {
        emit({
          type: "warning",
          source,
          page: null,
          message: `${count - REPEATED_WARNINGS} more warnings like "${first}" (all are in the JSON)`,
        });
      }
    }
    repeats.clear();
  };
  const warn = (message: string, page?: number) => {
    show(message, page ?? null);
    if (page === undefined) warnings.push(message);
    else pageWarnings.set(page, [...(pageWarnings.get(page) ?? []), message]);
  };
  try {
    const bytes = found.path === "-" ? await request.readStdin() : await readDocumentBytes(found.path);
    if (bytes.length === 0) throw new InputError("EMPTY", "empty file (0 bytes)", source);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const settingsRecord = resultSettings(settings);
    const resumeKey = stableHash({
      schema: DOCUMENT_SCHEMA,
      sha256,
      settings: settingsRecord,
      model: engine.model?.id ?? null,
      modelFiles: modelFiles ?? undefined,
    });
    const formats = settings.formats;
    let stem = assignedStem;
    if (request.outputDir && !request.writeMarkdown) {
      // outputs of another document under this name (another run into the same -o) are never overwritten
      const claim = await claimOutputStem(request.outputDir, assignedStem, formats, { path: source, sha256 });
      stem = claim.stem;
      if (claim.clash) {
        warn(
          `${claim.clash.file} holds the results of another document (${claim.clash.source}); writing ${outputFileFor(request.outputDir, stem, formats.includes("md") ? "md" : "json")} instead`,
        );
      }
    }
    if (request.resume && request.outputDir && (await outputsUpToDate(request.outputDir, stem, formats, resumeKey))) {
      emit({
        type: "document-skipped",
        source,
        reason: "outputs up to date",
        outputs: formats.map((f) => outputFileFor(request.outputDir!, stem, f)),
      });
      return { kind: "skipped" };
    }
    document = await openDocument(bytes, {
      password: request.password,
      name: source,
      pageTimeoutMs: request.pageTimeoutMs,
      signal: request.signal,
    });
    const opened = document;
    const pageNumbers = resolvePages(request.pageRanges, opened.pageCount);
    if (pageNumbers.length === 0) {
      throw new InputError("PAGE_RANGE", `--pages ${settings.pages} selects no page (document has ${opened.pageCount})`, source);
    }
    const asked = request.pageRanges?.some((r) => (r.last ?? r.first) > opened.pageCount);
    if (asked) warn(`--pages ${settings.pages} reaches past the last page (${opened.pageCount}); those pages are skipped`);
    emit({ type: "document-start", source, index, pageCount: opened.pageCount, pages: pageNumbers.length });
    const renderOptions = { dpi: settings.dpi, maxPixels: settings.maxPixels };
    const rendered = new Set<number>();
    const writesFiles = !request.writeMarkdown && !!request.outputDir && settings.formats.includes("md");
    const pages: DocumentPages = {
      source,
      figureDir: writesFiles ? `${path.basename(stem)}.figures` : undefined,
      kind: opened.kind,
      pageCount: opened.pageCount,
      pageNumbers,
      async render(pageNumber) {
        const raster = await opened.renderPage(pageNumber, renderOptions);
        for (const w of raster.warnings) warn(w, pageNumber);
        // every page the run reads is rendered: the parser's memory goes before the last pages are read (a later
        // step opens the document again)
        rendered.add(pageNumber);
        if (rendered.size === pageNumbers.length) await opened.release?.();
        return raster;
      },
      async pixelSize(pageNumber) {
        return renderedSize(await opened.pageSize(pageNumber), renderOptions);
      },
      async textContent(pageNumber) {
        const text = await opened.textContent(pageNumber);
        // an engine may read a page's text more than once: say what was skipped once
        for (const w of text?.warnings ?? []) if (!pageWarnings.get(pageNumber)?.includes(w)) warn(w, pageNumber);
        return text;
      },
    };
    const records: PageRecord[] = [];
    const figures: { file: string; png: Uint8Array }[] = [];
    let tokens = 0;
    let truncated = 0;
    let failedPages = 0;
    let pageStarted = performance.now();
    // progress events at most every PROGRESS_MS per document: a page may generate hundreds of tokens a second
    let lastProgress = 0;
    const progress = (page: number, count: number, decodeMs: number) => {
      const now = performance.now();
      if (decodeMs < PROGRESS_MS || now - lastProgress < PROGRESS_MS) return;
      lastProgress = now;
      emit({ type: "page-progress", source, page, tokens: count, tokensPerSecond: rate(count, decodeMs) });
    };
    const decoding = engine.decodeDocument(pages, { signal: request.signal, warn, progress });
    for await (const page of tagModelFailures(decoding)) {
      // a page yielded after the interrupt was cut short: it is not done, and its document is not written
      if (request.signal.aborted) break;
      const elapsedMs = performance.now() - pageStarted;
      pageStarted = performance.now();
      tokens += page.tokenCount;
      if (page.truncated) truncated++;
      if (page.error !== undefined) failedPages++;
      if (page.figures) figures.push(...page.figures);
      records.push({
        page: page.pageNumber,
        width: page.width,
        height: page.height,
        dpi: page.dpi ?? null,
        markdown: page.markdown,
        blocks: page.blocks,
        truncated: page.truncated,
        tokenCount: page.tokenCount,
        timings: { ...page.timings, total: Math.round(elapsedMs * 10) / 10 },
        warnings: [...(pageWarnings.get(page.pageNumber) ?? []), ...page.warnings],
      });
      for (const w of page.warnings) show(w, page.pageNumber);
      emit({
        type: "page-done",
        source,
        page: page.pageNumber,
        tokenCount: page.tokenCount,
        truncated: page.truncated,
        elapsedMs: Math.round(elapsedMs),
        tokensPerSecond: page.decodeMs ? rate(page.tokenCount, page.decodeMs) : 0,
        ...(page.error !== undefined ? { error: page.error } : {}),
        ...(page.cache ? { cacheEntries: page.cache.liveEntries, cacheBytes: page.cache.bytes } : {}),
      });
    }
    // An interrupted document is not written at all: a partial result would look complete.
    if (request.signal.aborted) return { kind: "interrupted" };
    finishDocumentPages(records, settings.layout);
    const record: DocumentRecord = {
      schema: DOCUMENT_SCHEMA,
      producer: { name: "ocr", version: request.version },
      source: { path: source, kind: opened.kind, bytes: bytes.length, sha256, pageCount: opened.pageCount },
      settings: settingsRecord,
      model: engine.model ? { ...engine.model } : null,
      resumeKey,
      pages: records,
      warnings,
      timings: {
        startedAt,
        finishedAt: new Date().toISOString(),
        totalMs: Math.round(performance.now() - started),
        ...runTimings,
      },
    };
    let outputs: string[] = [];
    request.onRecord?.(record);
    if (request.writeMarkdown) request.writeMarkdown(renderDocumentMarkdown(record));
    else if (request.outputDir) {
      // figures first: the Markdown that links to them must not appear before they exist
      const figureFiles: string[] = [];
      for (const f of writesFiles ? figures : []) {
        const file = path.join(request.outputDir, path.dirname(stem), f.file);
        await writeFileAtomic(file, f.png);
        figureFiles.push(file);
      }
      outputs = [...(await writeDocumentOutputs(record, request.outputDir, stem, settings.formats)), ...figureFiles];
    }
    showRepeats();
    run.modelOk = true;
    emit({ type: "document-done", source, outputs, pages: records.length, elapsedMs: Math.round(performance.now() - started) });
    return { kind: "done", pages: records.length, tokens, truncated, failedPages };
  } catch (error) {
    // whatever broke after the interrupt (a stopped parser, a cancelled inference) is the interrupt
    if (request.signal.aborted) return { kind: "interrupted" };
    if (isInputError(error)) {
      emit({ type: "document-failed", source, code: error.code, message: error.message });
      return { kind: "failed" };
    }
    // Environment and usage errors stop the batch; the CLI maps them to exit codes 3 and 2.
    if ((error as { exitCode?: number })?.exitCode !== undefined) throw error;
    // the model failing before it has read any document is the model's (or a setting's) fault: one exit 3,
    // not the same failure on every document
    if (error instanceof ModelFailure && engine.model && !run.modelOk) {
      throw new EnvironmentError(`the model failed on the first document (${source}): ${error.message}`, { cause: error.cause });
    }
    const e = (error instanceof ModelFailure ? error.cause : error) as NodeJS.ErrnoException;
    emit({ type: "document-failed", source, code: e.code ?? "ERROR", message: e.message ?? String(error) });
    return { kind: "failed" };
  } finally {
    await document?.close().catch(() => {});
  }
}

/** Reads a --files-from list from a file path, or from stdin for "-". */
export async function readPathList(file: string, readStdin: () => Promise<Buffer>): Promise<string> {
  if (file === "-") return (await readStdin()).toString("utf8");
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`--files-from ${file}: ${(error as Error).message}`);
  }
}
