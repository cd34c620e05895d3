// Typed events the batch emits; reporters (TTY, JSON Lines, quiet) render them, the app never prints.

export interface RunSummary {
  documents: number;
  done: number;
  failed: number;
  skipped: number;
  pages: number;
  tokens: number;
  /** Pages whose decoding was ended by the token cap or the runaway rule (marked `truncated`). */
  truncatedPages: number;
  /** Pages that could not be rendered or decoded; their documents were written without their text. */
  failedPages: number;
  elapsedMs: number;
  interrupted: boolean;
  exitCode: number;
}

export type RunEvent =
  | { type: "run-start"; documents: number; engine: string; outputDir: string | null }
  | { type: "document-start"; source: string; index: number; pageCount: number; pages: number }
  | {
      type: "page-done";
      source: string;
      page: number;
      tokenCount: number;
      truncated: boolean;
      elapsedMs: number;
      /** Generated tokens per second of decoding time (0 for engines without tokens). */
      tokensPerSecond: number;
      /** Set when the page could not be read; the document goes on without its text. */
      error?: string;
      /** Model engines: KV cache entries still attended and bytes allocated after this page. */
      cacheEntries?: number;
      cacheBytes?: number;
    }
  | {
      /** While a page decodes, at most a few times a second: tokens so far and the decoding rate. */
      type: "page-progress";
      source: string;
      page: number;
      tokens: number;
      tokensPerSecond: number;
    }
  | { type: "document-done"; source: string; outputs: string[]; pages: number; elapsedMs: number }
  | { type: "document-skipped"; source: string; reason: string; outputs: string[] }
  | { type: "document-failed"; source: string; code: string; message: string }
  | { type: "warning"; source: string | null; page: number | null; message: string }
  | { type: "run-end"; summary: RunSummary };

export type EventSink = (event: RunEvent) => void;
