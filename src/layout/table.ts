// Tables in page Markdown: tolerant reading of the HTML a model writes (tags missing, stray or unbalanced), a cell
// grid with spans, and balanced HTML or a Markdown pipe table written back from that grid.

/** One cell of a table's grid: where it starts (0-based row and column), how far it spans, its text. */
export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  /** a <th> cell */
  header: boolean;
  text: string;
}

/** A table as rows × columns of cells; a spanning cell is listed once, at its top-left slot. */
export interface TableGrid {
  rows: number;
  cols: number;
  cells: TableCell[];
}

export interface RawCell {
  text: string;
  rowSpan: number;
  colSpan: number;
  header: boolean;
}

const TAG = /<(\/?)(table|thead|tbody|tfoot|tr|td|th)\b([^>]*)>/gi;
/** Any table tag, opening or closing, with its attributes (TAG without the groups). */
export const TABLE_TAG = /<\/?(?:table|thead|tbody|tfoot|tr|td|th)\b[^>]*>/gi;

function span(attrs: string, name: string): number {
  const m = new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, "i").exec(attrs);
  const n = m ? Number(m[1]) : 1;
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 1000) : 1;
}

/** A piece of Markdown: text kept as written, or a table read from its tags. */
export type TablePiece = ({ kind: "text"; text: string } | { kind: "table"; rows: RawCell[][] }) & { start: number; end: number };

/**
 * Reads Markdown with HTML tables the way a browser forgives them: a row or cell outside any table opens one,
 * a closing tag with nothing open is dropped, a cell or row left open is closed by the next row or the table's
 * end, text between cells becomes a cell of its own, and a blank line followed by text (or the end of the input)
 * ends a table that was never closed.
 */
export function splitTables(markdown: string): TablePiece[] {
  const pieces: TablePiece[] = [];
  let text = "";
  let textStart = 0;
  let tableStart = 0;
  let rows: RawCell[][] | undefined;
  let row: RawCell[] | undefined;
  let cell: RawCell | undefined;
  const closeCell = () => {
    if (cell) cell.text = cell.text.trim();
    cell = undefined;
  };
  const closeRow = () => {
    closeCell();
    row = undefined;
  };
  const endTable = (at: number) => {
    closeRow();
    if (rows) pieces.push({ kind: "table", rows: rows.filter((r) => r.length > 0), start: tableStart, end: at });
    rows = undefined;
    textStart = at;
  };
  const openTable = (at: number) => {
    if (text) pieces.push({ kind: "text", text, start: textStart, end: at });
    text = "";
    rows = [];
    tableStart = at;
  };
  const newRow = () => {
    closeRow();
    row = [];
    rows!.push(row);
  };
  const newCell = (header: boolean, attrs: string) => {
    closeCell();
    if (!row) newRow();
    cell = { text: "", rowSpan: span(attrs, "rowspan"), colSpan: span(attrs, "colspan"), header };
    row!.push(cell);
  };
  const addText = (s: string, at: number) => {
    if (!s) return;
    if (!rows) {
      text += s;
      return;
    }
    // a blank line in a table left open (in a cell or between them) is the page going on below it
    const gap = /\n[^\S\n]*\n/.exec(s);
    if (gap && (cell || !s.slice(0, gap.index).trim()) && s.slice(gap.index).trim()) {
      if (cell) cell.text += s.slice(0, gap.index);
      endTable(at + gap.index);
      text += s.slice(gap.index);
      return;
    }
    if (cell) {
      cell.text += s;
      return;
    }
    if (!s.trim()) return;
    newCell(false, "");
    cell!.text += s;
  };
  let at = 0;
  for (const m of markdown.matchAll(TAG)) {
    addText(markdown.slice(at, m.index), at);
    at = m.index! + m[0].length;
    const close = m[1] === "/";
    const tag = m[2]!.toLowerCase();
    const attrs = m[3] ?? "";
    if (tag === "thead" || tag === "tbody" || tag === "tfoot") continue;
    if (!close) {
      if (tag === "table") {
        if (rows) endTable(m.index!);
        openTable(m.index!);
      } else {
        if (!rows) openTable(m.index!);
        if (tag === "tr") newRow();
        else newCell(tag === "th", attrs);
      }
    } else if (rows) {
      if (tag === "table") endTable(at);
      else if (tag === "tr") closeRow();
      else closeCell();
    } else if (!text) {
      // a closing tag with no table open is dropped (text after it starts after it)
      textStart = at;
    }
  }
  addText(markdown.slice(at), at);
  if (rows) endTable(markdown.length);
  if (text) pieces.push({ kind: "text", text, start: textStart, end: markdown.length });
  return pieces;
}

