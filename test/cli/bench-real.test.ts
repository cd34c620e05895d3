// `ocr bench parse --real`: the dev set's split rule, manifest and unit tests, and the scoring parts of the
// benchmark. Node only: no poppler, tesseract or model is needed.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const load = async (rel: string) => import(pathToFileURL(path.join(root, rel)).href);
const { isDevDocument } = await load("bench/real/split.mjs");
const scorer = await load("scripts/bench-real/unit-tests.mjs");
const runner = await load("scripts/bench-real/run.mjs");
const { degradation } = await load("scripts/bench-real/degrade.mjs");
const { funsdTruth, pubtabnetHtml } = await load("scripts/bench-real/truth.mjs");

type Test = Record<string, unknown> & { id: string; pdf: string; type: string };
type Page = { id: string; kinds: string[]; truth: string; file: string; source: { package?: string; path?: string; shared?: string } };
const manifest: { pages: Page[] } = JSON.parse(readFileSync(path.join(root, "bench/real/manifest.json"), "utf8"));
const tests: Test[] = readFileSync(path.join(root, "bench/real/tests.jsonl"), "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));
const pass = (t: object, md: string): boolean => scorer.runTest({ pdf: "x.pdf", page: 1, id: "t", ...t }, md)[0];

describe("split rule (bench/real/split.mjs)", () => {
  it("puts a document in the dev set when sha1('PKG:PATH')'s first byte is below 26", () => {
    const dev = "texlive-xetex:/usr/share/doc/texlive-doc/xelatex/xecyr/xecyr-ex3-ru-x.pdf";
    const train = "texlive-xetex:/usr/share/doc/texlive-doc/xelatex/xecyr/xecyr-ex1-ru-x.pdf";
    expect(createHash("sha1").update(dev).digest()[0]).toBeLessThan(26);
    expect(createHash("sha1").update(train).digest()[0]).toBeGreaterThanOrEqual(26);
    expect(isDevDocument("texlive-xetex", "/usr/share/doc/texlive-doc/xelatex/xecyr/xecyr-ex3-ru-x.pdf")).toBe(true);
    expect(isDevDocument("texlive-xetex", "/usr/share/doc/texlive-doc/xelatex/xecyr/xecyr-ex1-ru-x.pdf")).toBe(false);
  });
  it("keeps about a tenth of documents and rejects a malformed name", () => {
    let dev = 0;
    for (let i = 0; i < 4000; i++) if (isDevDocument("pkg", `/usr/share/doc/pkg/doc-${i}.pdf`)) dev++;
    expect(dev / 4000).toBeGreaterThan(0.08);
    expect(dev / 4000).toBeLessThan(0.12);
    expect(() => isDevDocument("pkg", "relative/path.pdf")).toThrow(/absolute path/);
  });
});

describe("dev set (bench/real/manifest.json, tests.jsonl)", () => {
  it("has at least 60 pages of at least 8 kinds, each kind with at least 5 pages", () => {
    expect(manifest.pages.length).toBeGreaterThanOrEqual(60);
    const perKind = new Map<string, number>();
    for (const p of manifest.pages) {
      expect(p.kinds.length, p.id).toBeGreaterThan(0);
      for (const k of p.kinds) perKind.set(k, (perKind.get(k) ?? 0) + 1);
    }
    expect(perKind.size).toBeGreaterThanOrEqual(8);
    for (const [k, n] of perKind) expect(n, k).toBeGreaterThanOrEqual(5);
    expect(new Set(manifest.pages.map((p) => p.id)).size).toBe(manifest.pages.length);
  });
  it("takes Debian pages only from dev documents of unreserved packages, stored compactly", () => {
    let bytes = 0;
    for (const p of manifest.pages) {
      expect(existsSync(path.join(root, p.truth)), p.truth).toBe(true);
      if (!p.source.package) continue;
      expect(["r-doc-pdf", "texlive-latex-base-doc", "texlive-lang-german", "texlive-lang-cyrillic"]).not.toContain(p.source.package);
      expect(isDevDocument(p.source.package, p.source.path), p.id).toBe(true);
      bytes += statSync(path.join(root, p.file)).size;
    }
    expect(bytes).toBeLessThan(20 * 2 ** 20);
  });
  it("has at least 150 well-formed tests, each on a page of the set, all passing on the truth", () => {
    expect(tests.length).toBeGreaterThanOrEqual(150);
    const pages = new Map(manifest.pages.map((p) => [`${p.id}.pdf`, p]));
    expect(new Set(tests.map((t) => t.id)).size).toBe(tests.length);
    for (const t of tests) {
      expect(scorer.testProblem(t), t.id).toBeNull();
      const page = pages.get(t.pdf);
      expect(page, t.id).toBeDefined();
      const [ok, why] = scorer.runTest(t, readFileSync(path.join(root, page!.truth), "utf8"));
      expect(ok, `${t.id}: ${why}`).toBe(true);
    }
    const types = new Set(tests.map((t) => t.type));
    for (const type of ["present", "absent", "order", "table"]) expect(types).toContain(type);
  });
});

describe("unit-test scorer (scripts/bench-real/unit-tests.mjs)", () => {
  const page = "# Results\n\nThe quick brown fox jumps over the lazy dog.\n\nPage 3 of 40\n";
  it("present: exact, fuzzy within max_diffs, and missing", () => {
    expect(pass({ type: "present", text: "quick brown fox jumps" }, page)).toBe(true);
    expect(pass({ type: "present", text: "quick brwn fox jumps" }, page)).toBe(false);
    expect(pass({ type: "present", text: "quick brwn fox jumps", max_diffs: 1 }, page)).toBe(true);
    expect(pass({ type: "present", text: "quick brwn fx jmps", max_diffs: 1 }, page)).toBe(false);
    expect(pass({ type: "present", text: "QUICK BROWN", case_sensitive: false }, page)).toBe(true);
    expect(pass({ type: "present", text: "Don\u2019t \u201cstop\u201d \u2014 now" }, 'Don\'t "stop" - now')).toBe(true);
  });
  it("absent: running furniture must not appear", () => {
    expect(pass({ type: "absent", text: "Page 3 of 40" }, page)).toBe(false);
    expect(pass({ type: "absent", text: "Page 3 of 40" }, "The quick brown fox.")).toBe(true);
  });
  it("order: before must start before after", () => {
    expect(pass({ type: "order", before: "quick brown", after: "lazy dog" }, page)).toBe(true);
    expect(pass({ type: "order", before: "lazy dog", after: "quick brown" }, page)).toBe(false);
    expect(pass({ type: "order", before: "quick brwn", after: "lazy dog", max_diffs: 1 }, page)).toBe(true);
    expect(pass({ type: "order", before: "missing text", after: "lazy dog" }, page)).toBe(false);
  });
  it("table: a cell with its neighbours, in Markdown and in HTML with spans", () => {
    const md = "| Model | Tokens | Score |\n|---|---|---|\n| OLMo 2 7B | 3.71T | 61.2 |\n| Other | 2.00T | 58.0 |\n";
    expect(pass({ type: "table", cell: "3.71T", up: "Tokens", left: "OLMo 2 7B", right: "61.2", down: "2.00T" }, md)).toBe(true);
    expect(pass({ type: "table", cell: "3.71T", up: "Score" }, md)).toBe(false);
    expect(pass({ type: "table", cell: "3.71T", top_heading: "Tokens", left_heading: "OLMo 2 7B" }, md)).toBe(true);
    const html = '<table><tr><td rowspan="2">Group</td><td>a</td><td>b</td></tr><tr><td>c</td><td>d &amp; e</td></tr></table>';
    expect(pass({ type: "table", cell: "c", left: "Group", up: "a", right: "d & e" }, html)).toBe(true);
    expect(pass({ type: "table", cell: "d & e", left: "Group" }, html)).toBe(false);
    expect(pass({ type: "table", cell: "3.71T" }, "3.71T in prose, no table")).toBe(false);
  });
  it("math: canonical LaTeX inside a delimited equation", () => {
    expect(pass({ type: "math", math: "x^{2} + y_{i}" }, "where $$ x^2+y_i = 1 $$ holds")).toBe(true);
    expect(pass({ type: "math", math: "\\frac{a}{b}" }, "\\[\\left( \\dfrac{a}{b} \\right)\\]")).toBe(true);
    expect(pass({ type: "math", math: "x^{3}" }, "$x^2$")).toBe(false);
    expect(pass({ type: "math", math: "x^{2}" }, "x^2 without delimiters")).toBe(false);
  });
  it("baseline: text without a runaway repetition", () => {
    expect(pass({ type: "baseline" }, "Some text.")).toBe(true);
    expect(pass({ type: "baseline" }, "Some text " + "ab".repeat(40))).toBe(false);
    expect(pass({ type: "baseline" }, "   ")).toBe(false);
  });
  it("agrees with ../shared/tools/olmocr-score.mjs on these cases when it is present", async () => {
    const tool = path.resolve(root, "../shared/tools/olmocr-score.mjs");
    if (!existsSync(tool)) return; // the shared tool is not part of the repository
    const ref = await import(pathToFileURL(tool).href);
    const md = "# T\n\nAlpha beta gamma delta.\n\n| A | B |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n$$ a^{2} $$\n";
    const cases = [
      { type: "present", text: "beta gamma" },
      { type: "present", text: "beta gama", max_diffs: 1 },
      { type: "present", text: "epsilon" },
      { type: "absent", text: "delta" },
      { type: "order", before: "Alpha", after: "delta" },
      { type: "order", before: "delta", after: "Alpha" },
      { type: "table", cell: "4", up: "2", left: "3" },
      { type: "table", cell: "4", up: "1" },
      { type: "math", math: "a^2" },
    ];
    for (const c of cases) {
      const t = { pdf: "x.pdf", page: 1, id: "t", ...c };
      expect(scorer.runTest(t, md)[0], JSON.stringify(c)).toBe(ref.runTest(t, md)[0]);
    }
  });
});

describe("benchmark scoring (scripts/bench-real/run.mjs)", () => {
  it("scores CER and order-free word F1 on markup-free text", () => {
    const same = runner.pageScores("# Title\n\n**bold** words here", "Title bold words here");
    expect(same.cer).toBe(0);
    expect(same.wordF1).toBe(1);
    const swapped = runner.pageScores("here words", "words here");
    expect(swapped.wordF1).toBe(1);
    expect(swapped.cer).toBeGreaterThan(0);
    expect(runner.pageScores("", "abc").cer).toBe(1);
  });
  it("takes out table and other HTML tags, never read text between a stray '<' and the next '>'", () => {
    const table = runner.pageScores('<table><tr><td>a</td><td colspan="2">b</td></tr></table>', "a b");
    expect(table.cer).toBe(0);
    // mc-mnras-p3 read "\\paragraph<ILowest level section}", and 1,800 characters up to the table's "<table>" went
    const stray = runner.pageScores("x<ILowest level section} text <table><tr><td>c</td></tr></table>", "x<ILowest level section} text c");
    expect(stray.cer).toBe(0);
    // nor the truth's own angle brackets: "\\label{<label>}", "<, >"
    expect(runner.pageScores("{}", "{<label>} <, >").cer).toBeGreaterThan(0.8);
  });
  it("counts letters of a script the truth lacks, and the truth's numbers of 3+ digits read exactly", () => {
    // issue 18's cases: "SHE MOPED" read with Cyrillic letters, a year with a digit too many, a table figure
    const s = runner.pageScores("HE моговах in 20024, total 3.32T and 123", "SHE MOPED in 2024, total 3.71T and 123");
    expect(s.foreign).toBe(7);
    expect([s.numbersFound, s.numbers]).toEqual([1, 2]);
    // on a Cyrillic page Cyrillic letters are not foreign; a number read twice counts once
    expect(runner.pageScores("Привет 100 100", "Привет мир 100").foreign).toBe(0);
    expect(runner.pageScores("Привет 100 100", "Привет мир 100").numbersFound).toBe(1);
  });
  it("aggregates per kind and prints a row per kind beside Tesseract", () => {
    const row = (id: string, kinds: string[], oursPassed: boolean) => ({
      id,
      kinds,
      truthPasses: 1,
      tests: 1,
      ours: {
        ...runner.pageScores("alpha beta", "alpha beta"),
        seconds: 2,
        timings: { render: 1, encode: 2, prefill: 3, decode: 4, total: 10 },
        tests: [{ id: `${id}-1`, type: "present", passed: oursPassed }],
      },
      tesseract: { ...runner.pageScores("alpha", "alpha beta"), seconds: 1, tests: [{ id: `${id}-1`, type: "present", passed: true }] },
    });
    const rows = [row("a", ["math"], true), row("b", ["math", "scan"], false)];
    const agg = runner.aggregate(rows, "ours");
    expect(agg).toMatchObject({ pages: 2, cer: 0, testsPassed: 1, tests: 2, passRate: 0.5, secondsPerPage: 2 });
    const text: string = runner.report({ settings: { model: "m", threads: 1, maxTokens: 9, tesseract: "t" }, pages: rows });
    expect(text).toMatch(/^math\s+2 \|\s+0\.0%\s+1\.000\s+50\.0% 1\/2/m);
    expect(text).toMatch(/^scan\s+1 \|/m);
    expect(text).toMatch(/^overall\s+2 \|/m);
    expect(text).toMatch(/^present\s+2 \|\s+50\.0% 1\/2 \|\s+100\.0% 2\/2/m);
    expect(text).toMatch(/^overall\s+\|\s+0\s+—\s+0\/0 \|\s+0\s+—\s+0\/0/m);
  });
  it("reads the recogniser's own lines from the trace, a page traced again keeping its last reading", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ocr-trace-"));
    const file = path.join(dir, "trace.jsonl");
    const line = (source: string, i: number, text: string) => JSON.stringify({ source, page: 1, line: i, text, peaks: [] });
    writeFileSync(
      file,
      [line("a.png", 0, "old"), line("b.png", 0, "one"), line("b.png", 1, "two"), line("a.png", 0, "new")].join("\n") + "\n",
    );
    const readings: Map<string, string[]> = runner.recogniserReadings(file);
    expect(Object.fromEntries(readings)).toEqual({ "a.png": ["new"], "b.png": ["one", "two"] });
    // a line with a dot leader right of it has it in the recogniser's column too (layout, not the decoder's)
    writeFileSync(file, `${JSON.stringify({ source: "c.png", page: 1, line: 0, text: "2.1 Plugins", peaks: [], leader: 4 })}\n`);
    expect(runner.recogniserReadings(file).get("c.png")).toEqual(["2.1 Plugins . . . ."]);
    // a line read in parts (src/vision/lines.ts lineParts) is one line, its parts joined at the space cut at
    const part = (i: number, k: number, text: string, decoded: string) =>
      JSON.stringify({ source: "d.png", page: 1, line: i, part: k, text, peaks: Array.from(text, () => 0.9), decoded, merged: decoded });
    writeFileSync(
      file,
      [
        part(0, 0, "a long", "\n\na long"),
        part(0, 1, "line", " line"),
        JSON.stringify({ source: "d.png", page: 1, line: 1, text: "next", peaks: [1] }),
      ].join("\n"),
    );
    expect(runner.recogniserReadings(file).get("d.png")).toEqual(["a long line", "next"]);
    const [first] = runner.tracedPages(file).get("d.png");
    expect(first).toMatchObject({ decoded: "\n\na long line", merged: "\n\na long line" });
    expect(first.peaks).toHaveLength(Array.from(first.text).length);
    expect(first.parts).toHaveLength(2);
    expect(runner.recogniserReadings(path.join(dir, "none.jsonl")).size).toBe(0);
    rmSync(dir, { recursive: true });
  });
  it("prints CER beside the recogniser alone on clean born-digital pages, Latin ones apart", () => {
    const row = (id: string, kinds: string[], recipe: string, ours: string, rec: string) => ({
      id,
      kinds,
      recipe,
      truthPasses: 0,
      tests: 0,
      ours: { ...runner.pageScores(ours, "abcdefghij"), tests: [] },
      recogniser: runner.pageScores(rec, "abcdefghij"),
    });
    const rows = [
      row("a", ["math"], "pdf150", "abcdefghij", "abcdefgh"),
      row("b", ["cyrillic"], "pdf150", "abcdefgh", "xxxxxxxxxx"),
      row("c", ["scan"], "scan300", "abcde", "abcdefghij"),
    ];
    const text: string = runner.report({ settings: { model: "m", threads: 1, maxTokens: 9, tesseract: "t" }, pages: rows });
    expect(text).toMatch(/^clean born-digital \(150 dpi\)\s+2 \|\s+10\.0%\s+60\.0%\s+—/m);
    expect(text).toMatch(/^ {2}of them Latin script\s+1 \|\s+0\.0%\s+20\.0%/m);
    expect(text).toMatch(/^all\s+3 \|\s+23\.3%\s+40\.0%/m);
  });
  it("scores a re-merged line against its best window of the truth, and never tunes on reserved pages", async () => {
    const lines = await load("scripts/faithful-lines.mjs");
    expect(lines.windowDistance("the fox", "a quick brown the fax jumps")).toBe(1);
    expect(lines.windowDistance("", "anything")).toBe(0);
    const reserved = manifest.pages.filter((p) => !lines.tunable(p)).map((p) => lines.pagePackage(p));
    expect(reserved.length).toBeGreaterThan(0);
    for (const pkg of reserved)
      expect(["r-doc-pdf", "texlive-latex-base-doc", "texlive-lang-german", "texlive-lang-cyrillic"]).toContain(pkg);
    expect(lines.tunable({ source: { shared: "../shared/data/real/debian/r-doc-pdf--R-lang.pdf" } })).toBe(false);
    expect(lines.tunable({ source: { package: "texlive-lang-polish" } })).toBe(true);
    expect(lines.tunable({ source: { shared: "../shared/data/real/funsd/x.png" } })).toBe(true);
  });
  it("reads --json with or without a file name", () => {
    expect(runner.splitJsonArg(["--real", "--json", "out.json", "--limit", "2"])).toEqual({
      args: ["--real", "--json", "--limit", "2"],
      file: "out.json",
    });
    expect(runner.splitJsonArg(["--real", "--json", "--limit", "2"]).file).toBeNull();
  });
  it("degrades scan-like pages deterministically per page id", () => {
    expect(degradation("sc-a")).toEqual(degradation("sc-a"));
    expect(degradation("sc-a")).not.toEqual(degradation("sc-b"));
    const p = degradation("sc-a");
    expect(Math.abs(p.angle)).toBeLessThanOrEqual(1.2);
    expect(p.jpeg).toBeGreaterThanOrEqual(35);
  });
  it("turns PubTabNet and FUNSD annotations into truth", () => {
    const html = pubtabnetHtml({
      html: {
        structure: { tokens: ["<tr>", "<td>", "</td>", "<td", ' colspan="2"', ">", "</td>", "</tr>"] },
        cells: [{ tokens: ["<b>", "A", "</b>"] }, { tokens: ["x", "<", "y"] }],
      },
    });
    expect(html).toBe('<table><tr><td><b>A</b></td><td colspan="2">x&lt;y</td></tr></table>');
    const form = {
      form: [
        {
          words: [
            { text: "Date:", box: [10, 10, 40, 20] },
            { text: "today", box: [50, 11, 80, 21] },
          ],
        },
        { words: [{ text: "TO:", box: [10, 40, 30, 50] }] },
      ],
    };
    expect(funsdTruth(form)).toBe("Date: today\nTO:\n");
  });
});
