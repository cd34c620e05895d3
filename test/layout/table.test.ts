// Tables in page Markdown: balanced HTML from whatever tags a model wrote, cell grids with spans, pipe tables.
import { describe, expect, it } from "vitest";
import { balanceTables, formFields, pipeTable, splitTables, tableGrid, tableHtml } from "../../src/layout/table.js";

/** Every <table> closed, every <tr> inside a table and closed, every cell inside a row. */
function balanced(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)(table|tr|td|th)\b[^>]*>/g)) {
    const [, close, tag] = m;
    if (!close) {
      const parent = stack.at(-1);
      if (tag === "table" && parent !== undefined && parent !== "td" && parent !== "th") return false;
      if (tag === "tr" && parent !== "table") return false;
      if ((tag === "td" || tag === "th") && parent !== "tr") return false;
      stack.push(tag!);
    } else if (stack.pop() !== tag) return false;
  }
  return stack.length === 0;
}

describe("balanceTables", () => {
  it("opens a table for rows written without one and closes what was left open (issue 17: <tr><td> with no <table>)", () => {
    const md = "Results\n\n<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>\n\nAfter the table.";
    const out = balanceTables(md);
    expect(out).toBe("Results\n\n<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>\n\nAfter the table.");
    expect(balanced(out)).toBe(true);
  });

  it("drops closing tags nothing opened (57 <table> against 68 </table>) and completes short rows", () => {
    const md = "</table>x <table><tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td></table></table></tr> y";
    const out = balanceTables(md);
    expect(out).toBe("x <table><tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td><td></td><td></td></tr></table> y");
    expect(balanced(out)).toBe(true);
    expect((out.match(/<table>/g) ?? []).length).toBe((out.match(/<\/table>/g) ?? []).length);
  });

  it("keeps spans, and a spanning cell fills its slots (rows are complete counting spans)", () => {
    const md = '<table><tr><th colspan="2">Head</th></tr><tr><td rowspan=2>a</td><td>b</td></tr><tr><td>c</td></tr></table>';
    const piece = splitTables(md)[0]!;
    if (piece.kind !== "table") throw new Error("no table read");
    const grid = tableGrid(piece.rows);
    expect(grid).toMatchObject({ rows: 3, cols: 2 });
    expect(grid.cells).toEqual([
      { row: 0, col: 0, rowSpan: 1, colSpan: 2, header: true, text: "Head" },
      { row: 1, col: 0, rowSpan: 2, colSpan: 1, header: false, text: "a" },
      { row: 1, col: 1, rowSpan: 1, colSpan: 1, header: false, text: "b" },
      { row: 2, col: 1, rowSpan: 1, colSpan: 1, header: false, text: "c" },
    ]);
    expect(balanceTables(md)).toBe(
      '<table><tr><th colspan="2">Head</th></tr><tr><td rowspan="2">a</td><td>b</td></tr><tr><td>c</td></tr></table>',
    );
  });

  it("drops a column no cell of its own fills, shrinking the span over it; keeps a blank column without spans", () => {
    const gap =
      "<table><tr><td></td><td>Pre</td><td></td><td>Total</td></tr>" +
      '<tr><td>Water samples</td><td>679</td><td colspan="2">1245</td></tr>' +
      "<tr><td>Positive</td><td>394</td><td></td><td>636</td></tr></table>";
    expect(balanceTables(gap)).toBe(
      "<table><tr><td></td><td>Pre</td><td>Total</td></tr><tr><td>Water samples</td><td>679</td><td>1245</td></tr>" +
        "<tr><td>Positive</td><td>394</td><td>636</td></tr></table>",
    );
    // a form's column left blank to be filled in is the form's
    const form = "<table><tr><td>Name</td><td></td></tr><tr><td>Date</td><td></td></tr></table>";
    expect(balanceTables(form)).toBe(form);
  });

  it("ends a table left open where the page goes on after a blank line, and reads text between cells as a cell", () => {
    const out = balanceTables("<table><tr><td>a</td> b <td>c\n\nNext paragraph.");
    expect(out).toBe("<table><tr><td>a</td><td>b</td><td>c</td></tr></table>\n\nNext paragraph.");
  });

  it("tells a form's fields (rows opening with a label) from a table", () => {
    const grid = (html: string) => {
      const p = splitTables(html)[0]!;
      return tableGrid(p.kind === "table" ? p.rows : []);
    };
    expect(
      formFields(grid("<table><tr><td>TO:</td><td>K. A. Sparrow</td></tr><tr><td>FROM:</td><td>I. D. Blachly</td></tr></table>")),
    ).toEqual(["TO: K. A. Sparrow", "FROM: I. D. Blachly"]);
    // labels on too few rows, one row, figures as values: tables
    expect(
      formFields(grid("<table><tr><td>Name:</td><td>x</td></tr><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>")),
    ).toBeUndefined();
    expect(formFields(grid("<table><tr><td>TO:</td><td>K. A. Sparrow</td></tr></table>"))).toBeUndefined();
    expect(formFields(grid("<table><tr><td>Mean:</td><td>1.25</td></tr><tr><td>SD:</td><td>0.5</td></tr></table>"))).toBeUndefined();
  });

  it("unwraps a table of one cell, and leaves Markdown without tables alone", () => {
    expect(balanceTables("text\n\n<table><tr><td>package</td></tr></table>")).toBe("text\n\npackage");
    expect(balanceTables("a < b and c > d")).toBe("a < b and c > d");
  });

  it("writes pipe tables with --tables markdown where no cell spans, HTML where one does", () => {
    const plain = "<table><tr><td>Name</td><td>a|b</td></tr><tr><td>x</td></tr></table>";
    expect(balanceTables(plain, "markdown")).toBe("| Name | a\\|b |\n| --- | --- |\n| x |  |");
    const spanning = '<table><tr><td colspan="2">wide</td></tr><tr><td>1</td><td>2</td></tr></table>';
    expect(balanceTables(spanning, "markdown")).toBe(spanning);
    expect(pipeTable(tableGrid([]))).toBeUndefined();
  });

  it("writes a grid back as the same HTML", () => {
    const html = "<table><tr><td>1</td><td>2</td></tr></table>";
    const piece = splitTables(html)[0]!;
    expect(piece.kind).toBe("table");
    if (piece.kind === "table") expect(tableHtml(tableGrid(piece.rows))).toBe(html);
  });
});

