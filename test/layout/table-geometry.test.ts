// Tables rebuilt from where their cells sit (src/layout/table-geometry.ts), and through assemblePage.
import { describe, expect, it } from "vitest";
import { assemblePage, type PageLine } from "../../src/layout/page.js";
import { tablesByGeometry } from "../../src/layout/table-geometry.js";
import { pageLine as L } from "./helpers.js";

// tb-pmc4776821 as the decoder wrote it: the row labels "Prior Experience" and "Medium-High/Medium" were detected
// apart from their cells and read as paragraphs, the header row got a fifth, empty cell, and the last row label
// opened a code fence that never closed
const decoded: PageLine[] = [
  L(4, 3, 80, 19, "Prior Experience"),
  L(141, 3, 165, 18, "\n\n<table><tr><td>One"),
  L(198, 3, 223, 18, "</td><td>Two"),
  L(262, 3, 327, 19, "</td><td>Three or More"),
  L(333, 4, 360, 18, "</td><td>Total</td><td>"),
  L(4, 20, 30, 34, "</td></tr><tr><td>High"),
  L(141, 20, 154, 33, "</td><td>5"),
  L(198, 21, 212, 34, "</td><td>6"),
  L(261, 20, 275, 33, "</td><td>2"),
  L(334, 20, 349, 33, "</td><td>13</td></tr></table>"),
  L(6, 36, 96, 50, "\n\nMedium-High/Medium"),
  L(141, 37, 154, 49, "\n\n<table><tr><td>4"),
  L(198, 36, 209, 49, "</td><td>8"),
  L(262, 36, 275, 50, "</td><td>5"),
  L(334, 35, 349, 49, "</td><td>17</td></tr></table>"),
  L(5, 51, 67, 66, "\n\n```\nLow/Very-Low"),
  L(141, 52, 154, 65, "\n\n<table><tr><td>3"),
  L(198, 52, 209, 65, "</td><td>1"),
  L(262, 52, 275, 65, "</td><td>2"),
  L(334, 52, 349, 65, "</td><td>6</td></tr></table>"),
];

describe("tablesByGeometry", () => {
  it("reads one table from the boxes: row labels in their rows, as many columns as the cells show", () => {
    const { blocks, markdown } = assemblePage(decoded, 400, 100);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([4, 5]);
    const cell = (r: number, c: number) => t.cells.find((x) => x.row === r && x.col === c)!.text;
    expect([0, 1, 2, 3, 4].map((c) => cell(0, c))).toEqual(["Prior Experience", "One", "Two", "Three or More", "Total"]);
    expect([0, 1, 2, 3, 4].map((c) => cell(2, c))).toEqual(["Medium-High/Medium", "4", "8", "5", "17"]);
    expect(cell(3, 0)).toBe("Low/Very-Low");
    // every member line is in the table's block, and the fence the decoder never closed is gone
    expect(blocks[0]!.lines!.length).toBe(decoded.length);
    expect(markdown).not.toContain("```");
  });

  it("leaves pages without table tags as they are", () => {
    const prose = [L(100, 100, 900, 130, "\n\nBody text"), L(100, 132, 700, 162, " goes on.")];
    const out = tablesByGeometry(prose);
    expect(out).toEqual(prose);
  });

  it("keeps prose beside a table out of it, and leaves a table that prose runs through to the decoder", () => {
    // a two-column page: a small table in the left column (decoder tags), prose lines in the right one level with it
    const left = [
      L(100, 100, 180, 120, "\n\n<table><tr><td>a"),
      L(300, 100, 340, 120, "</td><td>1</td></tr>"),
      L(100, 124, 180, 144, "<tr><td>b"),
      L(300, 124, 340, 144, "</td><td>2</td></tr></table>"),
    ];
    const right = [L(640, 100, 1100, 120, "\n\nRight column prose"), L(640, 124, 1100, 144, " that goes on.")];
    const out = tablesByGeometry([...left, ...right]);
    expect(out.slice(4)).toEqual(right);
    expect(
      out
        .slice(0, 4)
        .map((l) => l.markdown)
        .join(""),
    ).toBe("\n\n<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>\n\n");
    // a full-width line between the two rows runs through the table: not rebuilt
    const through = [...left.slice(0, 2), L(100, 112, 900, 132, " prose across"), ...left.slice(2)];
    expect(tablesByGeometry(through)).toEqual(through);
  });

  it("closes a code fence left open before a table, and opens it again after it when a later line closes it", () => {
    const table = [
      L(100, 100, 180, 120, "\n\n<table><tr><td>a"),
      L(300, 100, 340, 120, "</td><td>1</td></tr>"),
      L(100, 124, 180, 144, "<tr><td>b"),
      L(300, 124, 340, 144, "</td><td>2</td></tr></table>"),
    ];
    const before = L(100, 60, 600, 80, "\n\n```\ncode");
    const after = L(100, 200, 600, 220, "\nmore code\n```");
    const md = tablesByGeometry([before, ...table, after])
      .map((l) => l.markdown)
      .join("");
    expect(md).toBe(
      "\n\n```\ncode\n```\n\n<table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>\n\n```\n\nmore code\n```",
    );
  });
  it("leaves two page columns of prose and a listing's line numbers to the decoder, though both look like rows", () => {
    // a two-column page whose columns share their leading, which the decoder wrote as a table: rows of two lines
    const prose = "justified prose that fills its column to the edge";
    const twoColumns = Array.from({ length: 8 }, (_, k) => [
      L(100, 100 + 24 * k, 580, 120 + 24 * k, (k === 0 ? "\n\n<table>" : "") + "<tr><td>" + prose),
      L(620, 100 + 24 * k, 1100, 120 + 24 * k, "</td><td>" + prose + "</td></tr>" + (k === 7 ? "</table>" : "")),
    ]).flat();
    expect(tablesByGeometry(twoColumns)).toEqual(twoColumns);
    // a listing the decoder wrote as a table of line numbers and code
    const listing = Array.from({ length: 6 }, (_, k) => [
      L(100, 100 + 24 * k, 130, 120 + 24 * k, k === 0 ? "\n\n<table><tr><td>" + (13 + k) : "<tr><td>" + (13 + k)),
      L(160, 100 + 24 * k, 400 + 20 * k, 120 + 24 * k, "</td><td>\\hbox_set:Nn" + (k === 5 ? "</td></tr></table>" : "</td></tr>")),
    ]).flat();
    expect(tablesByGeometry(listing)).toEqual(listing);
  });

  it("takes in row labels the decoder left out, one level with each row", () => {
    const rows = [0, 1, 2, 3].map((k) => 100 + 30 * k);
    const labels = rows.map((y, k) => L(20, y, 260, y + 20, `\n\nNumber of samples with load values of class ${k}`));
    const cells = rows.flatMap((y, k) => [
      L(300, y, 380, y + 20, (k === 0 ? "\n\n<table>" : "") + `<tr><td>${10 + k}`),
      L(420, y, 470, y + 20, `</td><td>${20 + k}</td></tr>` + (k === 3 ? "</table>" : "")),
    ]);
    // reading order as the decoder had it: labels apart from their cells
    const { blocks } = assemblePage([...cells.slice(0, 4), ...labels, ...cells.slice(4)], 600, 400);
    expect(blocks.map((b) => b.type)).toEqual(["table"]);
    const t = blocks[0]!.table!;
    expect([t.rows, t.cols]).toEqual([4, 3]);
    expect(t.cells.filter((c) => c.row === 2).map((c) => c.text)).toEqual(["Number of samples with load values of class 2", "12", "22"]);
  });
});