/** Places rows of cells on a grid, spans taking the slots below and to the right (as HTML lays out a table). */
export function tableGrid(rows: readonly (readonly RawCell[])[]): TableGrid {
  const taken: boolean[][] = [];
  const cells: TableCell[] = [];
  let cols = 0;
  rows.forEach((cellsOfRow, r) => {
    let c = 0;
    for (const cell of cellsOfRow) {
      while (taken[r]?.[c]) c++;
      const rowSpan = Math.min(cell.rowSpan, rows.length - r);
      for (let dr = 0; dr < rowSpan; dr++) for (let dc = 0; dc < cell.colSpan; dc++) (taken[r + dr] ??= [])[c + dc] = true;
      cells.push({ row: r, col: c, rowSpan, colSpan: cell.colSpan, header: cell.header, text: cell.text });
      c += cell.colSpan;
      cols = Math.max(cols, c);
    }
  });
  // every row complete: slots no cell covers get an empty cell, so each row spans the table's width
  for (let r = 0; r < rows.length; r++) {
    for (let c = 0; c < cols; c++) {
      if (!taken[r]?.[c]) {
        cells.push({ row: r, col: c, rowSpan: 1, colSpan: 1, header: false, text: "" });
        (taken[r] ??= [])[c] = true;
      }
    }
  }
  cells.sort((a, b) => a.row - b.row || a.col - b.col);
  return numericColumns(withoutEmptyColumns({ rows: rows.length, cols, cells }));
}

/** A table cell's number: 13, 0.381, 12.5 %, (45.462%), 1,245, −2, 1–3. */
const CELL_NUMBER = /^[-+−±(]?\d[\d.,]*\s*%?\)?(?:\s*[-–−]\s*\d[\d.,]*\s*%?\)?)?$/;
/** …and one the recogniser read with a letter for a digit ("I" for 1, "1O" for 10): digits, I l | O and number marks. */
const MISREAD_NUMBER = /^[-+−±(]?[\dIl|O][\dIl|O.,]*\s*%?\)?$/;
/** A column is numeric when at least this share of its body cells (below the first row, one column wide) are numbers. */
const NUMERIC_COLUMN = 0.75;
const NUMERIC_MIN = 3;

/**
 * In a column of numbers, a body cell that reads as a number once its letters are taken for the digits they look
 * like (I, l and | for 1, O for 0) is that number: the recogniser reads a lone "1" in a narrow cell as "I". Not a
 * stroke that opens a number ("I1245"): a vertical rule is read so as well.
 */
function numericColumns(grid: TableGrid): TableGrid {
  let cells = grid.cells;
  for (let c = 0; c < grid.cols; c++) {
    const body = cells.filter((x) => x.col === c && x.colSpan === 1 && x.row > 0 && x.text.trim());
    const numbers = body.filter((x) => CELL_NUMBER.test(x.text.trim())).length;
    if (numbers < NUMERIC_MIN || numbers < NUMERIC_COLUMN * body.length) continue;
    cells = cells.map((x) => {
      const t = x.text.trim();
      // (a stroke before digits is as often the cell's rule as a 1: "I1245" for "1245" beside a vertical rule)
      if (!body.includes(x) || CELL_NUMBER.test(t) || !MISREAD_NUMBER.test(t) || /^[Il|]\d/.test(t)) return x;
      const read = t.replace(/[Il|]/g, "1").replace(/O/g, "0");
      return CELL_NUMBER.test(read) ? { ...x, text: read } : x;
    });
  }
  return cells === grid.cells ? grid : { ...grid, cells };
}