describe("numbers in a table's columns", () => {
  const cell = (text: string) => ({ text, rowSpan: 1, colSpan: 1, header: false });
  const rowsOf = (table: string[][]) => table.map((r) => r.map(cell));
  const column = (table: string[][], c: number) => {
    const g = tableGrid(rowsOf(table));
    return g.cells.filter((x) => x.col === c).map((x) => x.text);
  };

  it("reads a letter the recogniser took for a digit as the digit, in a column of numbers (tb-pmc4776821)", () => {
    const table = [
      ["Prior Experience", "One", "Two", "Total"],
      ["High", "5", "6", "13"],
      ["Medium", "4", "8", "17"],
      ["Low", "3", "I", "1O"],
      ["Total", "I12", "15", "36"],
    ];
    expect(column(table, 2)).toEqual(["Two", "6", "8", "1", "15"]);
    expect(column(table, 3)).toEqual(["Total", "13", "17", "10", "36"]);
    // (a stroke before a number may be the cell's rule: it stays)
    expect(column(table, 1)).toEqual(["One", "5", "4", "3", "I12"]);
  });

  it("leaves words, a column of words and a header row as they are", () => {
    const table = [
      ["O", "Name", "Value"],
      ["1", "I", "Io"],
      ["2", "Ol", "OK"],
      ["3", "l", "3"],
      ["4", "x", "4"],
    ];
    expect(column(table, 0)).toEqual(["O", "1", "2", "3", "4"]);
    expect(column(table, 1)).toEqual(["Name", "I", "Ol", "l", "x"]);
    expect(column(table, 2)).toEqual(["Value", "Io", "OK", "3", "4"]);
  });
});
