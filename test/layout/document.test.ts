// Layout over a whole document: running headers repeated at the same place, page Markdown from blocks as asked.
import { describe, expect, it } from "vitest";
import { assemblePage, type PageLine } from "../../src/layout/page.js";
import { finishDocumentPages, markRepeatedMargins } from "../../src/layout/document.js";
import type { PageRecord } from "../../src/output/schema.js";

const W = 1240,
  H = 1754;
const line = (y: number, markdown: string, x0 = 120, x1 = 1120, h = 30): PageLine => ({
  box: { xMin: x0, yMin: y, xMax: x1, yMax: y + h },
  markdown,
});

/** A page whose running header sits close above the body (one and a half pitches: geometry alone keeps it). */
function page(n: number, header: string, first = "\n\nBody text of page"): PageRecord {
  const lines = [
    line(100, header, 120, 520, 28),
    ...Array.from({ length: 25 }, (_, k) => line(148 + 32 * k, k === 0 ? `${first} ${n}` : " and more of it")),
  ];
  const { blocks, markdown } = assemblePage(lines, W, H);
  return { page: n, width: W, height: H, dpi: 150, markdown, blocks, truncated: false, tokenCount: 0, timings: {}, warnings: [] };
}

describe("running headers over a document", () => {
  it("takes text repeated at the same place on the pages for a running header (digits aside), out of the Markdown", () => {
    const pages = [1, 2, 3].map((n) => page(n, `Revision: 2.${n}`));
    // one page alone: the header is too close to the body for geometry to call it one
    expect(pages[0]!.blocks[0]!.type).toBe("paragraph");
    expect(pages[0]!.markdown).toMatch(/^Revision: 2.1/);
    finishDocumentPages(pages);
    for (const p of pages) {
      expect(p.blocks[0]!.type).toBe("header");
      expect(p.blocks[0]!.bbox).toEqual([120, 100, 520, 128]);
      expect(p.markdown).toMatch(/^Body text of page/);
    }
  });

  it("puts running headers back with keepHeaders, and writes pipe tables when asked", () => {
    const pages = [1, 2, 3].map((n) => page(n, "Download date: 28 Dec 2018"));
    finishDocumentPages(pages, { keepHeaders: true });
    expect(pages[1]!.blocks[0]!.type).toBe("header");
    expect(pages[1]!.markdown).toMatch(/^Download date: 28 Dec 2018\n\nBody text/);
    const table = assemblePage(
      [
        line(300, "<table><tr><td>a</td>", 120, 300),
        line(300, "<td>b</td></tr>", 600, 800),
        line(340, "<tr><td>c</td><td>d</td></tr></table>", 120, 800),
      ],
      W,
      H,
    );
    const p: PageRecord = { ...page(1, "x"), blocks: table.blocks, markdown: table.markdown };
    finishDocumentPages([p], { tables: "markdown" });
    expect(p.markdown).toBe("| a | b |\n| --- | --- |\n| c | d |");
  });

  it("leaves headings and text that does not repeat alone", () => {
    const pages = [page(1, "## Chapter 1"), page(2, "## Chapter 2"), page(3, "An opening line")];
    expect(markRepeatedMargins(pages)).toBe(0);
    expect(pages.map((p) => p.blocks[0]!.type)).toEqual(["heading", "heading", "paragraph"]);
  });
});
