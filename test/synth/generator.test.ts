// The synthetic document generator's ground truth: each rendered page's PDF text layer equals its Markdown.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDocument } from "../../src/input/index.js";

const CORPUS = path.resolve("fixtures/synth/corpus");
const GENERATOR = path.resolve("scripts/synth/generate.mjs");

interface TruthPage {
  markdown: string;
  columns: number;
  lines: { box: number[]; text: string }[];
  blocks: { kind: string; md: string; box: number[] }[];
  width: number;
  height: number;
}

/** What a reader sees of our Markdown: list markers as drawn, no heading/code/table markup, spaces collapsed. */
function markdownAsDrawn(md: string): string {
  return md
    .replace(/<\/?(table|tr)>/g, " ")
    .replace(/<\/?td>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/^```$/gm, " ")
    .replace(/^#{1,6} /gm, "")
    .replace(/^- /gm, "\u2022 ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("synthetic document generator", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ocr-synth-"));
    // Seeds chosen so the set covers one, two and three columns, lists, tables and code blocks.
    for (const seed of [3, 7, 10]) {
      execFileSync(
        "node",
        [GENERATOR, "--corpus", CORPUS, "--out", path.join(dir, `s${seed}`), "--split", "test", "--count", "2", "--seed", String(seed)],
        { stdio: "pipe" },
      );
    }
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const docs = () => [3, 7, 10].flatMap((seed) => [0, 1].map((i) => path.join(dir, `s${seed}`, `doc-0000${i}`)));

  it("writes a text layer that matches each page's Markdown exactly (up to whitespace)", async () => {
    let pages = 0;
    for (const base of docs()) {
      const truth = JSON.parse(readFileSync(base + ".json", "utf8")) as { pages: TruthPage[] };
      const doc = await openDocument(base + ".pdf");
      try {
        expect(doc.pageCount).toBe(truth.pages.length);
        for (let n = 1; n <= doc.pageCount; n++) {
          const text = await doc.textContent(n);
          const layer = text!.runs
            .map((r) => r.text)
            .join(" ")
            .replace(/\s+/g, " ")
            .trim();
          expect(layer).toBe(markdownAsDrawn(truth.pages[n - 1]!.markdown));
          pages++;
        }
      } finally {
        await doc.close();
      }
    }
    expect(pages).toBeGreaterThanOrEqual(6);
  });

  it("covers headings, paragraphs, lists, tables, code, headers and footers across its seeds", () => {
    const kinds = new Set<string>();
    const columns = new Set<number>();
    for (const base of docs()) {
      const truth = JSON.parse(readFileSync(base + ".json", "utf8")) as { pages: TruthPage[] };
      for (const p of truth.pages) {
        columns.add(p.columns);
        for (const b of p.blocks) kinds.add(b.kind);
      }
    }
    for (const k of ["header", "footer", "heading", "para", "list", "table", "code"]) expect(kinds).toContain(k);
    expect(columns.size).toBeGreaterThanOrEqual(2);
  });

  it("gives every line a box inside its page, and page numbers in the footer", () => {
    for (const base of docs()) {
      const truth = JSON.parse(readFileSync(base + ".json", "utf8")) as { pages: TruthPage[] };
      truth.pages.forEach((p, i) => {
        for (const l of p.lines) {
          expect(l.box[0]).toBeGreaterThanOrEqual(0);
          expect(l.box[2]).toBeLessThanOrEqual(p.width);
          expect(l.box[1]).toBeGreaterThanOrEqual(0);
          expect(l.box[3]).toBeLessThanOrEqual(p.height);
          expect(l.box[2]).toBeGreaterThan(l.box[0]);
        }
        expect(p.blocks.at(-1)).toMatchObject({ kind: "footer", md: String(i + 1) });
        expect(p.blocks[0]!.kind).toBe("header");
      });
    }
  });

  it("is deterministic for a seed", () => {
    const again = path.join(dir, "again");
    execFileSync("node", [GENERATOR, "--corpus", CORPUS, "--out", again, "--split", "test", "--count", "1", "--seed", "7"], {
      stdio: "pipe",
    });
    expect(readFileSync(path.join(again, "doc-00000.json"), "utf8")).toBe(readFileSync(path.join(dir, "s7", "doc-00000.json"), "utf8"));
  });
});

describe("synthetic document generator, LaTeX-manual look (--latex)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "ocr-synth-latex-"));
    execFileSync("node", [GENERATOR, "--corpus", CORPUS, "--out", dir, "--split", "test", "--count", "4", "--seed", "5", "--latex", "1"], {
      stdio: "pipe",
    });
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bases = () => [0, 1, 2, 3].map((i) => path.join(dir, `doc-0000${i}`));
  type LatexLine = { text: string; md?: string };

  it("joins hyphenated words in the Markdown: the text layer, hyphens removed at line ends, equals it", async () => {
    let hyphenated = 0;
    for (const base of bases()) {
      const truth = JSON.parse(readFileSync(base + ".json", "utf8")) as { pages: (TruthPage & { lines: LatexLine[] })[] };
      const doc = await openDocument(base + ".pdf");
      try {
        for (let n = 1; n <= doc.pageCount; n++) {
          const page = truth.pages[n - 1]!;
          const broken = page.lines.filter((l) => l.md !== undefined && l.text.endsWith("-"));
          hyphenated += broken.length;
          for (const l of broken) expect(l.text).toBe(l.md + "-");
          // the drawn line ends in "head-"; the Markdown has the word whole
          let layer = (await doc.textContent(n))!.runs
            .map((r) => r.text)
            .join(" ")
            .replace(/\s+/g, " ")
            .trim();
          for (const l of broken) layer = layer.replace(l.text + " ", l.md!);
          expect(layer).toBe(markdownAsDrawn(page.markdown));
        }
      } finally {
        await doc.close();
      }
    }
    expect(hyphenated).toBeGreaterThan(0);
  });

  it("numbers section headings, and sets the page number on the running header's line", () => {
    let numbered = 0;
    for (const base of bases()) {
      const truth = JSON.parse(readFileSync(base + ".json", "utf8")) as { pages: TruthPage[] };
      truth.pages.forEach((p, i) => {
        expect(
          p.blocks
            .slice(0, 2)
            .map((b) => b.kind)
            .sort(),
        ).toEqual(["header", "pagenum"]);
        expect(p.blocks.find((b) => b.kind === "pagenum")!.md).toBe(String(i + 1));
        const [a, b] = p.lines;
        expect(Math.abs(a!.box[3]! - b!.box[3]!)).toBeLessThan(0.01); // same baseline
        numbered += p.blocks.filter((blk) => /^#{2,3} \d+(\.\d+)* \S/.test(blk.md)).length;
      });
    }
    expect(numbered).toBeGreaterThan(0);
  });
});
