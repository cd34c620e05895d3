// The text engine fills the layout fields: lines with boxes, list markers, running headers and folios by geometry.
import { describe, expect, it } from "vitest";
import { markRunningHeaders } from "../../../src/engines/text/engine.js";
import type { Block } from "../../../src/output/schema.js";

const block = (type: string, y: number, text: string, lines = 1, x1 = 1100): Block => ({
  type,
  text,
  bbox: [150, y, x1, y + 30 * lines],
  lines: Array.from({ length: lines }, (_, k) => ({
    text: k ? "and the text goes on" : text,
    bbox: [150, y + 30 * k, x1, y + 30 * k + 28] as [number, number, number, number],
  })),
});

describe("text engine layout", () => {
  it("gives a running header and a page number their roles from where they sit", () => {
    const blocks = [
      block("paragraph", 60, "R Language Definition", 1, 500),
      block("paragraph", 200, "Body", 20),
      block("paragraph", 1680, "7", 1, 640),
    ];
    markRunningHeaders(blocks, 1754);
    expect(blocks.map((b) => b.type)).toEqual(["header", "paragraph", "page-number"]);
  });

  it("keeps a heading at the top of the page", () => {
    const blocks = [block("heading", 60, "Introduction", 1, 500), block("paragraph", 200, "Body", 20)];
    markRunningHeaders(blocks, 1754);
    expect(blocks.map((b) => b.type)).toEqual(["heading", "paragraph"]);
  });

  it("parses a PDF into blocks with lines and boxes", async () => {
    const { parse } = await import("../../../src/app/parse.js");
    const { fixture } = await import("../../helpers/paths.js");
    const doc = await parse(fixture("multi_page.pdf"), { engine: "text", pages: "1" });
    const page = doc.pages[0]!;
    expect(page.blocks.length).toBeGreaterThan(3);
    for (const b of page.blocks) {
      expect(b.bbox).not.toBeNull();
      expect(b.lines!.length).toBeGreaterThan(0);
      for (const l of b.lines!) expect(l.bbox[0] >= b.bbox![0] - 1 && l.bbox[2] <= b.bbox![2] + 1).toBe(true);
    }
  });
});
