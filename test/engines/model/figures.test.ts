// Grounded model text → a decoded page: figure regions cropped from the page pixels to PNGs, linked from the Markdown.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { decodedPageFromText } from "../../../src/engines/page.js";

function page() {
  const width = 200;
  const height = 100;
  const data = Buffer.alloc(width * height * 3, 255);
  // a blue rectangle at x 50–150, y 20–60
  for (let y = 20; y < 60; y++) for (let x = 50; x < 150; x++) data.set([0, 0, 255], (y * width + x) * 3);
  return { pageNumber: 3, width, height, dpi: 150, pixels: { width, height, data } };
}

const TEXT = "<|ref|>text<|/ref|><|det|>[[0, 0, 999, 150]]<|/det|>\nCaption\n\n<|ref|>image<|/ref|><|det|>[[250, 200, 750, 600]]<|/det|>\n";

describe("decoded page from grounded text", () => {
  it("crops figures to PNGs under the figure folder and links them from the Markdown", async () => {
    const p = await decodedPageFromText(TEXT, page(), {
      figureDir: "report.figures",
      tokenCount: 40,
      truncated: false,
      timings: {},
      maxTokens: 100,
    });
    expect(p.markdown).toBe("Caption\n\n![](report.figures/page-3-1.png)");
    expect(p.blocks.map((b) => b.type)).toEqual(["paragraph", "figure"]);
    expect(p.blocks[1]!.bbox).toEqual([50, 20, 150, 60]);
    expect(p.figures).toHaveLength(1);
    expect(p.figures![0]!.file).toBe("report.figures/page-3-1.png");
    const { data, info } = await sharp(p.figures![0]!.png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([100, 40]);
    expect([...data.subarray(0, 3)]).toEqual([0, 0, 255]);
    expect(p.warnings).toEqual([]);
  });

  it("writes no figure and no link when the run writes no files (--stdout)", async () => {
    const p = await decodedPageFromText(TEXT, page(), { tokenCount: 40, truncated: true, timings: {}, maxTokens: 40 });
    expect(p.markdown).toBe("Caption");
    expect(p.figures).toBeUndefined();
    expect(p.truncated).toBe(true);
    expect(p.warnings[0]).toMatch(/page 3 stopped at the token limit \(40\)/);
  });
});
