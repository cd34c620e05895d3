// Pictures placed among a line-unit page's blocks as figures (src/layout/figures.ts), and through the decoded page.
import { describe, expect, it } from "vitest";
import { placeFigures } from "../../src/layout/figures.js";
import { assemblePage, blocksCarryMarkdown, pageMarkdown, type PageLine } from "../../src/layout/page.js";
import { decodedPageFromText } from "../../src/engines/page.js";
import { pageLine as L } from "./helpers.js";

// a heading and a paragraph above the picture, one below it, a page number
const lines: PageLine[] = [
  L(100, 200, 1100, 224, "## Recording"),
  L(100, 240, 1100, 264, "\n\nBefore you record, set the level low."),
  L(100, 280, 1100, 304, " Keep it below the red."),
  L(100, 1100, 1100, 1124, "\n\nNormalise the recording afterwards."),
  L(580, 1640, 620, 1660, "\n\n4"),
];
const picture = { xMin: 100, yMin: 320, xMax: 1100, yMax: 1050 };

describe("placeFigures", () => {
  it("puts the figure after the text above it and before the text below, with a link when crops are written", () => {
    const page = assemblePage(lines.slice(0, 4), 1200, 1700);
    const placed = placeFigures(page.blocks, [picture], (n) => `doc.figures/page-1-${n}.png`);
    expect(placed).toEqual([{ index: 1, bbox: [100, 320, 1100, 1050], path: "doc.figures/page-1-1.png" }]);
    const types = page.blocks.map((b) => b.type);
    expect(types.indexOf("figure")).toBe(types.indexOf("paragraph") + 1);
    expect(pageMarkdown(page.blocks)).toBe(
      "## Recording\n\nBefore you record, set the level low. Keep it below the red.\n\n![](doc.figures/page-1-1.png)\n\nNormalise the recording afterwards.",
    );
    expect(blocksCarryMarkdown(page.blocks)).toBe(true);
  });

  it("writes nothing in the Markdown without crops, and keeps the figure in the blocks", () => {
    const page = assemblePage(lines, 1200, 1700);
    placeFigures(page.blocks, [picture]);
    expect(pageMarkdown(page.blocks)).toBe(page.markdown);
    expect(page.blocks.find((b) => b.type === "figure")).toEqual({ type: "figure", text: "", bbox: [100, 320, 1100, 1050] });
  });

  it("places a picture below all the text last, before the footer", () => {
    const page = assemblePage(lines.slice(0, 3).concat(lines.slice(4)), 1200, 1700);
    expect(page.blocks.at(-1)!.type).toBe("page-number");
    placeFigures(page.blocks, [{ xMin: 100, yMin: 1100, xMax: 1100, yMax: 1500 }]);
    expect(page.blocks.map((b) => b.type).slice(-2)).toEqual(["figure", "page-number"]);
  });
});

describe("decodedPageFromText with pictures", () => {
  it("crops each figure when files are written and links it from the Markdown", async () => {
    const pixels = { width: 1200, height: 1700, data: Buffer.alloc(1200 * 1700 * 3, 200) };
    const page = await decodedPageFromText(
      lines.map((l) => l.markdown).join(""),
      { pageNumber: 3, width: 1200, height: 1700, dpi: 150, pixels },
      { figureDir: "doc.figures", tokenCount: 10, truncated: false, timings: {}, maxTokens: 100, lines, pictures: [picture] },
    );
    expect(page.figures?.map((f) => f.file)).toEqual(["doc.figures/page-3-1.png"]);
    expect(page.figures![0]!.png.subarray(1, 4).toString()).toBe("PNG");
    expect(page.markdown).toContain("![](doc.figures/page-3-1.png)");
    expect(page.blocks.filter((b) => b.type === "figure")).toHaveLength(1);
  });
});
