// The corpus builder's truth extraction (scripts/corpus/truth.mjs): reading order, text-layer fidelity, headings,
// tables, code, running headers and footers, on a generated document and on real pages of a Debian manual.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { composeInline, documentFurniture, openPdf, pageTruth, readPage } from "../../scripts/corpus/truth.mjs";
import { CODE, HEADER, LEFT, makeFixture, PARA, RIGHT, TABLE, TITLE, UP, type Drawn } from "./fixture.js";

interface Line {
  box: number[];
  text: string;
  md?: string;
  block: number;
  kind: string;
}
interface Truth {
  drop?: string;
  markdown: string;
  lines: Line[];
  blocks: { kind: string; md: string }[];
}

const REAL = path.resolve("test/corpus/fixtures/l2tabuit-p6-9.pdf");

describe("corpus truth from a generated PDF", () => {
  let dir: string, file: string, drawn: Drawn[][];
  let truths: Truth[] = [];
  let pdfText: string[][] = [];
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "corpus-truth-"));
    const fx = await makeFixture();
    drawn = fx.drawn;
    file = path.join(dir, "fixture.pdf");
    writeFileSync(file, fx.bytes);
    const doc = await openPdf(file);
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await readPage(doc, n));
    const furniture = documentFurniture(pages);
    truths = pages.map((p: unknown, i: number) => pageTruth(p, furniture[i]));
    // the text layer as pdfjs gives it, independently of truth.mjs
    for (let n = 1; n <= doc.numPages; n++) {
      const tc = await (await doc.getPage(n)).getTextContent();
      pdfText.push(tc.items.map((it: { str?: string }) => it.str ?? "").filter((s: string) => s.trim()));
    }
    await doc.destroy();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a two-column page column by column: title, left column top to bottom, then the right one", () => {
    const t = truths[0]!;
    expect(t.drop).toBeUndefined();
    const body = t.lines.filter((l) => l.kind !== "header" && l.kind !== "pagenum").map((l) => l.text);
    expect(body).toEqual([TITLE, ...LEFT, ...RIGHT]);
    // the Markdown follows the same order: the last left line comes before the first right one
    expect(t.markdown.indexOf(LEFT[17]!)).toBeLessThan(t.markdown.indexOf(RIGHT[0]!));
    expect(t.markdown).toContain(`# ${TITLE}`);
    // the columns are separate paragraphs, never interleaved line by line
    expect(t.markdown).toContain(`${LEFT[0]} ${LEFT[1]}`);
    expect(t.markdown).toContain(`${RIGHT[0]} ${RIGHT[1]}`);
  });

  it("keeps the text layer: every line's text and box are those drawn, and every drawn string is in the truth", () => {
    for (const [i, t] of truths.slice(0, 2).entries()) {
      const texts = t.lines.map((l) => l.text);
      // the same characters in the same order as pdfjs' text layer (header first and page number last, as drawn)
      // (less the formula, which the Markdown leaves out)
      expect(texts.join("").replace(/\s/g, "")).toBe(
        pdfText[i]!.filter((s) => !/[αβγ]/.test(s))
          .join("")
          .replace(/\s/g, ""),
      );
      for (const d of drawn[i]!) {
        const line = t.lines.find((l) => l.text === d.text.trim());
        expect(line, d.text).toBeDefined();
        // the box starts at the drawn x and holds the baseline, about one font size tall
        expect(line!.box[0]).toBeCloseTo(d.text.startsWith(" ") ? d.x + 12 : d.x, 1); // Courier: 6 pt a space at 10 pt
        expect(line!.box[1]).toBeLessThan(d.base - 0.6 * d.size);
        expect(line!.box[3]).toBeGreaterThan(d.base);
        expect(line!.box[3] - line!.box[1]).toBeLessThan(1.3 * d.size);
      }
    }
  });

  it("finds the running header and page number on every page, first and last in the Markdown", () => {
    for (const [i, t] of truths.slice(0, 2).entries()) {
      expect(t.blocks[0]).toEqual(expect.objectContaining({ kind: "header", md: HEADER }));
      expect(t.blocks[t.blocks.length - 1]).toEqual(expect.objectContaining({ kind: "pagenum", md: String(i + 1) }));
    }
  });

  it("turns ruled aligned cells into an HTML table (an empty cell kept in its column), Courier lines into code and a bold line into a heading", () => {
    const t = truths[1]!;
    expect(t.drop).toBeUndefined();
    const table = "<table>" + TABLE.map((r) => "<tr>" + r.map((c) => `<td>${c}</td>`).join("") + "</tr>").join("") + "</table>";
    expect(t.markdown).toContain(table);
    expect(t.markdown).toContain("```\n" + CODE.map((c) => c.trim()).join("\n") + "\n```");
    expect(t.markdown).toContain("## Results\n\n" + PARA.join(" "));
    // the formula is left out of the Markdown: the model's vocabulary has no Greek; the paragraphs around it stay apart
    expect(t.blocks.map((b) => b.kind)).toEqual(["header", "heading", "para", "table", "code", "para", "para", "pagenum"]);
    expect(t.markdown).not.toMatch(/[αβγ]/);
  });

  it("writes a typeset document's display formula as its LaTeX source, in order, where the source is known", async () => {
    const doc = await openPdf(file);
    const pages = [await readPage(doc, 1), await readPage(doc, 2), await readPage(doc, 3)];
    await doc.destroy();
    const queue = ["\\alpha + \\beta = \\gamma"];
    const t: Truth = pageTruth(pages[1], documentFurniture(pages)[1], { formulas: queue });
    expect(queue).toEqual([]);
    expect(t.markdown).toContain("A closing sentence of the page after the code.\n\n\\[\\alpha + \\beta = \\gamma\\]\n\nThe last line");
    const line = t.lines.find((l) => l.kind === "formula")!;
    expect(line.md).toBe("\\[\\alpha + \\beta = \\gamma\\]");
    expect(line.text).toBe("α + β = γ");
    expect(line.box[0]).toBeCloseTo(250, 0);
    // a source with fewer formulas than the page shows is an error, not a silent misalignment
    expect(() => pageTruth(pages[1], documentFurniture(pages)[1], { formulas: [] })).toThrow(/more display formulas/);
  });

  it("drops a page whose content order jumps back up within a column", () => {
    expect(truths[2]!.drop).toBe("order");
    expect(UP.length).toBeGreaterThan(5);
  });
});

