// Line-per-document reporter for logs and CI (stderr not a TTY), with quiet and verbose levels.
import type { RunEvent } from "../app/events.js";
import { formatError, formatSummary, formatWarning, type Reporter, type TextSink } from "./reporter.js";

export type Verbosity = "quiet" | "normal" | "verbose";

export function createPlainReporter(sink: TextSink, verbosity: Verbosity): Reporter {
  return {
    handle(event: RunEvent) {
      switch (event.type) {
        case "document-failed":
          sink.write(formatError(event.source, event.message));
          break;
        case "warning":
          if (verbosity !== "quiet") sink.write(formatWarning(event.source, event.page, event.message));
          break;
        case "document-done":
          if (verbosity !== "quiet") {
            const to = event.outputs.length ? ` -> ${event.outputs.join(", ")}` : "";
            sink.write(
              `ocr: ${event.source}: ${event.pages} page${event.pages === 1 ? "" : "s"} in ${(event.elapsedMs / 1000).toFixed(1)} s${to}\n`,
            );
          }
          break;
        case "document-skipped":
          if (verbosity === "verbose") sink.write(`ocr: ${event.source}: skipped, ${event.reason}\n`);
          break;
        case "document-start":
          if (verbosity === "verbose") sink.write(`ocr: ${event.source}: ${event.pages} of ${event.pageCount} pages\n`);
          break;
        case "page-done":
          if (verbosity === "verbose") {
            const speed = event.tokensPerSecond ? ` (${event.tokensPerSecond.toFixed(1)} tokens/s)` : "";
            const tokens = event.tokenCount ? `, ${event.tokenCount} tokens${speed}` : "";
            const cut = event.truncated ? " (truncated)" : "";
            sink.write(`ocr: ${event.source}: page ${event.page} in ${event.elapsedMs} ms${tokens}${cut}\n`);
          }
          break;
        case "run-end":
          if (verbosity !== "quiet") sink.write(formatSummary(event.summary));
          break;
        case "run-start":
        case "page-progress":
          break;
      }
    },
    close() {},
  };
}