/**
 * The grid without its empty columns: a column no cell of its own holds text in (each of its cells empty, or one
 * spanning it with its neighbour) is a gap the boxes' x bands made, not a column of the table (a header over a
 * value one column to its right, "Total" beside "1245" spanning two). Spans over it shrink by one.
 */
export function withoutEmptyColumns(grid: TableGrid): TableGrid {
  let { cols, cells } = grid;
  for (let c = cols - 1; c >= 0 && cols > 1; c--) {
    const covering = cells.filter((x) => x.col <= c && c < x.col + x.colSpan);
    const own = covering.filter((x) => x.colSpan === 1);
    if (own.some((x) => x.text.trim()) || own.length === covering.length) continue;
    cells = cells
      .filter((x) => !(x.colSpan === 1 && x.col === c))
      .map((x) => (x.col > c ? { ...x, col: x.col - 1 } : x.col + x.colSpan > c ? { ...x, colSpan: x.colSpan - 1 } : x));
    cols--;
  }
  return cols === grid.cols ? grid : { rows: grid.rows, cols, cells };
}

/** A form field's label: a short run of words ending in a colon ("TO:", "# REPS:", "Date of birth:"). */
const FIELD_LABEL = /^[^\s:][^:]{0,30}:$/;
/** A grid is a form's fields when this share of its rows (of those holding text) open with a label… */
const FIELD_ROWS = 0.6;
/** …and fewer than this share of its other cells are numbers (a table of figures with "Total:" rows stays one). */
const FIELD_NUMBERS = 0.5;

/** Each row's cells in column order, their text trimmed (what formFields and bulletItems read a row by). */
function rowCells(grid: TableGrid): { col: number; text: string }[][] {
  return Array.from({ length: grid.rows }, (_, r) =>
    grid.cells
      .filter((c) => c.row === r)
      .sort((a, b) => a.col - b.col)
      .map((c) => ({ col: c.col, text: c.text.trim() })),
  );
}

/**
 * A form's fields the model wrote as a table ("TO: | K. A. Sparrow", "FROM: | I. D. Blachly"): rows that mostly open
 * with a label are fields, not a table's records, and read as lines, label and value together. Returns each row's
 * cells joined, or undefined for a table.
 */
export function formFields(grid: TableGrid): string[] | undefined {
  if (grid.rows < 2) return undefined;
  const rows = rowCells(grid)
    .map((row) => row.filter((c) => c.text).map((c) => c.text))
    .filter((row) => row.length);
  const labelled = rows.filter((row) => FIELD_LABEL.test(row[0]!));
  if (labelled.length < 2 || labelled.length < FIELD_ROWS * rows.length) return undefined;
  const values = rows.flatMap((row) => row.filter((t) => !FIELD_LABEL.test(t)));
  if (values.filter((t) => CELL_NUMBER.test(t)).length >= FIELD_NUMBERS * values.length) return undefined;
  return rows.map((row) => row.join(" "));
}

/** A list's bullet as read in a cell of its own: bullet glyphs, with a dash or a middle dot the recogniser saw
 * beside one ("- •"); BULLET_GLYPH is one that is nothing but a bullet. */
const BULLET = /^[-–·•●▪◦‣∙■□►➢➤](?:\s*[-–·•●▪◦‣∙■□►➢➤])*$/u;
const BULLET_GLYPH = /[•●▪◦‣∙■□►➢➤]/u;

