// Decoding progress in the reporters: tokens/s on page lines and bars, truncated and unreadable pages in the summary.
import { describe, expect, it } from "vitest";
import type { RunEvent, RunSummary } from "../../src/app/events.js";
import { createJsonlReporter, createPlainReporter, createTtyReporter, formatSummary } from "../../src/report/index.js";

class Sink {
  text = "";
  isTTY = true;
  columns = 120;
  write(s: string) {
    this.text += s;
    return true;
  }
}

const summary: RunSummary = {
  documents: 1,
  done: 1,
  failed: 0,
  skipped: 0,
  pages: 3,
  tokens: 900,
  truncatedPages: 2,
  failedPages: 1,
  elapsedMs: 3000,
  interrupted: false,
  exitCode: 1,
};
const events: RunEvent[] = [
  { type: "run-start", documents: 1, engine: "model", outputDir: "out" },
  { type: "document-start", source: "a.tif", index: 0, pageCount: 3, pages: 3 },
  { type: "page-progress", source: "a.tif", page: 1, tokens: 120, tokensPerSecond: 480.2 },
  { type: "page-done", source: "a.tif", page: 1, tokenCount: 450, truncated: true, elapsedMs: 1200, tokensPerSecond: 455.5 },
  { type: "run-end", summary },
];

describe("progress with tokens/s", () => {
  it("counts truncated and unreadable pages in the summary line", () => {
    expect(formatSummary(summary)).toBe(
      "ocr: 1 document: 1 done; 3 pages (2 truncated, 1 unreadable), 900 tokens in 3.0 s (1.00 pages/s)\n",
    );
  });

  it("prints tokens/s on verbose page lines", () => {
    const sink = new Sink();
    const r = createPlainReporter(sink, "verbose");
    for (const e of events) r.handle(e);
    expect(sink.text).toContain("ocr: a.tif: page 1 in 1200 ms, 450 tokens (455.5 tokens/s) (truncated)\n");
    expect(sink.text).not.toContain("120 tokens");
  });

  it("streams page-progress events as JSON Lines", () => {
    const sink = new Sink();
    const r = createJsonlReporter(sink);
    for (const e of events) r.handle(e);
    const lines = sink.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent);
    expect(lines[2]).toMatchObject({ type: "page-progress", page: 1, tokens: 120, tokensPerSecond: 480.2 });
  });

  it("shows the decoding rate beside the pages bar", async () => {
    const sink = new Sink();
    const r = createTtyReporter(sink, false);
    r.handle(events[0]!);
    r.handle(events[1]!);
    r.handle(events[2]!);
    r.handle(events[3]!);
    // the bars redraw on their own timer (8 fps)
    await new Promise((resolve) => setTimeout(resolve, 400));
    r.handle(events[4]!);
    r.close();
    expect(sink.text).toMatch(/455 tokens\/s|456 tokens\/s/);
  });
});
