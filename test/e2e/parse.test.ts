// End to end: the real CLI with the default model bundle on fixtures — one page, several pages, a broken page among good ones.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DocumentRecord } from "../../src/output/index.js";
import { ocr } from "../helpers/cli.js";
import { repoRoot, tempDir } from "../helpers/paths.js";
import { cer, modelReads, wordF1 } from "./score.js";

const fx = (name: string) => path.join(repoRoot, "test/e2e/fixtures", name);
const truth = (name: string) => readFileSync(fx(name), "utf8");
const modelDir = path.join(repoRoot, "models/default");
const reads = modelReads(modelDir);
// Small caps keep a model run to a few seconds a page on two cores; the text tests lift them.
const CAP = "24";
const common = ["--threads", "1", "--max-tokens", CAP];
// run from the fixtures folder so outputs land directly under -o (inputs below the cwd keep their relative path)
const cwd = path.join(repoRoot, "test/e2e/fixtures");

interface Event {
  type: string;
  [k: string]: unknown;
}
const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Event);
const record = (file: string) => JSON.parse(readFileSync(file, "utf8")) as DocumentRecord;

describe("ocr parse with the default model", () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir("ocr-e2e-");
  });
  afterAll(() => tmp.cleanup());

  it("parses a one-page PDF into Markdown and JSON; the token cap ends the page as truncated, warned and counted", async () => {
    const out = path.join(tmp.dir, "one");
    const r = await ocr(["parse", "synth-1page.pdf", "-o", out, ...common], { cwd });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.exitCode).toBe(0);
    const doc = record(path.join(out, "synth-1page.json"));
    expect(doc.model).toMatchObject({ name: "default", dir: modelDir });
    expect(doc.source).toMatchObject({ kind: "pdf", pageCount: 1 });
    expect(doc.pages).toHaveLength(1);
    const [page] = doc.pages;
    expect(page).toMatchObject({ page: 1, tokenCount: 24, truncated: true });
    expect(page!.timings).toEqual(
      expect.objectContaining({
        render: expect.any(Number),
        encode: expect.any(Number),
        prefill: expect.any(Number),
        decode: expect.any(Number),
      }),
    );
    expect(page!.warnings.join("\n")).toMatch(/page 1 stopped at the token limit \(24\)/);
    expect(existsSync(path.join(out, "synth-1page.md"))).toBe(true);
    // every block of the page has a role and a box in page pixels, and its lines theirs (issue 17: bbox null)
    expect(page!.blocks.length).toBeGreaterThan(0);
    for (const block of page!.blocks) {
      expect(typeof block.type).toBe("string");
      const [x0, y0, x1, y1] = block.bbox!;
      expect(0 <= x0 && x0 < x1 && x1 <= page!.width && 0 <= y0 && y0 < y1 && y1 <= page!.height).toBe(true);
      expect(block.lines!.length).toBeGreaterThan(0);
    }
    expect(r.stderr).toMatch(/synth-1page\.pdf: warning: page 1 stopped at the token limit \(24\)/);
    expect(r.stderr).toMatch(/1 document: 1 done; 1 page \(1 truncated\), 24 tokens/);
  });

  it("reads a document on stdin and writes the same Markdown to stdout (greedy decoding is deterministic)", async () => {
    const r = await ocr(["parse", "-", "--stdout", ...common], { cwd, input: readFileSync(fx("synth-1page.pdf")) });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(tmp.dir, "one", "synth-1page.md"), "utf8"));
  });

  it("decodes a two-page PDF in one pass, page by page in order, with JSON Lines events", async () => {
    const out = path.join(tmp.dir, "two");
    const r = await ocr(["parse", "synth-2pages.pdf", "-o", out, "--jsonl", ...common], { cwd });
    expect(r.exitCode).toBe(0);
    const ev = events(r.stdout);
    expect(ev.find((e) => e.type === "document-start")).toMatchObject({ pageCount: 2, pages: 2 });
    const done = ev.filter((e) => e.type === "page-done");
    expect(done.map((e) => e.page)).toEqual([1, 2]);
    // a page ends at <PAGE> or at the cap; only the cap marks it truncated
    for (const e of done) {
      expect(e.tokenCount).toBeGreaterThan(0);
      expect(e.tokenCount).toBeLessThanOrEqual(24);
      expect(e.truncated).toBe(e.tokenCount === 24);
      expect(e.tokensPerSecond).toBeGreaterThan(0);
    }
    const tokens = done.reduce((n, e) => n + (e.tokenCount as number), 0);
    const truncatedPages = done.filter((e) => e.truncated).length;
    // page 1's visual tokens retired when page 2's came in: what stays attended grows by the text window at most
    const [c1, c2] = done.map((e) => e.cacheEntries as number);
    // what stays attended is one view (a page for a page-grid model, a text line for a line-unit one) plus the window
    const bundle = JSON.parse(readFileSync(path.join(modelDir, "model.json"), "utf8"));
    const [rows, cols] = bundle.vision.modes[bundle.vision.mode].grid as [number, number];
    const view = rows * (cols + 1) + 1;
    if (!bundle.vision.lines) expect(c1).toBeGreaterThan(view);
    expect(c1).toBeGreaterThan(24);
    expect(c1).toBeLessThanOrEqual(64 + view + 128 + 2);
    expect(c2! - c1!).toBeLessThanOrEqual(128 + 2);
    expect(done[1]!.cacheBytes).toBe(done[0]!.cacheBytes);
    const end = ev.at(-1)!;
    expect(end).toMatchObject({ type: "run-end", summary: { done: 1, pages: 2, tokens, truncatedPages, failedPages: 0, exitCode: 0 } });
    const doc = record(path.join(out, "synth-2pages.json"));
    expect(doc.pages.map((p) => p.page)).toEqual([1, 2]);
    const md = readFileSync(path.join(out, "synth-2pages.md"), "utf8");
    expect(md.indexOf("<!-- page 1 -->")).toBeGreaterThanOrEqual(0);
    expect(md.indexOf("<!-- page 2 -->")).toBeGreaterThan(md.indexOf("<!-- page 1 -->"));
  });

  it("a broken page among good ones: the good pages decode, the broken one is named, the document is written, exit 1", async () => {
    const out = path.join(tmp.dir, "broken");
    const r = await ocr(["parse", "broken-frame.tif", "-o", out, ...common], { cwd });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/broken-frame\.tif: warning: page 2 has no text: corrupt TIFF image \(page 2\)/);
    const doc = record(path.join(out, "broken-frame.json"));
    expect(doc.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    // the good pages hold one short line: a model that reads may end them before the cap
    for (const p of [doc.pages[0]!, doc.pages[2]!]) {
      expect(p.tokenCount).toBeGreaterThan(0);
      expect(p.tokenCount).toBeLessThanOrEqual(24);
      expect(p.truncated).toBe(p.tokenCount === 24);
    }
    const truncated = doc.pages.filter((p) => p.truncated).length;
    expect(r.stderr).toContain(`3 pages (${truncated ? `${truncated} truncated, ` : ""}1 unreadable)`);
    expect(doc.pages[1]!.tokenCount).toBe(0);
    expect(doc.pages[1]).toMatchObject({ markdown: "", truncated: false, width: 600, height: 400 });
    expect(doc.pages[1]!.warnings[0]).toMatch(/corrupt TIFF image \(page 2\)/);
  });

  it("a folder with a good and a bad document: the bad one fails by name, the good one is written", async () => {
    const out = path.join(tmp.dir, "batch");
    const r = await ocr(["parse", fx("synth-1page.pdf"), "PROVENANCE.md", "-o", out, ...common], { cwd });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/PROVENANCE\.md: .*not a PDF or image/);
    expect(existsSync(path.join(out, "synth-1page.json"))).toBe(true);
  });

  // Recognised text: honest only once the bundle reads (its committed evaluation record says so).
  it.skipIf(!reads.reads)(`recognises a clean one-page synthetic document (${reads.why})`, async () => {
    const ref = truth("synth-1page.p1.md");
    const r = await ocr(["parse", "synth-1page.pdf", "--stdout", "--threads", "2", "--max-tokens", String(Math.ceil(ref.length * 1.3))], {
      cwd,
    });
    expect(r.exitCode).toBe(0);
    // the words are read (order-free), and the page as a whole is close: a paragraph the line order moves costs CER twice
    expect(wordF1(r.stdout, ref)).toBeGreaterThan(0.85);
    expect(cer(r.stdout, ref)).toBeLessThan(0.5);
    expect(r.stdout).toContain("## Name");
  });

  it.skipIf(!reads.reads)(`splits a two-page document's text at <PAGE> (${reads.why})`, async () => {
    const out = path.join(tmp.dir, "two-text");
    const refs = [truth("synth-2pages.p1.md"), truth("synth-2pages.p2.md")];
    // the generator's Markdown keeps the running header and page number: so does --keep-headers
    const r = await ocr(
      [
        "parse",
        "synth-2pages.pdf",
        "-o",
        out,
        "--format",
        "json",
        "--threads",
        "2",
        "--max-tokens",
        String(Math.ceil(refs[0]!.length * 1.3)),
        "--keep-headers",
      ],
      { cwd },
    );
    expect(r.exitCode).toBe(0);
    const doc = record(path.join(out, "synth-2pages.json"));
    expect(cer(doc.pages[0]!.markdown, refs[0]!)).toBeLessThan(0.3);
    expect(cer(doc.pages[1]!.markdown, refs[1]!)).toBeLessThan(0.4);
  });

  it("--fixations writes, per focal decode step, the grid cells kept; --no-focal with it is a usage error", async () => {
    const out = path.join(tmp.dir, "fix");
    const file = path.join(out, "nested", "fixations.jsonl");
    const r = await ocr(
      ["parse", "synth-1page.pdf", "-o", out, ...common, "--focal-keep", "0.05", "--focal-warmup", "2", "--fixations", file],
      { cwd },
    );
    expect(r.exitCode).toBe(0);
    const bundle = JSON.parse(readFileSync(path.join(modelDir, "model.json"), "utf8"));
    const [rows, cols] = bundle.vision.modes[bundle.vision.mode].grid as [number, number];
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // 24 tokens, the first 2 of each view with full attention (warm-up); a line-unit model has one view per line
    const views = bundle.vision.lines ? new Set(lines.map((l) => l.line.index)).size : 1;
    expect(lines.length).toBeGreaterThanOrEqual(24 - 2 * (views + 1));
    expect(lines.length).toBeLessThanOrEqual(24);
    const keep = Math.ceil(0.05 * (rows * (cols + 1) + 1));
    for (const l of lines) {
      expect(l).toMatchObject({ source: "synth-1page.pdf", page: 1 });
      expect(l.cells.length).toBeLessThanOrEqual(keep);
      for (const [row, col] of l.cells) {
        expect(row).toBeGreaterThanOrEqual(0);
        expect(row).toBeLessThan(rows);
        expect(col).toBeGreaterThanOrEqual(0);
        expect(col).toBeLessThan(cols);
      }
    }
    expect(lines.some((l) => l.cells.length > 0)).toBe(true);
    if (bundle.vision.lines) {
      // line-unit model: each token names the line it was read from, and the kept slots lie on that line
      for (const l of lines) {
        const [x0, y0, x1, y1] = l.line.box as number[];
        const [w, h] = l.pageSize as [number, number];
        expect(l.points.length).toBeLessThanOrEqual(l.cells.length);
        for (const [x, y] of l.points as [number, number][]) {
          expect(x * w).toBeGreaterThanOrEqual(x0 - 1);
          expect(x * w).toBeLessThanOrEqual(x1 + 1);
          expect(y * h).toBeGreaterThanOrEqual(y0);
          expect(y * h).toBeLessThanOrEqual(y1);
        }
      }
    }
    // drawn over the page: the overlay differs from the plain rendering
    const plain = await ocr(["render", "synth-1page.pdf", "-o", path.join(out, "plain")], { cwd });
    const drawn = await ocr(["render", "synth-1page.pdf", "-o", path.join(out, "drawn"), "--fixations", file], { cwd });
    expect(plain.exitCode).toBe(0);
    expect(drawn.exitCode).toBe(0);
    const png = (dir: string) => readFileSync(path.join(out, dir, "page-0001.png"));
    expect(png("drawn").equals(png("plain"))).toBe(false);
    const other = await ocr(["render", "synth-2pages.pdf", "-o", path.join(out, "other"), "--fixations", file], { cwd });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toMatch(/--fixations .*has no records for synth-2pages\.pdf/);
    expect(readdirSync(path.dirname(file))).toEqual(["fixations.jsonl"]);
    const bad = await ocr(["parse", "synth-1page.pdf", "-o", out, ...common, "--no-focal", "--fixations", file], { cwd });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--fixations .*focal pruning/);
  });
});
