// What a page engine is built from: the options of the model engine, the server engine's endpoint, the
// text engine's layout choices and the render resolution. The CLI and API parse them; app/settings.ts adds what
// the run itself needs (pages, formats, pixel cap) to make RunSettings.

/** Model-side options; parsed and validated by the CLI, interpreted by the model engine. */
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

/** The settings an engine's factory reads. */
export interface EngineSettings {
  server?: ServerSettings;
  /** resolution PDF pages are rendered at */
  dpi: number;
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
