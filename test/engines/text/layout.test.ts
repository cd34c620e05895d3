// Text-layer layout: runs → words → blocks (poppler-style growth), pdftotext-style reading order, headings by size.
import { describe, expect, it } from "vitest";
import { buildWords, pageBlocks } from "../../../src/engines/text/blocks.js";
import { headingLevels, layoutPage, pageLineStats } from "../../../src/engines/text/layout.js";
import type { PageText, TextRun } from "../../../src/input/index.js";

/** A run of text with a plausible width (0.5 em per character). */
function run(text: string, x: number, baseline: number, fontSize = 10, extra: Partial<TextRun> = {}): TextRun {
  return {
    text,
    x,
    baseline,
    width: text.length * fontSize * 0.5,
    fontSize,
    fontName: "f",
    fontFamily: "serif",
    ascent: undefined,
    descent: undefined,
    endOfLine: false,
    direction: "ltr",
    ...extra,
  };
}

const page = (runs: TextRun[]): PageText => ({ width: 600, height: 800, runs });
const texts = (runs: TextRun[]) => pageBlocks(runs).map((b) => b.lines.map((l) => l.text).join(" / "));

describe("buildWords", () => {
  it("splits at spaces and wide gaps, joins runs that touch", () => {
    const words = buildWords([run("Hel", 100, 100), run("lo world", 115, 100), run("far", 300, 100)]);
    expect(words.map((w) => w.text)).toEqual(["Hello", "world", "far"]);
    expect(words[0]!.spaceAfter).toBe(true);
    expect(words[0]!.xMin).toBe(100);
    expect(words[0]!.xMax).toBeCloseTo(125, 5);
  });

  it("uses the font's ascent and descent for the word box when known", () => {
    const [word] = buildWords([run("Ag", 0, 100, 10, { ascent: 0.9, descent: -0.25 })]);
    expect([word!.yMin, word!.yMax]).toEqual([91, 102.5]);
  });
});

describe("pageBlocks", () => {
  it("keeps a paragraph's lines together and joins a superscript without a space", () => {
    expect(texts([run("E = mc", 100, 100), run("2", 130, 96, 7), run("is famous", 100, 112)])).toEqual(["E = mc2 / is famous"]);
  });

  it("takes a smaller word on the block's line within 0.7 em (a listing's line number beside its code)", () => {
    // 2.7 pt from the 7 pt number: beyond 0.3 em, and the sizes differ too much for an outlier; poppler's 0.7 em takes it.
    expect(texts([run("327", 50, 100, 7), run("\\def", 63.2, 100, 9)])).toEqual(["327 \\def"]);
  });

  it("spaces words by their gap, as pdftotext does: from 0.03 em, whatever pdfjs' space items say", () => {
    // TeX's script space after a superscript (0.5 pt) is a word space for pdftotext ("Hn-1 -almost").
    expect(texts([run("H", 100, 100), run("n", 105, 96, 7), run("-almost", 109, 100)])).toEqual(["Hn -almost"]);
    // pdfjs puts a space item after "⟨" (for the accent drawn next), but "Dv," starts where "⟨" ends.
    const bracket = [run("⟨", 100, 100, 10, { width: 3.9 }), run(" ", 103.9, 100, 10, { width: 2 }), run("Dv,", 103.9, 100)];
    expect(texts(bracket)).toEqual(["⟨Dv,"]);
  });

  it("reads a letter-spaced line as one word", () => {
    // Letters 2 pt apart (0.2 em), a word gap of 6 pt: only the gap clearly wider than the narrowest is a space.
    const letters = [..."LETTERS"].map((c, i) => run(c, 100 + 7 * i, 100));
    const more = [..."SPACED"].map((c, i) => run(c, 100 + 7 * 7 + 4 + 7 * i, 100));
    expect(texts([...letters, ...more])).toEqual(["LETTERS SPACED"]);
  });

  it("puts an accent ending a run on the letter kerned back under it", () => {
    // TeX's Nikod\'ym: the run ends with the acute, the next run starts back under it.
    expect(texts([run("Nikod\u00b4", 100, 100), run("ym", 125, 100)])).toEqual(["Nikodým"]);
  });

  it("orders a block's lines by baseline, as pdftotext does, not by the tops of their boxes", () => {
    // A flat accent line 6 pt above a tall letter's baseline: its box starts lower than the letter's.
    const runs = [run("Du", 100, 100, 10, { ascent: 0.9 }), run("e", 101, 94, 10, { ascent: 0.2 })];
    expect(texts(runs)).toEqual(["e / Du"]);
  });

  it("ends a line at a word overlapping its last one, as pdftotext does (an accent raised over a letter)", () => {
    const runs = [run("zero", 100, 100), run("Du", 122, 100), run("e", 124, 97.5), run("-almost", 134, 100)];
    expect(texts(runs)).toEqual(["e -almost / zero Du"]);
  });

  it("separates blocks at a wide vertical gap and at a font size change", () => {
    expect(texts([run("Title", 50, 40, 20), run("first para line", 50, 80), run("second para", 50, 140)])).toEqual([
      "Title",
      "first para line",
      "second para",
    ]);
  });

  it("reads a two-column page column by column under a full-width title", () => {
    const runs = [run("A title across the whole page width here", 50, 60, 10)];
    // Word gaps differ from line to line, as in real text: a gap shared by every line is a gutter.
    const left = ["a bb ccc dd", "dddd e ff", "ff ggg h ii", "iiiii jj k"];
    const right = ["lll m nn", "o pppp qq", "rr s tttt", "uuu vv w"];
    for (let i = 0; i < 4; i++) {
      runs.push(run(left[i]!, 50, 100 + 12 * i));
      runs.push(run(right[i]!, 320, 100 + 12 * i));
    }
    expect(texts(runs)).toEqual(["A title across the whole page width here", left.join(" / "), right.join(" / ")]);
  });

  it("reads columns in turn even where paragraph gaps line up across the gutter (pdftotext's order)", () => {
    // The paragraph gap under the first row (about 50 pt) is wider than half the gutter (60 pt): a page-wide
    // horizontal band, yet the left column still reads before the right one.
    const second = ["a bb ccc dd", "dddd e ff", "ff ggg h ii", "iiiii jj k"];
    const runs = [
      run("left one", 50, 100),
      run("right one", 150, 100),
      ...second.map((t, i) => run(t, 50, 160 + 12 * i)),
      run("right two", 150, 190),
    ];
    expect(texts(runs)).toEqual(["left one", second.join(" / "), "right one", "right two"]);
  });

  it("reads a grid of aligned cells row by row", () => {
    const runs = [
      run("aa", 50, 100),
      run("bb", 150, 100),
      run("cc", 50, 130),
      run("dd", 150, 130),
      run("ee", 50, 160),
      run("ff", 150, 160),
    ];
    expect(texts(runs)).toEqual(["aa", "bb", "cc", "dd", "ee", "ff"]);
  });
});