/**
 * A bulleted list the model wrote as a table: the detector boxed each bullet apart from its item's text, and the
 * decoder wrote the two side by side as cells ("<td>•</td><td>Mit Doppelklick …</td>", a row per item, often a
 * table per item). The first column holds bullets or nothing (an item's next line), the first row a bullet, at
 * least one of them a bullet glyph (a dash alone is a table's empty cell as often), and every row text after it.
 * Returns each item's text (its lines joined), or undefined for a table.
 */
export function bulletItems(grid: TableGrid): string[] | undefined {
  const rows = rowCells(grid)
    .map((cells) => ({
      first: cells[0]?.col === 0 ? cells[0].text : "",
      rest: cells.filter((c) => c.col > 0 && c.text).map((c) => c.text),
    }))
    .filter((row) => row.first || row.rest.length);
  if (
    !rows.length ||
    !BULLET.test(rows[0]!.first) ||
    !rows.some((row) => BULLET_GLYPH.test(row.first)) ||
    !rows.every((row) => (row.first === "" || BULLET.test(row.first)) && row.rest.length)
  )
    return undefined;
  const items: string[] = [];
  for (const row of rows)
    if (row.first) items.push(row.rest.join(" "));
    else items[items.length - 1] += " " + row.rest.join(" ");
  return items;
}

/** The grid as HTML: every row opened and closed, spans as colspan/rowspan. */
export function tableHtml(grid: TableGrid): string {
  let html = "<table>";
  for (let r = 0; r < grid.rows; r++) {
    html += "<tr>";
    for (const cell of grid.cells.filter((c) => c.row === r)) {
      const tag = cell.header ? "th" : "td";
      const attrs = (cell.rowSpan > 1 ? ` rowspan="${cell.rowSpan}"` : "") + (cell.colSpan > 1 ? ` colspan="${cell.colSpan}"` : "");
      html += `<${tag}${attrs}>${cell.text}</${tag}>`;
    }
    html += "</tr>";
  }
  return html + "</table>";
}

/** The grid as a Markdown pipe table (first row as its header), or undefined when a cell spans (pipes cannot). */
export function pipeTable(grid: TableGrid): string | undefined {
  if (grid.rows === 0 || grid.cols === 0 || grid.cells.some((c) => c.rowSpan > 1 || c.colSpan > 1)) return undefined;
  const cell = (t: string) =>
    t
      .replace(/\\/g, "\\\\")
      .replace(/\|/g, "\\|")
      .replace(/\s*\n\s*/g, " ")
      .trim();
  const lines: string[] = [];
  for (let r = 0; r < grid.rows; r++) {
    const row = grid.cells.filter((c) => c.row === r).map((c) => cell(c.text));
    lines.push(`| ${row.join(" | ")} |`);
    if (r === 0) lines.push(`|${" --- |".repeat(grid.cols)}`);
  }
  return lines.join("\n");
}

export type TableStyle = "html" | "markdown";

/** A table as written in the page's Markdown: HTML, or with style "markdown" a pipe table where no cell spans. */
export function writeTable(grid: TableGrid, style: TableStyle = "html"): string {
  return (style === "markdown" ? pipeTable(grid) : undefined) ?? tableHtml(grid);
}

/**
 * Markdown whose tables are balanced HTML: every table closed, every row complete, no row or cell outside a table,
 * spans kept (see splitTables); a table of one cell in one row becomes that cell's text. Text outside tables is
 * kept as written.
 */
export function balanceTables(markdown: string, style: TableStyle = "html"): string {
  if (!/<\/?(?:table|tr|td|th|thead|tbody|tfoot)\b/i.test(markdown)) return markdown;
  return splitTables(markdown)
    .map((p) => {
      if (p.kind === "text") return p.text;
      const grid = tableGrid(p.rows);
      if (grid.cells.length === 0) return "";
      if (grid.rows === 1 && grid.cols === 1) return grid.cells[0]!.text;
      return writeTable(grid, style);
    })
    .join("");
}
