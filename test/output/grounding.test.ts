// Grounding parser: blocks with page-pixel boxes, cleaned Markdown, figure links, truncated tags, page splitting.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { closeOpenTables, parseGroundedOutput, parseGroundedPage, splitPages, unwrapSingleCellTables } from "../../src/output/grounding.js";
import { cropRegionPng } from "../../src/vision/crop.js";

const SAMPLE = [
  "<|ref|>title<|/ref|><|det|>[[100, 50, 899, 80]]<|/det|>",
  "# Annual Report",
  "",
  "<|ref|>text<|/ref|><|det|>[[100, 100, 899, 300]]<|/det|>",
  "First paragraph.",
  "",
  "<|ref|>image<|/ref|><|det|>[[0, 400, 499, 600], [500, 400, 999, 700]]<|/det|>",
  "",
  "<|ref|>table<|/ref|><|det|>[[100, 700, 899, 900]]<|/det|>",
  "<table><tr><td>a</td><td>b</td></tr></table>",
].join("\n");

describe("grounding parser", () => {
  it("turns tags into blocks with boxes in page pixels (truncating like the reference)", () => {
    const page = parseGroundedPage(SAMPLE, 1000, 2000);
    expect(page.blocks.map((b) => b.type)).toEqual(["heading", "paragraph", "figure", "table"]);
    expect(page.blocks[0]).toMatchObject({ text: "# Annual Report", level: 1, bbox: [100, 100, 899, 160] });
    // 899/999·1000 = 899.9 → 899; 50/999·2000 = 100.1 → 100
    expect(page.blocks[3]!.text).toBe("<table><tr><td>a</td><td>b</td></tr></table>");
    expect(page.boxes[2]).toEqual([
      [0, 800, 499, 1201],
      [500, 800, 1000, 1401],
    ]);
    expect(page.blocks[2]!.bbox).toEqual([0, 800, 1000, 1401]);
    expect(page.warnings).toEqual([]);
  });

  it("cleans the Markdown of every tag and links figures where they will be written", () => {
    const page = parseGroundedPage(SAMPLE, 1000, 2000, { figurePath: (n) => `doc.figures/p1-${n}.png` });
    expect(page.markdown).toBe(
      "# Annual Report\n\nFirst paragraph.\n\n![](doc.figures/p1-1.png)\n\n<table><tr><td>a</td><td>b</td></tr></table>",
    );
    expect(page.markdown).not.toMatch(/<\|/);
    expect(page.figures).toEqual([{ index: 1, block: 2, bbox: [0, 800, 1000, 1401], path: "doc.figures/p1-1.png" }]);
  });

  it("drops a block cut off by the end of generation, with a warning", () => {
    const page = parseGroundedPage("<|ref|>text<|/ref|><|det|>[[1, 2, 3, 4]]<|/det|>\nDone.\n<|ref|>text<|/ref|><|det|>[[12, 3", 100, 100);
    expect(page.blocks).toHaveLength(1);
    expect(page.markdown).toBe("Done.");
    expect(page.warnings[0]).toMatch(/unfinished block/);
  });

  it("keeps a block with unreadable coordinates without a box", () => {
    const page = parseGroundedPage("<|ref|>text<|/ref|><|det|>[[1, 2, x]]<|/det|>\nHello", 100, 100);
    expect(page.blocks[0]).toMatchObject({ type: "paragraph", text: "Hello", bbox: null });
    expect(page.warnings[0]).toMatch(/unreadable coordinates/);
  });

  it("passes plain Markdown through as one paragraph", () => {
    expect(parseGroundedOutput("Just text.\n\nMore.", 10, 10)).toEqual({
      markdown: "Just text.\n\nMore.",
      blocks: [{ type: "paragraph", text: "Just text.\n\nMore.", bbox: null }],
    });
  });

  it("splits multi-page output at <PAGE>", () => {
    expect(splitPages("page one\n<PAGE>\npage two<PAGE>three")).toEqual(["page one\n", "page two", "three"]);
    expect(splitPages("single")).toEqual(["single"]);
  });

  it("reads Unlimited-OCR's <PAGE> before each page as the reference does: page 1 is what follows the first marker", () => {
    // the model's own layout: a marker opens every page; splitting at every marker made page 1 empty and shifted
    // every page's text (and boxes) onto the page before
    expect(splitPages("<PAGE>\n# One\n\nfirst<PAGE>\nsecond<PAGE>third")).toEqual(["# One\n\nfirst", "second", "third"]);
    expect(splitPages("  \n<PAGE>only page")).toEqual(["only page"]);
  });

  it("parses the second grounding form, <|det|>label [[…]]<|/det|>, into blocks without leaking the tags", () => {
    const page = parseGroundedPage(
      "<|det|>title [[100, 50, 899, 80]]<|/det|>\n# Heading\n<|det|>text [[100, 100, 899, 300], [0, 0, 9, 9]]<|/det|>\nBody text.",
      1000,
      2000,
    );
    expect(page.markdown).toBe("# Heading\n\nBody text.");
    expect(page.blocks.map((b) => [b.type, b.text])).toEqual([
      ["heading", "# Heading"],
      ["paragraph", "Body text."],
    ]);
    expect(page.blocks[0]!.bbox).toEqual([100, 100, 899, 160]);
    expect(page.boxes[1]).toHaveLength(2);
    expect(page.warnings).toEqual([]);
    // cut off by the end of generation inside the second form's tag
    const cut = parseGroundedPage("<|det|>text [[1, 2, 3, 4]]<|/det|>\nDone.\n<|det|>text [[12, 3", 100, 100);
    expect(cut.markdown).toBe("Done.");
    expect(cut.warnings).toEqual(["output ends inside a grounding tag; the unfinished block was dropped"]);
  });

  it("crops a figure region to a PNG of the right size and content", async () => {
    const width = 40;
    const height = 30;
    const data = Buffer.alloc(width * height * 3, 255);
    for (let y = 10; y < 20; y++) for (let x = 5; x < 25; x++) data.set([200, 10, 10], (y * width + x) * 3);
    const png = await cropRegionPng({ width, height, data }, [5, 10, 25, 20]);
    const { data: out, info } = await sharp(png!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([20, 10]);
    expect([...out.subarray(0, 3)]).toEqual([200, 10, 10]);
    expect(await cropRegionPng({ width, height, data }, [50, 50, 60, 60])).toBeUndefined();
  });
});

describe("closeOpenTables", () => {
  it("closes the cell, row and table a page left open, in order", () => {
    expect(closeOpenTables("text\n\n<table><tr><td>package\n")).toBe("text\n\n<table><tr><td>package</td></tr></table>");
    expect(closeOpenTables("<table><tr><td>a</td><td>b</td></tr><tr><td>c")).toBe(
      "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
    );
  });

  it("leaves balanced tables and plain text alone", () => {
    const md = "# T\n\n<table><tr><td>a</td></tr></table>\n\nafter";
    expect(closeOpenTables(md)).toBe(md);
    expect(closeOpenTables("no tables here ")).toBe("no tables here ");
  });
});

describe("unwrapSingleCellTables", () => {
  it("turns a one-row, one-cell table into its text and leaves real tables alone", () => {
    expect(unwrapSingleCellTables("text\n\n<table><tr><td>package</td></tr></table>")).toBe("text\n\npackage");
    const real = "<table><tr><td>a</td><td>b</td></tr></table>\n\n<table><tr><td>c</td></tr><tr><td>d</td></tr></table>";
    expect(unwrapSingleCellTables(real)).toBe(real);
  });
});
