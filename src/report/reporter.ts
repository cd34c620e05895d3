// Reporter seam: turns app events into text for people (stderr) or JSON Lines for programs.
import type { RunEvent, RunSummary } from "../app/events.js";

export interface Reporter {
  handle(event: RunEvent): void;
  /** Stops timers and redraws; called once after the run (also on errors). */
  close(): void;
}

export interface TextSink {
  write(text: string): unknown;
}

export function formatError(source: string, message: string): string {
  return `ocr: ${source}: ${message}\n`;
}

export function formatWarning(source: string | null, page: number | null, message: string): string {
  const where = source ? `${source}: ` : "";
  // Messages that already name their page need no prefix.
  const pagePrefix = page !== null && !/\bpage \d/.test(message) ? `page ${page}: ` : "";
  return `ocr: ${where}warning: ${pagePrefix}${message}\n`;
}

export function formatSummary(summary: RunSummary): string {
  const seconds = summary.elapsedMs / 1000;
  const rate = seconds > 0 ? summary.pages / seconds : 0;
  const parts = [`${summary.done} done`];
  if (summary.skipped) parts.push(`${summary.skipped} up to date`);
  if (summary.failed) parts.push(`${summary.failed} failed`);
  const tokens = summary.tokens ? `, ${summary.tokens} tokens` : "";
  // runaway and unreadable pages are never silent: the summary counts them
  const notes: string[] = [];
  if (summary.truncatedPages) notes.push(`${summary.truncatedPages} truncated`);
  if (summary.failedPages) notes.push(`${summary.failedPages} unreadable`);
  const pageNotes = notes.length ? ` (${notes.join(", ")})` : "";
  const interrupted = summary.interrupted ? " (interrupted)" : "";
  return (
    `ocr: ${summary.documents} document${summary.documents === 1 ? "" : "s"}: ${parts.join(", ")}; ` +
    `${summary.pages} page${summary.pages === 1 ? "" : "s"}${pageNotes}${tokens} in ${seconds.toFixed(1)} s ` +
    `(${rate.toFixed(2)} pages/s)${interrupted}\n`
  );
}