describe("corpus truth on real pages (l2tabu-italian, pages 6-9, texlive-lang-italian)", () => {
  it("finds the running header and the page numbers of a real multi-page document", async () => {
    const doc = await openPdf(REAL);
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await readPage(doc, n));
    await doc.destroy();
    const furniture = documentFurniture(pages);
    expect(furniture).toEqual(pages.map(() => ({ top: "header", bottom: "pagenum" })));
    const truths: Truth[] = pages.map((p: unknown, i: number) => pageTruth(p, furniture[i]));
    truths.forEach((t, i) => {
      expect(t.drop).toBeUndefined();
      expect(t.blocks[0]).toEqual(expect.objectContaining({ kind: "header", md: "1 «Peccati mortali»" }));
      // the original document's pages 6-9
      expect(t.blocks[t.blocks.length - 1]).toEqual(expect.objectContaining({ kind: "pagenum", md: String(i + 6) }));
      // neither appears inside the body
      const body = t.blocks
        .slice(1, -1)
        .map((b) => b.md)
        .join("\n\n");
      expect(body).not.toContain("Peccati mortali»\n");
    });
    // OT1 accents drawn apart from their letters come out as the accented letters; code is fenced
    const all = truths.map((t) => t.markdown).join("\n");
    expect(all).not.toMatch(/[`´¨]\p{L}/u);
    expect(all).toMatch(/più|è|à/);
    expect(all).toContain("```\n\\setlength{\\parindent}{0pt}");
  });

  it("composes TeX's separate accent glyphs with their letters", () => {
    expect(composeInline("sar`a Pi`e ˇcesky c¸a ´etude ¨uber `code")).toBe("sarà Piè česky ça étude über `code");
  });
});
