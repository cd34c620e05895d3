// Text-layer layout: runs → lines → blocks, reading order across columns, headings by size.
import { describe, expect, it } from "vitest";
import { buildLines, headingLevels, layoutPage, pageLineStats, readingOrder } from "../../src/app/text-layout.js";
import type { PageText, TextRun } from "../../src/input/index.js";

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
    endOfLine: false,
    direction: "ltr",
    ...extra,
  };
}

const page = (runs: TextRun[]): PageText => ({ width: 600, height: 800, runs });

describe("buildLines", () => {
  it("joins runs on one baseline, inserting spaces only at real gaps", () => {
    const lines = buildLines([run("Hel", 100, 100), run("lo", 115, 100), run("world", 135, 100), run("next", 100, 114)]);
    expect(lines.map((l) => l.text)).toEqual(["Hello world", "next"]);
  });

  it("keeps superscripts in their line", () => {
    const lines = buildLines([run("E = mc", 100, 100), run("2", 130, 96, 6), run("!", 134, 100)]);
    expect(lines.map((l) => l.text)).toEqual(["E = mc2!"]);
  });
});

describe("readingOrder", () => {
  it("reads a two-column page column by column under a full-width title", () => {
    const runs = [run("Title across the page", 100, 60, 10)];
    for (let i = 0; i < 4; i++) {
      runs.push(run(`left ${i}`, 50, 100 + 14 * i));
      runs.push(run(`right ${i}`, 320, 100 + 14 * i));
    }
    const lines = buildLines(runs);
    const order = readingOrder(lines, 10).map((l) => l.text);
    expect(order).toEqual(["Title across the page", "left 0", "left 1", "left 2", "left 3", "right 0", "right 1", "right 2", "right 3"]);
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
        run("x <- 1", 50, 150, 10, { fontFamily: "monospace" }),
        run("print(x)", 50, 162, 10, { fontFamily: "monospace" }),
      ]),
    );
    expect(layout.blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "list-item", "code"]);
    expect(layout.markdown).toBe(
      "# Big Title\n\nFirst paragraph line that goes on and on to a second line.\n\n- an item\n\n```\nx <- 1\nprint(x)\n```",
    );
    const heading = layout.blocks[0]!;
    expect(heading.bboxPoints.x0).toBe(50);
    expect(heading.bboxPoints.y0).toBeCloseTo(50 - 16, 5);
  });

  it("undoes end-of-line hyphenation in Markdown but keeps the block text verbatim", () => {
    const layout = layoutPage(page([run("an exam-", 50, 80), run("ple of it", 50, 92)]));
    expect(layout.markdown).toBe("an example of it");
    expect(layout.blocks[0]!.text).toBe("an exam-\nple of it");
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
