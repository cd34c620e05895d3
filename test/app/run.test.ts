// The batch runner with the text engine on real pages: events, outputs, failures, resume, interruption.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defaultModelOptions,
  EnvironmentError,
  jobsForMemory,
  planParallelism,
  registerEngine,
  runBatch,
  UsageError,
  type BatchRequest,
  type RunEvent,
  type RunSettings,
} from "../../src/app/index.js";
import { parsePageSelection } from "../../src/input/index.js";
import { pdfWorkersAlive } from "../../src/input/pdf.js";
import type { DecodedPage, DocumentPages, ModelIdentity } from "../../src/engines/engine.js";
import type { DocumentRecord } from "../../src/output/index.js";
import { LineEncoder } from "../../src/vision/line-encoder.js";
import { hostilePdf } from "../helpers/hostile-pdf.js";
import { fixture, repoRoot, tempDir } from "../helpers/paths.js";

const tmp = tempDir();
const input = path.join(tmp.dir, "in");
beforeAll(() => {
  mkdirSync(path.join(input, "sub"), { recursive: true });
  copyFileSync(fixture("multi_page.pdf"), path.join(input, "multi.pdf"));
  copyFileSync(fixture("blank_page.pdf"), path.join(input, "sub/blank.pdf"));
  writeFileSync(path.join(input, "sub/notes.pdf"), "not a pdf at all\n");
});
afterAll(tmp.cleanup);

/** A page a test engine yields: `markdown` on a page of `size` (1 x 1 at 72 DPI unless given), `tokenCount` tokens. */
function decodedPage(
  pageNumber: number,
  markdown: string,
  tokenCount: number,
  size: { width: number; height: number; dpi: number | undefined } = { width: 1, height: 1, dpi: 72 },
): DecodedPage {
  return { pageNumber, ...size, markdown, blocks: [], tokenCount, truncated: false, timings: {}, warnings: [] };
}

/** Registers (replacing one of the same name) a test engine that reads each document with `decode`. */
function registerDecoder(
  name: string,
  description: string,
  model: ModelIdentity | null,
  decode: (pages: DocumentPages) => AsyncIterable<DecodedPage>,
): void {
  registerEngine(
    {
      name,
      description,
      async create() {
        return { engine: name, model, decodeDocument: decode, async close() {} };
      },
    },
    { replace: true },
  );
}

function settings(engine = "text", extra: Partial<RunSettings> = {}): RunSettings {
  return { engine, dpi: 150, maxPixels: 50_000_000, pages: "all", formats: ["md", "json"], model: defaultModelOptions(), ...extra };
}

function request(out: string, extra: Partial<BatchRequest> = {}): { request: BatchRequest; events: RunEvent[] } {
  const events: RunEvent[] = [];
  return {
    events,
    request: {
      inputs: [input],
      cwd: tmp.dir,
      settings: settings(),
      outputDir: out,
      resume: false,
      jobs: 1,
      readStdin: async () => Buffer.alloc(0),
      emit: (e) => events.push(e),
      signal: new AbortController().signal,
      version: "test",
      ...extra,
    },
  };
}

