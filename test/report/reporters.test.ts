// Reporters render the same events as plain lines, JSON Lines, or TTY progress bars.
import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/app/events.js";
import { chooseReporter, createJsonlReporter, createPlainReporter, createTtyReporter, formatSummary } from "../../src/report/index.js";

class Sink {
  text = "";
  isTTY?: boolean;
  columns = 100;
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
  // cli-progress asks these of its stream.
  cursorTo() {}
  clearLine() {}
  moveCursor() {}
  on() {
    return this;
  }
  removeListener() {
    return this;
  }
}

const summary = { documents: 3, done: 1, failed: 1, skipped: 1, pages: 4, tokens: 0, elapsedMs: 2000, interrupted: false, exitCode: 1 };
const events: RunEvent[] = [
  { type: "run-start", documents: 3, engine: "text", outputDir: "out" },
  { type: "document-failed", source: "missing.pdf", code: "ENOENT", message: "no such file or folder" },
  { type: "document-start", source: "a.pdf", index: 0, pageCount: 9, pages: 4 },
  { type: "warning", source: "a.pdf", page: 2, message: "page 2 is over the pixel cap" },
  { type: "page-done", source: "a.pdf", page: 1, tokenCount: 12, truncated: true, elapsedMs: 5 },
  { type: "document-done", source: "a.pdf", outputs: ["out/a.md", "out/a.json"], pages: 4, elapsedMs: 1500 },
  { type: "document-skipped", source: "b.pdf", reason: "outputs up to date", outputs: [] },
  { type: "run-end", summary },
];

function feed(reporter: { handle(e: RunEvent): void; close(): void }) {
  for (const e of events) reporter.handle(e);
  reporter.close();
}

describe("plain reporter", () => {
  it("prints one line per document, warnings, and a summary", () => {
    const sink = new Sink();
    feed(createPlainReporter(sink, "normal"));
    expect(sink.text.split("\n")).toEqual([
      "ocr: missing.pdf: no such file or folder",
      "ocr: a.pdf: warning: page 2 is over the pixel cap",
      "ocr: a.pdf: 4 pages in 1.5 s -> out/a.md, out/a.json",
      "ocr: 3 documents: 1 done, 1 up to date, 1 failed; 4 pages in 2.0 s (2.00 pages/s)",
      "",
    ]);
  });

  it("prints only errors when quiet, and page details when verbose", () => {
    const quiet = new Sink();
    feed(createPlainReporter(quiet, "quiet"));
    expect(quiet.text).toBe("ocr: missing.pdf: no such file or folder\n");
    const verbose = new Sink();
    feed(createPlainReporter(verbose, "verbose"));
    expect(verbose.text).toContain("ocr: a.pdf: page 1 in 5 ms, 12 tokens (truncated)\n");
    expect(verbose.text).toContain("ocr: b.pdf: skipped, outputs up to date\n");
  });
});

describe("JSON Lines reporter", () => {
  it("writes each event as one JSON object and errors also as text", () => {
    const out = new Sink();
    const err = new Sink();
    feed(createJsonlReporter(out, err));
    const lines = out.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RunEvent & { time: string });
    expect(lines.map((l) => l.type)).toEqual(events.map((e) => e.type));
    expect(lines[7]).toMatchObject({ type: "run-end", summary });
    expect(err.text).toBe("ocr: missing.pdf: no such file or folder\n");
  });
});

describe("TTY reporter", () => {
  it("draws bars and keeps messages and the summary", () => {
    const sink = new Sink();
    sink.isTTY = true;
    feed(createTtyReporter(sink as never, false));
    expect(sink.text).toContain("ocr: missing.pdf: no such file or folder");
    expect(sink.text).toContain("warning: page 2 is over the pixel cap");
    expect(sink.text).toContain(formatSummary(summary).trim());
  });
});

describe("chooseReporter", () => {
  const pick = (isTTY: boolean, env: NodeJS.ProcessEnv, jsonl = false) => {
    const stderr = new Sink();
    stderr.isTTY = isTTY;
    const stdout = new Sink();
    const reporter = chooseReporter({ jsonl, verbosity: "normal", stderr, events: stdout, env });
    reporter.handle(events[0]!);
    reporter.handle(events[7]!);
    reporter.close();
    return { stderr: stderr.text, stdout: stdout.text };
  };

  it("uses bars only on a TTY outside CI", () => {
    expect(pick(true, {}).stderr).toMatch(/documents/);
    expect(pick(true, { CI: "true" }).stderr).not.toMatch(/documents \|/);
    expect(pick(false, {}).stderr).not.toMatch(/documents \|/);
  });

  it("sends JSON Lines to the events stream", () => {
    const { stdout } = pick(true, {}, true);
    expect(JSON.parse(stdout.split("\n")[0]!)).toMatchObject({ type: "run-start" });
  });
});
