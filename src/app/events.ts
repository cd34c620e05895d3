// Typed events the batch emits; reporters (TTY, JSON Lines, quiet) render them, the app never prints.

export interface RunSummary {
  documents: number;
  done: number;
  failed: number;
  skipped: number;
  pages: number;
  tokens: number;
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
    }
  | { type: "document-done"; source: string; outputs: string[]; pages: number; elapsedMs: number }
  | { type: "document-skipped"; source: string; reason: string; outputs: string[] }
  | { type: "document-failed"; source: string; code: string; message: string }
  | { type: "warning"; source: string | null; page: number | null; message: string }
  | { type: "run-end"; summary: RunSummary };

export type EventSink = (event: RunEvent) => void;