describe("runBatch with the text engine", () => {
  it("writes mirrored outputs, reports a bad document, and goes on", async () => {
    const out = path.join(tmp.dir, "out1");
    const { request: req, events } = request(out);
    const summary = await runBatch(req);
    expect(summary).toMatchObject({ documents: 3, done: 2, failed: 1, exitCode: 1, pages: 6 });
    expect(events[0]).toMatchObject({ type: "run-start", documents: 3, engine: "text" });
    expect(events.at(-1)).toMatchObject({ type: "run-end" });
    expect(events.find((e) => e.type === "document-failed")).toMatchObject({
      source: "in/sub/notes.pdf",
      code: "UNSUPPORTED",
      message: "looks like a text file, not a PDF or image",
    });
    const record = JSON.parse(readFileSync(path.join(out, "in/multi.json"), "utf8")) as DocumentRecord;
    expect(record.schema).toBe("ocr-document/2");
    expect(record.source).toMatchObject({ path: "in/multi.pdf", kind: "pdf", pageCount: 5 });
    expect(record.settings).toMatchObject({ engine: "text", dpi: 150, pages: "all" });
    expect(record.pages.map((p) => p.page)).toEqual([1, 2, 3, 4, 5]);
    const first = record.pages[0]!;
    expect([first.width, first.height]).toEqual([1240, 1754]);
    expect(first.blocks.length).toBeGreaterThan(3);
    for (const block of first.blocks) {
      const [x0, y0, x1, y1] = block.bbox!;
      expect(0 <= x0 && x0 <= x1 && x1 <= first.width && 0 <= y0 && y0 <= y1 && y1 <= first.height).toBe(true);
    }
    expect(first.blocks.some((b) => b.type === "heading")).toBe(true);
    const markdown = readFileSync(path.join(out, "in/multi.md"), "utf8");
    expect(markdown).toMatch(/^<!-- page 1 -->\n\n/);
    expect(markdown).toMatch(/\n# /);
    // The blank page produces an empty document and a warning, not a failure.
    const blank = JSON.parse(readFileSync(path.join(out, "in/sub/blank.json"), "utf8")) as DocumentRecord;
    expect(blank.pages[0]!.warnings.join()).toMatch(/no text layer/);
  });

  it("honours --pages and warns about pages past the end", async () => {
    const out = path.join(tmp.dir, "out2");
    const { request: req, events } = request(out, {
      inputs: [path.join(input, "multi.pdf")],
      pageRanges: parsePageSelection("2,4-9"),
      settings: settings("text", { pages: "2,4-9" }),
    });
    await runBatch(req);
    const record = JSON.parse(readFileSync(path.join(out, "in/multi.json"), "utf8")) as DocumentRecord;
    expect(record.pages.map((p) => p.page)).toEqual([2, 4, 5]);
    expect(events.some((e) => e.type === "warning" && /past the last page/.test(e.message))).toBe(true);
  });

  it("skips up-to-date documents with --resume and redoes them when settings change", async () => {
    const out = path.join(tmp.dir, "out3");
    const one = [path.join(input, "multi.pdf")];
    await runBatch(request(out, { inputs: one }).request);
    const json = path.join(out, "in/multi.json");
    const before = statSync(json).mtimeMs;
    const again = request(out, { inputs: one, resume: true });
    const summary = await runBatch(again.request);
    expect(summary).toMatchObject({ done: 0, skipped: 1 });
    expect(statSync(json).mtimeMs).toBe(before);
    const changed = await runBatch(request(out, { inputs: one, resume: true, settings: settings("text", { dpi: 100 }) }).request);
    expect(changed).toMatchObject({ done: 1, skipped: 0 });
    expect((JSON.parse(readFileSync(json, "utf8")) as DocumentRecord).pages[0]!.width).toBe(827);
  });

  it("stops between documents when interrupted and writes nothing partial", async () => {
    const out = path.join(tmp.dir, "out4");
    const controller = new AbortController();
    const docs = Array.from({ length: 4 }, (_, i) => {
      const file = path.join(tmp.dir, `copy${i}.pdf`);
      copyFileSync(fixture("multi_page.pdf"), file);
      return file;
    });
    const { request: req, events } = request(out, { inputs: docs, signal: controller.signal });
    req.emit = (e) => {
      events.push(e);
      if (e.type === "document-done") controller.abort();
    };
    const summary = await runBatch(req);
    expect(summary.interrupted).toBe(true);
    expect(summary.done).toBe(1);
    expect(readdirSync(out).sort()).toEqual(["copy0.json", "copy0.md"]);
  });

  it("sends a single document's Markdown to the writer in --stdout mode and refuses batches", async () => {
    let markdown = "";
    const { request: req } = request(null as never, {
      inputs: [path.join(input, "multi.pdf")],
      outputDir: null,
      writeMarkdown: (m) => (markdown += m),
    });
    await runBatch(req);
    expect(markdown).toMatch(/^<!-- page 1 -->/);
    const batch = request(null as never, { outputDir: null, writeMarkdown: () => {} });
    await expect(runBatch(batch.request)).rejects.toBeInstanceOf(UsageError);
  });

  it("reads one document from stdin", async () => {
    const out = path.join(tmp.dir, "out5");
    const { request: req } = request(out, { inputs: ["-"], readStdin: async () => readFileSync(fixture("blank_page.pdf")) });
    const summary = await runBatch(req);
    expect(summary.done).toBe(1);
    expect(existsSync(path.join(out, "stdin.json"))).toBe(true);
  });
});

describe("engines", () => {
  it("fails the whole run with an environment error when the model folder holds no model", async () => {
    const empty = path.join(tmp.dir, "no-model");
    mkdirSync(empty, { recursive: true });
    const model = { ...defaultModelOptions(), dir: empty };
    const { request: req } = request(path.join(tmp.dir, "out6"), { settings: settings("model", { model }) });
    const error = await runBatch(req).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toContain(path.join(empty, "model.json"));
    expect(existsSync(path.join(tmp.dir, "out6"))).toBe(false);
  });

  /** A copy of the default bundle (links to its files) with some files replaced. */
  function bundleCopy(name: string, replace: Record<string, string>): string {
    const dir = path.join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    const source = path.join(repoRoot, "models/default");
    for (const file of readdirSync(source)) {
      if (replace[file] !== undefined) writeFileSync(path.join(dir, file), replace[file]!);
      else symlinkSync(path.join(source, file), path.join(dir, file));
    }
    return dir;
  }

  it("D2: a corrupt tokenizer.json is an environment error naming the file, raised before any thread starts", async () => {
    const dir = bundleCopy("bad-tokenizer", { "tokenizer.json": '{"not":"a tokenizer"}' });
    const model = { ...defaultModelOptions(), dir };
    const { request: req } = request(path.join(tmp.dir, "out-d2"), {
      inputs: [fixture("blank_page.pdf")],
      settings: settings("model", { model }),
    });
    const error = await runBatch(req).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toContain(path.join(dir, "tokenizer.json"));
  });

  it("D17: a vision.encoder outside the bundle folder is an environment error", async () => {
    const json = JSON.parse(readFileSync(path.join(repoRoot, "models/default/model.json"), "utf8")) as { vision: { encoder: string } };
    json.vision.encoder = path.relative(path.join(tmp.dir, "outside-encoder"), path.join(repoRoot, "models/default/encoder.onnx"));
    const dir = bundleCopy("outside-encoder", { "model.json": JSON.stringify(json) });
    const model = { ...defaultModelOptions(), dir };
    const { request: req } = request(path.join(tmp.dir, "out-d17"), {
      inputs: [fixture("blank_page.pdf")],
      settings: settings("model", { model }),
    });
    const error = await runBatch(req).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toMatch(/vision\.encoder .* points outside the bundle folder/);
  });

  it("D17: a model that fails on the first document stops the run once with exit 3; after a success it fails that document", async () => {
    let calls = 0;
    let failFrom = 1;
    registerDecoder(
      "test-broken",
      "a model whose inference throws (as onnxruntime does on a setting it cannot run)",
      { name: "broken", dir: null, id: "x" },
      async function* (pages) {
        if (++calls >= failFrom) throw new Error("Got invalid dimensions for input: pixel_values");
        yield decodedPage(pages.pageNumbers[0]!, "x", 0);
      },
    );
    const inputs = [fixture("blank_page.pdf"), fixture("multi_page.pdf"), fixture("scanned_page.pdf")];
    const { request: first } = request(path.join(tmp.dir, "out-d17b"), { inputs, settings: settings("test-broken") });
    const error = await runBatch(first).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toBe(
      `the model failed on the first document (${fixture("blank_page.pdf")}): Got invalid dimensions for input: pixel_values`,
    );
    expect(calls).toBe(1);
    calls = 0;
    failFrom = 2;
    const { request: later, events } = request(path.join(tmp.dir, "out-d17c"), { inputs, settings: settings("test-broken") });
    expect(await runBatch(later)).toMatchObject({ done: 1, failed: 2, exitCode: 1 });
    expect(events.filter((e) => e.type === "document-failed")).toHaveLength(2);
  });

  it("D15: --threads above the machine's CPU threads is held to them, with a warning", async () => {
    let threads: number | undefined;
    registerEngine(
      {
        name: "test-threads",
        description: "records the threads it is given",
        async create(s: RunSettings) {
          threads = s.model.threads;
          return { engine: "test-threads", model: null, async *decodeDocument() {}, async close() {} };
        },
      },
      { replace: true },
    );
    const cpus = (await import("node:os")).availableParallelism();
    const model = { ...defaultModelOptions(), threads: 1024 };
    const { request: req, events } = request(path.join(tmp.dir, "out-d15"), {
      inputs: [fixture("blank_page.pdf")],
      settings: settings("test-threads", { model }),
    });
    await runBatch(req);
    expect(threads).toBe(cpus);
    expect(events.find((e) => e.type === "warning")).toMatchObject({
      message: `--threads 1024: this machine has ${cpus} CPU threads; using ${cpus}`,
    });
  });

  it("D20: --focal-layers past the model's layers and a --focal-warmup past the token limit are usage errors, with or without --focal-keep", async () => {
    // any --focal-* option turns focal pruning on, also on a bundle without a focal section (the default model)
    const cases: [Partial<ReturnType<typeof defaultModelOptions>["focal"]>, RegExp][] = [
      [{ layers: 7 }, /--focal-layers 7: the model has 6 decoder layers/],
      [{ warmup: 1_000_000 }, /--focal-warmup 1000000: at least the token limit per page \(16000\)/],
      [{ keep: 0.1, warmup: 1_000_000 }, /--focal-warmup 1000000: at least the token limit per page \(16000\)/],
      [{ keep: 0.1, layers: 7 }, /--focal-layers 7: the model has 6 decoder layers/],
    ];
    for (const [focal, message] of cases) {
      const model = { ...defaultModelOptions(), focal: { enabled: true, ...focal } };
      const { request: req } = request(path.join(tmp.dir, "out-d20"), {
        inputs: [fixture("blank_page.pdf")],
        settings: settings("model", { model }),
      });
      const error = await runBatch(req).catch((e: unknown) => e);
      expect(error, JSON.stringify(focal)).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("rejects unknown engines as a usage error", async () => {
    const { request: req } = request(path.join(tmp.dir, "out7"), { settings: settings("nope") });
    await expect(runBatch(req)).rejects.toThrow(/unknown engine "nope" \(available: .*text.*\)/);
  });

  it("lets an engine render pages through the seam and replaces registrations only on request", async () => {
    const definition = {
      name: "test-ink",
      description: "counts dark pixels of each rendered page (a test double for the seam)",
      async create() {
        return {
          engine: "test-ink",
          model: { name: "ink", dir: null, id: "ink-1" },
          async *decodeDocument(pages: import("../../src/app/index.js").DocumentPages) {
            for (const pageNumber of pages.pageNumbers) {
              const raster = await pages.render(pageNumber);
              let dark = 0;
              for (let i = 0; i < raster.data.length; i += 3) if (raster.data[i]! < 128) dark++;
              yield decodedPage(pageNumber, `dark pixels: ${dark}`, 1, { width: raster.width, height: raster.height, dpi: raster.dpi });
            }
          },
          async close() {},
        };
      },
    };
    registerEngine(definition);
    expect(() => registerEngine(definition)).toThrow(/already registered/);
    registerEngine(definition, { replace: true });
    const out = path.join(tmp.dir, "out8");
    const { request: req } = request(out, {
      inputs: [fixture("table.png")],
      settings: settings("test-ink", { maxPixels: 30_000 }),
    });
    const summary = await runBatch(req);
    expect(summary).toMatchObject({ done: 1, tokens: 1 });
    const record = JSON.parse(readFileSync(path.join(out, "table.json"), "utf8")) as DocumentRecord;
    expect(record.model).toEqual({ name: "ink", dir: null, id: "ink-1" });
    expect(record.pages[0]!.width * record.pages[0]!.height).toBeLessThanOrEqual(30_000);
    expect(record.pages[0]!.warnings.join()).toMatch(/pixel cap/);
    expect(Number(record.pages[0]!.markdown.split(": ")[1])).toBeGreaterThan(100);
  });
});

describe("the PDF parser's memory during a run", () => {
  it("goes once every page the run reads is rendered, and a later step opens the document again", async () => {
    const seen: { alive: number; text: number }[] = [];
    registerDecoder(
      "test-parser",
      "renders every page, then reads how many PDF parsers are alive and a page's text layer",
      { name: "parser", dir: null, id: "parser-1" },
      async function* (pages) {
        const rasters = [];
        for (const pageNumber of pages.pageNumbers) rasters.push(await pages.render(pageNumber));
        // (a stopped thread exits a moment later)
        for (let k = 0; k < 100 && pdfWorkersAlive() > 0; k++) await new Promise((r) => setTimeout(r, 20));
        seen.push({ alive: pdfWorkersAlive(), text: (await pages.textContent(1))!.runs.length });
        for (const [k, raster] of rasters.entries())
          yield decodedPage(pages.pageNumbers[k]!, "page", 1, { width: raster.width, height: raster.height, dpi: raster.dpi });
      },
    );
    const { request: req } = request(path.join(tmp.dir, "out-parser"), {
      inputs: [fixture("multi_page.pdf")],
      settings: settings("test-parser", { pages: "1-2" }),
      pageRanges: parsePageSelection("1-2"),
    });
    expect(await runBatch(req)).toMatchObject({ done: 1, pages: 2 });
    // the run's only PDF: no parser thread alive once its pages were rendered, its text read by opening it again
    expect(seen).toEqual([{ alive: 0, text: expect.any(Number) }]);
    expect(seen[0]!.text).toBeGreaterThan(20);
  });
});

describe("jobsForMemory", () => {
  it("holds --jobs to three quarters of free memory, never below one document", () => {
    const MiB = 2 ** 20;
    expect(jobsForMemory(8, 100 * MiB, 1000 * MiB)).toBe(7);
    expect(jobsForMemory(4, 100 * MiB, 1000 * MiB)).toBe(4);
    expect(jobsForMemory(4, 900 * MiB, 1000 * MiB)).toBe(1);
  });
});

describe("planParallelism", () => {
  it("gives several documents one thread each unless --jobs is given; one document keeps the threads", () => {
    // --threads 2 over ten documents: three at once (one more than the threads), a thread each
    expect(planParallelism(undefined, 2, 10, 2)).toEqual({ jobs: 3, threads: 1 });
    // --threads 1: one document at a time
    expect(planParallelism(undefined, 1, 10, 2)).toEqual({ jobs: 1, threads: 1 });
    // no --threads: one document per core and one more, never more documents than there are
    expect(planParallelism(undefined, undefined, 10, 4)).toEqual({ jobs: 5, threads: 1 });
    expect(planParallelism(undefined, 8, 3, 8)).toEqual({ jobs: 3, threads: 2 });
    // one document: the threads are its own; without --threads each runtime keeps its default
    expect(planParallelism(undefined, 2, 1, 2)).toEqual({ jobs: 1, threads: 2 });
    expect(planParallelism(undefined, undefined, 1, 2)).toEqual({ jobs: 1, threads: undefined });
    // --jobs given: the threads are shared out among its documents
    expect(planParallelism(1, 2, 10, 2)).toEqual({ jobs: 1, threads: 2 });
    expect(planParallelism(2, undefined, 10, 2)).toEqual({ jobs: 2, threads: 1 });
    expect(planParallelism(4, 2, 10, 2)).toEqual({ jobs: 4, threads: 1 });
    // an engine that reads one document on every thread: one at a time, the threads as given
    expect(planParallelism(undefined, 2, 10, 2, false)).toEqual({ jobs: 1, threads: 2 });
    expect(planParallelism(undefined, undefined, 10, 2, false)).toEqual({ jobs: 1, threads: undefined });
  });

  it("runs a batch's documents a thread each when --threads is given and --jobs is not", async () => {
    let threads: number | undefined;
    let inFlight = 0;
    let most = 0;
    let target = 1;
    let patience = 5000;
    let byDocument = true;
    registerEngine(
      {
        name: "test-parallel",
        description: "records its threads and how many documents it reads at once",
        async create(s: RunSettings) {
          threads = s.model.threads;
          return {
            engine: "test-parallel",
            model: null,
            async *decodeDocument() {
              most = Math.max(most, ++inFlight);
              // held until `target` documents are in flight (opening a PDF takes longer than a png), or `patience` ms
              for (let waited = 0; inFlight < target && waited < patience; waited += 10) await new Promise((r) => setTimeout(r, 10));
              await new Promise((resolve) => setTimeout(resolve, 20));
              inFlight--;
            },
            async close() {},
          };
        },
        readsDocumentsAtOnce: async () => byDocument,
      },
      { replace: true },
    );
    const cpus = (await import("node:os")).availableParallelism();
    target = cpus >= 2 ? 3 : 1;
    const model = { ...defaultModelOptions(), threads: 2 };
    const inputs = ["blank_page.pdf", "multi_page.pdf", "table.png"].map((f) => fixture(f));
    const { request: req } = request(path.join(tmp.dir, "out-parallel"), {
      inputs,
      settings: settings("test-parallel", { model }),
      jobs: undefined,
    });
    await runBatch(req);
    expect(most).toBe(cpus >= 2 ? 3 : 1);
    expect(threads).toBe(1);
    // --jobs 1 given: one document at a time with both threads
    most = 0;
    target = 2;
    patience = 500;
    const { request: one } = request(path.join(tmp.dir, "out-parallel-1"), {
      inputs,
      settings: settings("test-parallel", { model }),
      jobs: 1,
    });
    await runBatch(one);
    expect(most).toBe(1);
    expect(threads).toBe(Math.min(2, cpus));
    // an engine that keeps every thread on one document (a large model's decoder): one at a time, both threads
    most = 0;
    byDocument = false;
    const { request: whole } = request(path.join(tmp.dir, "out-parallel-2"), {
      inputs,
      settings: settings("test-parallel", { model }),
      jobs: undefined,
    });
    await runBatch(whole);
    expect(most).toBe(1);
    expect(threads).toBe(Math.min(2, cpus));
  });

  it("prepares a document's pages one per thread with the default model, and reads them as one thread does", async () => {
    // how many pages the line front end works on at once
    const views = LineEncoder.prototype.views;
    let inFlight = 0;
    let most = 0;
    LineEncoder.prototype.views = async function (this: LineEncoder, ...args: Parameters<typeof views>) {
      most = Math.max(most, ++inFlight);
      try {
        return await views.apply(this, args);
      } finally {
        inFlight--;
      }
    };
    try {
      const markdown: string[] = [];
      for (const threads of [1, 2]) {
        most = 0;
        const out = path.join(tmp.dir, `out-ahead-${threads}`);
        const { request: req } = request(out, {
          inputs: [fixture("multi_page.pdf")],
          pageRanges: parsePageSelection("1-3"),
          settings: settings("model", { model: { ...defaultModelOptions(), threads } }),
          jobs: undefined,
        });
        expect(await runBatch(req)).toMatchObject({ done: 1, pages: 3 });
        expect(most).toBe(threads);
        markdown.push(readFileSync(path.join(out, "multi_page.md"), "utf8"));
      }
      expect(markdown[0]!.length).toBeGreaterThan(1000);
      expect(markdown[1]).toBe(markdown[0]);
    } finally {
      LineEncoder.prototype.views = views;
    }
  }, 120_000);
});

describe("reliability (issue 19)", () => {
  it("D1: a runaway PDF (q nested 20,000 deep) fails with TIMEOUT at --page-timeout and the next document is written", async () => {
    const dir = path.join(tmp.dir, "d1");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "a-deepq.pdf"), hostilePdf("deepq", 20000));
    copyFileSync(fixture("multi_page.pdf"), path.join(dir, "b-good.pdf"));
    const out = path.join(tmp.dir, "out-d1");
    const { request: req, events } = request(out, { inputs: [dir], pageTimeoutMs: 4000 });
    const summary = await runBatch(req);
    expect(events.filter((e) => e.type === "document-failed")).toHaveLength(1);
    expect(summary).toMatchObject({ documents: 2, done: 1, failed: 1, exitCode: 1 });
    const failed = events.find((e) => e.type === "document-failed");
    expect(failed).toMatchObject({ code: "TIMEOUT" });
    expect((failed as { message: string }).message).toMatch(/page 1 took longer than the 4 s budget/);
    expect(existsSync(path.join(out, "d1/b-good.json"))).toBe(true);
  });

  it("D9: --engine text keeps the readable pages of a document whose page tree loops (pagecycle)", async () => {
    const file = path.join(tmp.dir, "pagecycle.pdf");
    writeFileSync(file, hostilePdf("pagecycle"));
    const out = path.join(tmp.dir, "out-d9");
    const { request: req, events } = request(out, { inputs: [file] });
    const summary = await runBatch(req);
    expect(summary).toMatchObject({ done: 1, failed: 0, pages: 2, failedPages: 1, exitCode: 1 });
    expect(events.filter((e) => e.type === "page-done").map((e) => (e as { error?: string }).error)).toEqual([
      undefined,
      "page 2 cannot be read: Pages tree contains circular reference.",
    ]);
    const record = JSON.parse(readFileSync(path.join(out, "pagecycle.json"), "utf8")) as DocumentRecord;
    expect(record.pages[0]!.markdown).toBe("Hello from a pathological PDF");
  });

  it("D19: a warning repeated on every page of a 40-page blank PDF is shown 3 times and counted, all kept in the JSON", async () => {
    const { PDFDocument } = await import("pdf-lib");
    const pdf = await PDFDocument.create();
    for (let i = 0; i < 40; i++) pdf.addPage([200, 200]);
    const file = path.join(tmp.dir, "blank40.pdf");
    writeFileSync(file, await pdf.save());
    const out = path.join(tmp.dir, "out-d19");
    const { request: req, events } = request(out, { inputs: [file] });
    await runBatch(req);
    const shown = events.filter((e) => e.type === "warning").map((e) => (e as { message: string }).message);
    expect(shown).toEqual([
      "page 1 has no text layer (scanned?); use --engine model to recognise it",
      "page 2 has no text layer (scanned?); use --engine model to recognise it",
      "page 3 has no text layer (scanned?); use --engine model to recognise it",
      '37 more warnings like "page 1 has no text layer (scanned?); use --engine model to recognise it" (all are in the JSON)',
    ]);
    const record = JSON.parse(readFileSync(path.join(out, "blank40.json"), "utf8")) as DocumentRecord;
    expect(record.pages.filter((p) => p.warnings.length === 1)).toHaveLength(40);
  });

  it("D13: an interrupted run's run-end carries the signal's exit code, and a page cut short is not page-done", async () => {
    const controller = new AbortController();
    registerDecoder("test-cut", "yields a page after the abort, as the model does with a cancelled page", null, async function* (pages) {
      for (const pageNumber of pages.pageNumbers) {
        if (pageNumber === 2) controller.abort({ signal: "SIGTERM", exitCode: 143 });
        yield decodedPage(pageNumber, "cut", 1);
      }
    });
    const out = path.join(tmp.dir, "out-d13");
    const { request: req, events } = request(out, {
      inputs: [fixture("multi_page.pdf")],
      settings: settings("test-cut"),
      signal: controller.signal,
    });
    const summary = await runBatch(req);
    expect(summary).toMatchObject({ interrupted: true, exitCode: 143 });
    expect(events.at(-1)).toMatchObject({ type: "run-end", summary: { interrupted: true, exitCode: 143 } });
    expect(events.filter((e) => e.type === "page-done").map((e) => (e as { page: number }).page)).toEqual([1]);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    // an abort without a reason (the API's controller.abort()) is a Ctrl-C: 130
    const plain = new AbortController();
    plain.abort();
    const { request: again } = request(out, { inputs: [fixture("multi_page.pdf")], signal: plain.signal });
    expect((await runBatch(again)).exitCode).toBe(130);
  });
});

describe("outputs (issue 19)", () => {
  it("D6: a second run into one -o never overwrites another document's outputs of the same name", async () => {
    const a = path.join(tmp.dir, "d6/a/report.pdf");
    const b = path.join(tmp.dir, "d6/b/report.pdf");
    mkdirSync(path.dirname(a), { recursive: true });
    mkdirSync(path.dirname(b), { recursive: true });
    copyFileSync(fixture("multi_page.pdf"), a);
    copyFileSync(fixture("blank_page.pdf"), b);
    const out = path.join(tmp.dir, "out-d6");
    // inputs outside the current folder keep only their base name: both want out/report.*
    const cwd = path.join(tmp.dir, "d6/elsewhere");
    mkdirSync(cwd, { recursive: true });
    const run = async (file: string) => {
      const { request: req, events } = request(out, { inputs: [file], cwd });
      await runBatch(req);
      return events;
    };
    await run(a);
    const events = await run(b);
    expect(events.find((e) => e.type === "warning")).toMatchObject({
      message: `${path.join(out, "report.md")} holds the results of another document (${a}); writing ${path.join(out, "report-2.md")} instead`,
    });
    const source = (f: string) => (JSON.parse(readFileSync(path.join(out, f), "utf8")) as DocumentRecord).source.path;
    expect([source("report.json"), source("report-2.json")]).toEqual([a, b]);
    // each document keeps its own name on later runs, and an edited document overwrites its own outputs
    expect((await run(a)).find((e) => e.type === "warning")).toBeUndefined();
    copyFileSync(fixture("scanned_page.pdf"), b);
    expect((await run(b)).find((e) => e.type === "warning")).toMatchObject({ message: expect.stringContaining("report-2.md instead") });
    expect(readdirSync(out).sort()).toEqual(["report-2.json", "report-2.md", "report.json", "report.md"]);
  });

  it("D10: --resume redoes documents when any bundle file changes (same model id), and hashes each file once", async () => {
    const bundle = path.join(tmp.dir, "d10-bundle");
    mkdirSync(bundle, { recursive: true });
    writeFileSync(path.join(bundle, "weights.bin"), Buffer.alloc(4096, 1));
    writeFileSync(path.join(bundle, "tokenizer.json"), "{}");
    registerDecoder(
      "test-bundle",
      "a model whose id (like the real engine's) does not hash the weight bytes",
      { name: "b", dir: bundle, id: "same-id" },
      async function* (pages) {
        for (const pageNumber of pages.pageNumbers) yield decodedPage(pageNumber, "x", 0);
      },
    );
    const out = path.join(tmp.dir, "out-d10");
    const home = path.join(tmp.dir, "d10-home");
    const previous = process.env.OCR_HOME;
    process.env.OCR_HOME = home;
    try {
      const run = async () => {
        const { request: req } = request(out, { inputs: [fixture("blank_page.pdf")], settings: settings("test-bundle"), resume: true });
        return runBatch(req);
      };
      expect(await run()).toMatchObject({ done: 1, skipped: 0 });
      expect(await run()).toMatchObject({ done: 0, skipped: 1 });
      // a zeroed tensor: same size, new bytes
      writeFileSync(path.join(bundle, "weights.bin"), Buffer.alloc(4096, 0));
      expect(await run()).toMatchObject({ done: 1, skipped: 0 });
      expect(await run()).toMatchObject({ done: 0, skipped: 1 });
      const cache = JSON.parse(readFileSync(path.join(home, "file-hashes.json"), "utf8")) as Record<string, { size: number }>;
      expect(cache[path.join(bundle, "weights.bin")]).toMatchObject({ size: 4096 });
    } finally {
      if (previous === undefined) delete process.env.OCR_HOME;
      else process.env.OCR_HOME = previous;
    }
  });

  it("D8: an unusable -o (a file, or under a file) is a usage error before any model loads", async () => {
    let created = 0;
    registerEngine(
      {
        name: "test-count",
        description: "counts loads",
        async create() {
          created++;
          return { engine: "test-count", model: null, async *decodeDocument() {}, async close() {} };
        },
      },
      { replace: true },
    );
    const file = path.join(tmp.dir, "d8-file");
    writeFileSync(file, "x\n");
    for (const [out, message] of [
      [file, `-o ${file}: is a file, not a folder`],
      [path.join(file, "sub"), `-o ${path.join(file, "sub")}: a part of the path is a file, not a folder`],
    ] as const) {
      const { request: req } = request(out, { inputs: [fixture("blank_page.pdf")], settings: settings("test-count") });
      const error = await runBatch(req).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(message);
    }
    expect(created).toBe(0);
  });
});
