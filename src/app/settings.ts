// Run settings: what the user asked for, normalised once; the subset that shapes results keys --resume.
import { createHash } from "node:crypto";

export type OutputFormat = "md" | "json";

/** Model-side options; parsed and validated by the CLI, interpreted by the model decoder. */
export interface ModelOptions {
  /** Bundle folder; undefined = the package's models/default. */
  dir: string | undefined;
  mode: string | undefined;
  maxTokens: number | undefined;
  threads: number | undefined;
  attention: "full" | "rswa" | undefined;
  window: number | undefined;
  focal: {
    /** false when --no-focal was given. */
    enabled: boolean;
    keep: number | undefined;
    /** number of focal layers K */
    layers: number | undefined;
    warmup: number | undefined;
  };
  /** Where to write per-step fixation records (JSON Lines); a diagnostic, not part of results. */
  fixationsFile: string | undefined;
  /** Reading order of a page's detected lines: XY-cut, or the bundle's learned order (vision.lines.layout). */
  readingOrder: "xy-cut" | "learned" | undefined;
}

/** --server: where pages are decoded when the engine is "server" (see src/server/). */
export interface ServerSettings {
  url: string;
  model: string | undefined;
  concurrency: number;
  timeoutMs: number;
  retries: number;
  /** OCR_SERVER_API_KEY, sent as a bearer token; never written anywhere (resultSettings leaves `server` out). */
  apiKey: string | undefined;
  /** First retry delay; doubles per attempt, with jitter. */
  backoffMs?: number;
}

export interface RunSettings {
  engine: string;
  server?: ServerSettings;
  dpi: number;
  maxPixels: number;
  /** Canonical page selection text ("all", "1-3,7,10-"). */
  pages: string;
  formats: OutputFormat[];
  model: ModelOptions;
  /** How page layout reaches the Markdown: running headers kept (--keep-headers), tables as HTML or pipe tables (--tables). */
  layout?: { keepHeaders: boolean; tables: "html" | "markdown" };
}

export function defaultModelOptions(): ModelOptions {
  return {
    dir: undefined,
    mode: undefined,
    maxTokens: undefined,
    threads: undefined,
    attention: undefined,
    window: undefined,
    focal: { enabled: true, keep: undefined, layers: undefined, warmup: undefined },
    fixationsFile: undefined,
    readingOrder: undefined,
  };
}

/**
 * The settings that change what a page decodes to, as written into NAME.json.
 * Threads, fixation logging and output formats are left out: they do not change results.
 */
export function resultSettings(settings: RunSettings): Record<string, unknown> {
  const { threads: _threads, fixationsFile: _fixations, ...model } = settings.model;
  const layout = settings.layout && (settings.layout.keepHeaders || settings.layout.tables !== "html") ? { layout: settings.layout } : {};
  return { engine: settings.engine, dpi: settings.dpi, maxPixels: settings.maxPixels, pages: settings.pages, model, ...layout };
}

/** Stable hash of any JSON value with sorted keys; equal inputs give equal keys across runs. */
export function stableHash(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return createHash("sha256").update(JSON.stringify(canonical(value))).digest("hex");
}
