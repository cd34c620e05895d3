// Interactive progress bars (documents, pages, pages/s, ETA) for a terminal; messages print above them.
import { createRequire } from "node:module";
import type { MultiBar, Presets, SingleBar } from "cli-progress";
import type { RunEvent } from "../app/events.js";
import { formatError, formatSummary, formatWarning, type Reporter } from "./reporter.js";

export interface TtyStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function createTtyReporter(stream: TtyStream, verbose: boolean): Reporter {
  // (the bars load for a terminal only)
  const cliProgress = createRequire(import.meta.url)("cli-progress") as { MultiBar: typeof MultiBar; Presets: typeof Presets };
  const multibar = new cliProgress.MultiBar(
    {
      stream: stream as NodeJS.WriteStream,
      clearOnComplete: true,
      hideCursor: true,
      format: "{label} |{bar}| {value}/{total} {unit} {extra}",
      barsize: 30,
      fps: 8,
      forceRedraw: false,
      // Ctrl-C belongs to the CLI, which finishes cleanly; the bars must not take it over.
      gracefulExit: false,
    },
    cliProgress.Presets.shades_grey,
  );
  let documentsBar: SingleBar | undefined;
  let pagesBar: SingleBar | undefined;
  let pagesTotal = 0;
  let pagesDone = 0;
  let startedAt = Date.now();
  let drawing = false;
  // Messages go above the bars; the explicit redraw flushes them now rather than at the next tick.
  const log = (text: string) => {
    if (!drawing) {
      stream.write(text);
      return;
    }
    multibar.log(text);
    (multibar as unknown as { update(): void }).update();
  };
  let tokensText = "";
  const rateText = () => {
    const seconds = (Date.now() - startedAt) / 1000;
    const rate = seconds > 0 ? pagesDone / seconds : 0;
    const remaining = pagesTotal - pagesDone;
    const eta = rate > 0 ? `ETA ${Math.ceil(remaining / rate)} s` : "";
    return `${rate.toFixed(2)} pages/s ${eta}${tokensText}`;
  };
  return {
    handle(event: RunEvent) {
      switch (event.type) {
        case "run-start":
          startedAt = Date.now();
          drawing = true;
          documentsBar = multibar.create(event.documents, 0, { label: "documents", unit: "", extra: "" });
          pagesBar = multibar.create(0, 0, { label: "pages    ", unit: "", extra: "" });
          break;
        case "document-start":
          // Page totals are known only as documents open, so the pages bar grows.
          pagesTotal += event.pages;
          pagesBar?.setTotal(pagesTotal);
          break;
        case "page-progress":
          tokensText = ` · page ${event.page}: ${event.tokens} tokens, ${event.tokensPerSecond.toFixed(0)} tokens/s`;
          pagesBar?.update(pagesDone, { extra: rateText() });
          break;
        case "page-done":
          pagesDone++;
          tokensText = event.tokensPerSecond ? ` · ${event.tokensPerSecond.toFixed(0)} tokens/s` : "";
          pagesBar?.update(pagesDone, { extra: rateText() });
          break;
        case "document-done":
        case "document-skipped":
          documentsBar?.increment(1, { extra: event.source });
          if (verbose && event.type === "document-done") log(`ocr: ${event.source}: ${event.pages} page${event.pages === 1 ? "" : "s"}\n`);
          break;
        case "document-failed":
          documentsBar?.increment(1, { extra: "" });
          log(formatError(event.source, event.message));
          break;
        case "warning":
          log(formatWarning(event.source, event.page, event.message));
          break;
        case "run-end":
          drawing = false;
          multibar.stop();
          stream.write(formatSummary(event.summary));
          break;
      }
    },
    close() {
      drawing = false;
      multibar.stop();
    },
  };
}