describe("layoutPage", () => {
  it("finds headings by font size, paragraphs, list items and code", () => {
    const layout = layoutPage(
      page([
        run("Big Title", 50, 50, 20),
        run("First paragraph line that goes on and", 50, 80),
        run("on to a second line.", 50, 92),
        run("• an item", 50, 120),
        run("• another item", 50, 132),
        run("x <- 1", 50, 160, 10, { fontFamily: "monospace" }),
        run("print(x)", 50, 172, 10, { fontFamily: "monospace" }),
      ]),
    );
    expect(layout.blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "list-item", "list-item", "code"]);
    expect(layout.markdown).toBe(
      "# Big Title\n\nFirst paragraph line that goes on and on to a second line.\n\n- an item\n\n- another item\n\n```\nx <- 1\nprint(x)\n```",
    );
    const heading = layout.blocks[0]!;
    expect(heading.bboxPoints.x0).toBe(50);
    expect(heading.bboxPoints.y0).toBeCloseTo(50 - 16, 5);
  });

  it("undoes end-of-line hyphenation, keeping other line breaks in the block text", () => {
    const layout = layoutPage(
      page([run("an exam-", 50, 80), run("ple of it", 50, 92), run("2-3 items", 50, 104), run("and more", 50, 116)]),
    );
    expect(layout.markdown).toBe("an example of it 2-3 items and more");
    expect(layout.blocks[0]!.text).toBe("an example of it\n2-3 items\nand more");
  });

  it("gives an empty layout for a page without text", () => {
    expect(layoutPage(page([run("  ", 10, 10)]))).toEqual({ markdown: "", blocks: [] });
  });

  it("ranks heading sizes across a document", () => {
    const body = Array.from({ length: 30 }, (_, i) => run("body text line with enough characters", 50, 100 + 12 * i));
    const stats = [pageLineStats(page([run("Chapter", 50, 40, 24), ...body])), pageLineStats(page([run("Section", 50, 40, 14), ...body]))];
    expect(headingLevels(stats)).toEqual([24, 14]);
  });
});
