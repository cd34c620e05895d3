// Tables rebuilt from where their cells sit. The decoder writes a table line by line, one detected box at a time,
// so it never sees the grid: a row label detected apart from its cells starts a new table, a header row gets a
// column too many, and a row it read as prose leaves the table. Here the boxes decide the grid: the lines of a
// table the decoder began (lines whose text it wrote inside table tags) are gathered with the rows level with them, rows are the
// lines level with each other, columns the x bands that (nearly) no cell crosses, and each line's text goes
// to the cells its box covers. The lines then carry the table's HTML in row order, so the page assembler reads
// one table with every member line. A grid of cells the decoder wrote as text (a table without rules, each cell
// detected on its own) seeds a table too, under stricter checks, since page columns are rows of cells as well.
import type { PageLine } from "./page.js";
import { TABLE_TAG } from "./table.js";
import { core, coreCoverage, extentOf, level, median, type Extent } from "./xycut.js";

/** TABLE_TAG as a split separator that keeps the tags in the pieces. */
const TAG_KEPT = new RegExp(`(${TABLE_TAG.source})`, "i");

/** On either side of a column separator, at least this share of the lines of the side with fewer are level with the other side's. */
const LEVEL_SHARE = 0.6;
/** A column of PROSE_LINES lines or more is prose when they are PROSE_LENGTH characters long and fill PROSE_FILL of
 * its width (medians; justified text fills its column, a table's label column is ragged). */
const PROSE_LINES = 4;
const PROSE_LENGTH = 25;
const PROSE_FILL = 0.85;
/** Row labels left of a table join it when one sits level with at least this share of its rows. */
const LABELLED = 0.6;
/** A first column that counts up by one on this share of the rows is a code listing's line numbers. */
const LISTING = 0.5;
/** At least this share of a rebuilt grid's cells hold text (tables are dense; widgets and labels are not). */
const FILLED = 0.5;
/** …and at least this share when the boxes alone found the grid (an index set in page columns leaves gaps). */
const GRID_FILLED = 0.7;
/** Columns no wider than this many times the narrowest are a page's columns, not a table's. */
const EVEN_COLUMNS = 1.25;
/** Seeds closer than this many line heights (vertically) belong to one table. */
const SEED_GAP = 3;
/** …and within this many line heights horizontally (the widest gap between two cells of a row). */
const SEED_REACH = 12;
/** Lines this many line heights or less above or below two seeds say whether a page gutter parts them. */
const GUTTER_WINDOW = 10;
/** A row this many line heights or less above or below the table joins it when it holds two cells or more. */
const ROW_GAP = 1.5;
/** Rows the decoder wrote table cells on stay at least this share of the table's rows as it grows. */
const SEEDED = 0.6;
/** A ruled table the decoder wrote this many bands of as rows grows by its other bands, seeded or not. */
const RULED_SEEDS = 2;
/** A line whose x extent lies this much inside the table's is one of its candidates. */
const INSIDE = 0.8;
/** A column separator may be crossed by this share of the rows (a header spanning two columns). */
const CROSSING = 0.15;
/** Page numbers as an index or a table of contents gives them: 12, 12–14, 7, 45, 102 (dot leaders before). */
const PAGE_REFERENCES = /^[.·…\s]*(?:\d{1,4}|[ivxlc]{1,6})(?:\s*[-–,]\s*(?:\d{1,4}|[ivxlc]{1,6}))*[,.]?$/i;
/** A number in a table's cell, alone or as a range (0.839, 12.5 %, 0.31–2.27, 1245). */
const NUMBER = /^[-+−±(]?[\d.,]*\d\s*%?\)?(?:\s*[-–−]\s*[\d.,]*\d\s*%?\)?)?$/;
/** A sparse grid's values (right of its first column) are mostly numbers, MEASURED of them with a decimal point or a
 * percent sign (an index's or a contents page's numbers are whole pages). */
const NUMBERS = 0.6;
const MEASURED = 0.3;
/** Values of a table: NUMBERS of them numbers, MEASURED of them with a decimal point or a percent sign. */
function measured(values: readonly string[]): boolean {
  return (
    values.length > 0 &&
    values.filter((v) => NUMBER.test(v)).length >= NUMBERS * values.length &&
    values.filter((v) => NUMBER.test(v) && /\d[.,]\d|%/.test(v)).length >= MEASURED * values.length
  );
}

/** A grid the decoder did not write as a table: at least GRID_ROWS rows, each at most ROW_GAP line heights under
 * the last, holding two cells or more (boxes set apart by more than CELL_GAP line heights, wider than a word
 * space), and GRID_WIDE of them three or more (two page columns, a listing's comments are rows of two). */
const GRID_ROWS = 3;
const CELL_GAP = 1;
const GRID_WIDE = 0.6;
/** …or this share for a sparse table of numbers (see measured). */
const SPARSE_WIDE = 0.3;
/** A grid of two columns is a table only when it is all the page holds and fills it, CROP_FILL of its width (an image
 * of a table: names and values, a header row over them), and has PAIR_ROWS rows; on a page, with its margins, rows of
 * two are page columns or a listing's comments. */
const PAIR_ROWS = 5;
const CROP_FILL = 0.8;

/** The members are every line the page holds text on and span CROP_FILL of its width: the image is of them alone. */
function wholeImage(members: readonly number[], lines: readonly PageLine[], boxes: readonly Extent[], pageWidth: number): boolean {
  const e = extentOf(members, boxes);
  return (
    pageWidth > 0 && e.xMax - e.xMin >= CROP_FILL * pageWidth && lines.every((l, i) => members.includes(i) || !pieces(l.markdown).length)
  );
}

/** A line's text pieces as the decoder split them into cells (one piece for a line with no cell tags). */
function pieces(markdown: string): string[] {
  const clean = (s: string) =>
    s
      .replace(/```[a-z]*/g, " ")
      .replace(/^\s*#{1,6}\s+/, "")
      .replace(/\s+/g, " ")
      .trim();
  if (!/<\/?(?:td|th|tr|table)\b/i.test(markdown)) return [clean(markdown)].filter((s) => s);
  return markdown
    .split(TABLE_TAG)
    .map(clean)
    .filter((s) => s);
}

// the top and bottom of some of the page's lines
const top = (indices: readonly number[], boxes: readonly Extent[]) => Math.min(...indices.map((i) => boxes[i]!.yMin));
const bottom = (indices: readonly number[], boxes: readonly Extent[]) => Math.max(...indices.map((i) => boxes[i]!.yMax));

/** A band between two of a table's rules holds at most this many level rows to be read as one row with wrapped cells. */
const WRAPPED_LINES = 6;

/**
 * Rows of the given lines, top to bottom, each left to right: a line joins the row whose first member it is level
 * with. Where rules (layout/rules.ts) cross the lines' whole width, two or more of them from a line height above
 * their first line to one below their last, the level rows of a band between two rules are one row when they are a
 * row whose cells wrap: at most
 * WRAPPED_LINES of them, and only one with two lines or more (the one-line cells level with a line of the wrapped
 * cell, or between two of its lines: a command and its syntax beside a description of three lines); its lines go
 * cell by cell (lines overlapping in x, top to bottom). A band of rows of several cells each (two rows beside a
 * cell spanning both) keeps them. Rows made so are in `wrapped`.
 */
function rowsOf(indices: readonly number[], boxes: readonly Extent[], rules: readonly Extent[] = [], wrapped?: Set<number[]>): number[][] {
  const rows: number[][] = [];
  for (const i of [...indices].sort((a, b) => boxes[a]!.yMin - boxes[b]!.yMin)) {
    const row = rows.find((r) => level(boxes[r[0]!]!, boxes[i]!));
    if (row) row.push(i);
    else rows.push([i]);
  }
  for (const r of rows) r.sort((a, b) => boxes[a]!.xMin - boxes[b]!.xMin);
  if (rules.length < 2 || indices.length < 2) return rows;
  const e = extentOf(indices, boxes);
  const line = median(indices.map((i) => boxes[i]!.yMax - boxes[i]!.yMin));
  const edges = rules
    .filter((r) => r.xMin <= e.xMin + line && r.xMax >= e.xMax - line && r.yMax > e.yMin - line && r.yMin < e.yMax + line)
    .map((r) => (r.yMin + r.yMax) / 2)
    .sort((a, b) => a - b);
  if (edges.length < 2) return rows;
  const bandOf = (row: readonly number[]) => {
    const y = (boxes[row[0]!]!.yMin + boxes[row[0]!]!.yMax) / 2;
    return edges.filter((edge) => edge < y).length;
  };
  const out: number[][] = [];
  for (let k = 0; k < rows.length; ) {
    let end = k + 1;
    while (end < rows.length && bandOf(rows[end]!) === bandOf(rows[k]!)) end++;
    const band = rows.slice(k, end);
    // (a band between two rules: not what lies above the first or below the last, a caption, a running header)
    const between = bandOf(band[0]!) > 0 && bandOf(band[0]!) < edges.length;
    k = end;
    if (!between || band.length < 2 || band.length > WRAPPED_LINES || band.filter((r) => r.length >= 2).length !== 1) {
      out.push(...band);
      continue;
    }
    // cell by cell: lines overlapping in x together, left to right, each cell's lines top to bottom
    const cells: number[][] = [];
    for (const i of band.flat().sort((a, b) => boxes[a]!.yMin - boxes[b]!.yMin)) {
      const cell = cells.find((c) => c.some((j) => boxes[j]!.xMax > boxes[i]!.xMin && boxes[i]!.xMax > boxes[j]!.xMin));
      if (cell) cell.push(i);
      else cells.push([i]);
    }
    const row = cells.sort((a, b) => Math.min(...a.map((i) => boxes[i]!.xMin)) - Math.min(...b.map((i) => boxes[i]!.xMin))).flat();
    wrapped?.add(row);
    out.push(row);
  }
  return out;
}

/** Column separators: middles of the x runs that at most CROSSING of the rows cross, with cells on both sides. */
function separators(rows: readonly number[][], boxes: readonly Extent[]): number[] {
  const cells = rows.flat().map((i) => boxes[i]!);
  const cores = cells.map(core);
  const x0 = Math.floor(Math.min(...cores.map((c) => c[0]))),
    x1 = Math.ceil(Math.max(...cores.map((c) => c[1])));
  const cover = coreCoverage(cells, x0, x1 - x0 + 1);
  const allowed = Math.floor(CROSSING * rows.length);
  const out: number[] = [];
  let x = 0;
  while (x <= x1 - x0) {
    if (cover[x]! > allowed) {
      x++;
      continue;
    }
    let end = x;
    while (end + 1 <= x1 - x0 && cover[end + 1]! <= allowed) end++;
    if (x > 0 && end < x1 - x0) out.push(x0 + (x + end + 1) / 2);
    x = end + 1;
  }
  return out;
}

/** The column of an x position between separators. */
const columnAt = (x: number, seps: readonly number[]) => seps.filter((s) => s <= x).length;

/**
 * The lines whose own text the decoder wrote inside a table (its tags read in reading order): not a line that
 * only closes the table before its text ("</td></tr></table>\n\nFigure 1: …"), nor text after a blank line in a
 * table the decoder left open.
 */
function tableLines(lines: readonly PageLine[]): number[] {
  const out: number[] = [];
  let open = false;
  lines.forEach((line, i) => {
    let inside = false;
    for (const part of line.markdown.split(TAG_KEPT)) {
      const tag = /^<(\/?)(table|thead|tbody|tfoot|tr|td|th)\b/i.exec(part);
      if (tag) open = tag[1] === "/" ? tag[2]!.toLowerCase() !== "table" : true;
      else if (open) {
        // a blank line in a table left open is the page going on below it (as splitTables reads it)
        const blank = /\n[ \t]*\n/.exec(part);
        if ((blank ? part.slice(0, blank.index) : part).trim()) inside = true;
        if (blank) open = false;
      }
    }
    if (inside) out.push(i);
  });
  return out;
}

/**
 * Lines of grids the decoder wrote as text (a table without rules, its cells detected one by one): runs of rows
 * of cells as GRID_ROWS, GRID_WIDE and CELL_GAP say. They seed tables as the decoder's table lines do, and the
 * same checks (page columns, prose, listings, sparse grids) turn away what is no table.
 */
function gridLines(lines: readonly PageLine[], boxes: readonly Extent[], h: number, pageWidth: number): number[] {
  const written = lines.map((_, i) => i).filter((i) => pieces(lines[i]!.markdown).length);
  const rows = rowsOf(written, boxes);
  const cells = (r: readonly number[]) => 1 + r.filter((i, k) => k > 0 && boxes[i]!.xMin - boxes[r[k - 1]!]!.xMax > CELL_GAP * h).length;
  const out: number[] = [];
  let run: number[][] = [];
  const close = () => {
    // (an image of a two-column table: every line the page holds in one run of rows of two)
    if (run.length >= PAIR_ROWS && run.every((r) => cells(r) === 2) && wholeImage(run.flat(), lines, boxes, pageWidth)) {
      out.push(...run.flat());
      run = [];
      return;
    }
    // a row of fewer than three cells at either end that reaches beyond the wide rows' width is the page going on
    // (a line of each page column level under a table spanning both), not the table's header or total
    const wide = extentOf(run.filter((r) => cells(r) >= 3).flat(), boxes);
    const x0 = wide.xMin - 2 * h,
      x1 = wide.xMax + 2 * h;
    const beyond = (r: readonly number[]) => cells(r) < 3 && r.some((i) => boxes[i]!.xMin < x0 || boxes[i]!.xMax > x1);
    while (run.length && beyond(run[0]!)) run.shift();
    while (run.length && beyond(run[run.length - 1]!)) run.pop();
    // (fewer rows of three do for a sparse table: its values, right of each row's first box, mostly numbers)
    const rowsOfThree = run.filter((r) => cells(r) >= 3).length;
    if (
      run.length >= GRID_ROWS &&
      (rowsOfThree >= GRID_WIDE * run.length ||
        (rowsOfThree >= SPARSE_WIDE * run.length &&
          measured(run.flatMap((r) => r.slice(1).map((i) => pieces(lines[i]!.markdown).join(" "))))))
    )
      out.push(...run.flat());
    run = [];
  };
  for (const row of rows) {
    const last = run[run.length - 1];
    if (last && (cells(row) < 2 || top(row, boxes) - bottom(last, boxes) > ROW_GAP * h)) close();
    if (cells(row) >= 2) run.push(row);
  }
  close();
  return out;
}

/**
 * A row of two numbers or more under a table, one per column, its figures detected as one line or few (a total row
 * set close: "114" and "156 270"): each number's place along its line's box (by its characters, as figures are set
 * one width) falls in a column of its own, left to right. The columns it fills, each with its number and line.
 */
function numbersRow(
  row: readonly number[],
  lines: readonly PageLine[],
  boxes: readonly Extent[],
  seps: readonly number[],
): Map<number, [string, number]> | undefined {
  const out = new Map<number, [string, number]>();
  let previous = -1;
  for (const i of [...row].sort((x, y) => boxes[x]!.xMin - boxes[y]!.xMin)) {
    const parts = pieces(lines[i]!.markdown);
    if (parts.length !== 1) return undefined;
    const text = parts[0]!;
    const [a, b] = core(boxes[i]!);
    for (const t of text.matchAll(/\S+/g)) {
      if (!NUMBER.test(t[0])) return undefined;
      const c = columnAt(a + ((t.index! + t[0].length / 2) / text.length) * (b - a), seps);
      if (c <= previous) return undefined;
      out.set(c, [t[0], i]);
      previous = c;
    }
  }
  return out.size >= 2 ? out : undefined;
}

interface Slot {
  text: string[];
  owners: number[];
  span: number;
}

/**
 * The lines with every table the decoder began rebuilt from its boxes (see the file's head); lines come back in
 * reading order, a table's lines together where its first line was, each carrying its part of the table's HTML.
 * Lines of no table are returned as they were.
 */
export function tablesByGeometry(lines: readonly PageLine[], pageWidth = 0, rules: readonly Extent[] = []): PageLine[] {
  const boxes = lines.map((l) => l.box);
  const h = median(boxes.map((b) => b.yMax - b.yMin)) || 1;
  const decoded = new Set(tableLines(lines));
  const gridded = gridLines(lines, boxes, h, pageWidth);
  if (!decoded.size && !gridded.length) return [...lines];
  // seeds of one table: linked when within SEED_GAP line heights of each other vertically and SEED_REACH
  // horizontally; the decoder's seeds and a grid's are linked apart (a grid keeps the tagged lines it runs through)
  const gap = (a0: number, a1: number, b0: number, b1: number) => Math.max(0, Math.max(a0, b0) - Math.min(a1, b1));
  // (two of the decoder's seeds side by side with a page gutter between them are two tables, or a table and a list,
  // of two page columns: lines of no table near them lie on both sides of a place in the gap and none crosses it
  // there, as prose above and below a table crosses the gaps between its cells; a page that is only a table has no
  // such lines. Not a grid's: a grid found across both page columns, as rows of their level lines, is turned away
  // whole by its gutter below, where its halves would each join a table beside them: mc-mnras-p3's caption.)
  const inGrid = new Set(gridded);
  const loose = lines.map((_, i) => i).filter((i) => !decoded.has(i) && !inGrid.has(i) && pieces(lines[i]!.markdown).length);
  const gutterBetween = (a: Extent, b: Extent) => {
    const [l, r] = a.xMax <= b.xMin ? [a, b] : b.xMax <= a.xMin ? [b, a] : [undefined, undefined];
    if (!l || !r) return false;
    const y0 = Math.min(a.yMin, b.yMin) - GUTTER_WINDOW * h,
      y1 = Math.max(a.yMax, b.yMax) + GUTTER_WINDOW * h;
    const near = loose.filter((i) => boxes[i]!.yMax > y0 && boxes[i]!.yMin < y1);
    const spans = near.map((i) => core(boxes[i]!));
    // (prose on both sides, two lines of sentence length at least: a table's rows the decoder wrote as text stand
    // in columns too, of cells shorter than sentences on one side at least)
    const prose = (side: number[]) => side.filter((i) => pieces(lines[i]!.markdown).join(" ").length >= PROSE_LENGTH).length >= 2;
    for (let x = Math.ceil(l.xMax); x <= r.xMin; x += 2)
      if (
        !spans.some(([x0, x1]) => x0 < x && x1 > x) &&
        prose(near.filter((_, k) => spans[k]![1] <= x)) &&
        prose(near.filter((_, k) => spans[k]![0] >= x))
      )
        return true;
    return false;
  };
  const link = (seeds: readonly number[], gutters: boolean): number[][] => {
    const parent = seeds.map((_, k) => k);
    const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k]!)));
    seeds.forEach((s, k) => {
      for (let m = 0; m < k; m++) {
        const a = boxes[s]!,
          b = boxes[seeds[m]!]!;
        if (
          gap(a.yMin, a.yMax, b.yMin, b.yMax) <= SEED_GAP * h &&
          gap(a.xMin, a.xMax, b.xMin, b.xMax) <= SEED_REACH * h &&
          find(k) !== find(m) &&
          !(gutters && gutterBetween(a, b))
        )
          parent[find(k)] = find(m);
      }
    });
    const byRoot = new Map<number, number[]>();
    seeds.forEach((s, k) => byRoot.set(find(k), [...(byRoot.get(find(k)) ?? []), s]));
    return [...byRoot.values()];
  };
  // a grid within a table's width, close above or below it or over it, goes on with the decoder's table (rows it
  // wrote as text after closing the table); one that runs on beyond its width (the page column beside) stays a
  // grid of its own, under the stricter checks. The decoder's tables come first: their lines are taken before a
  // grid is looked for.
  const tableClusters = link(
    [...decoded].sort((x, y) => x - y),
    true,
  );
  let grids = link(gridded, false);
  for (const t of tableClusters) {
    for (let grown = true; grown; ) {
      grown = false;
      const e = extentOf(t, boxes);
      for (const g of grids) {
        const f = extentOf(g, boxes);
        if (f.xMin >= e.xMin - h && f.xMax <= e.xMax + h && gap(f.yMin, f.yMax, e.yMin, e.yMax) <= SEED_GAP * h) {
          t.push(...g.filter((i) => !t.includes(i)));
          grids = grids.filter((x) => x !== g);
          grown = true;
          break;
        }
      }
    }
  }
  // …except a grid that holds all of a decoder's table (the decoder wrote a few of the grid's rows as a table): it
  // is tried first, and the decoder's table only if the grid is turned away
  const holds = (g: readonly number[]) => tableClusters.some((t) => t.every((i) => g.includes(i)));
  const clusters = [
    ...grids.filter(holds).map((members) => ({ members, grid: true })),
    ...tableClusters.map((members) => ({ members, grid: false })),
    ...grids.filter((g) => !holds(g)).map((members) => ({ members, grid: true })),
  ];
  const taken = new Set<number>();
  const tables: { members: number[]; html: Map<number, string> }[] = [];
  for (const { members: cluster, grid: gridOnly } of clusters) {
    const { xMin, xMax } = extentOf(cluster, boxes);
    const inside = (i: number) => {
      const b = boxes[i]!;
      const overlap = Math.min(b.xMax, xMax + h) - Math.max(b.xMin, xMin - h);
      return overlap >= INSIDE * (b.xMax - b.xMin);
    };
    const candidates = lines.map((_, i) => i).filter((i) => !taken.has(i) && inside(i));
    // (rows whose cells wrap, read from the table's rules)
    const wrapped = new Set<number[]>();
    const rows = rowsOf(candidates, boxes, rules, wrapped);
    const seedRows = rows.map((r, k) => (r.some((i) => cluster.includes(i)) ? k : -1)).filter((k) => k >= 0);
    // (every seed already in an earlier table)
    if (!seedRows.length) continue;
    let first = seedRows[0]!,
      last = seedRows[seedRows.length - 1]!;
    // grown by rows of two cells or more right above or below, while rows the decoder put in a table stay the
    // majority (two page columns set on one leading are rows of two too, all the way down the page)
    const seeded = (a: number, b: number) => seedRows.filter((k) => k >= a && k <= b).length;
    const up = () => first > 0 && rows[first - 1]!.length >= 2 && top(rows[first]!, boxes) - bottom(rows[first - 1]!, boxes) <= ROW_GAP * h;
    const down = () =>
      last < rows.length - 1 && rows[last + 1]!.length >= 2 && top(rows[last + 1]!, boxes) - bottom(rows[last]!, boxes) <= ROW_GAP * h;
    // A ruled table grows by every band between its rules next to it, however few of its rows the decoder put in
    // the table (it may open the table rows late: its rules, not its seeds, say where it ends), once the decoder
    // wrote two of its bands as rows (one band written as a table is as often a description's lines misread as
    // cells: mt-luamaths-p2, 91 -> 121 errors when one was enough).
    const ruled = seedRows.filter((k) => wrapped.has(rows[k]!)).length >= RULED_SEEDS;
    const grows = (k: number) => seeded(first, last) >= SEEDED * (last - first + 2) || (ruled && wrapped.has(rows[k]!));
    // (a grid is all the rows its run holds)
    while (!gridOnly) {
      if (down() && grows(last + 1)) last++;
      else if (up() && grows(first - 1)) first--;
      else break;
    }
    // the decoder's table has cells side by side somewhere (a column of single cells is a list or code)
    const wide = seedRows.some(
      (k) =>
        rows[k]!.filter((i) => cluster.includes(i)).length >= 2 ||
        cluster.some((i) => rows[k]!.includes(i) && pieces(lines[i]!.markdown).length >= 2),
    );
    if (!wide) continue;
    const region = rows.slice(first, last + 1).map((r) => [...r]);
    // row labels the decoder left out of its table: lines level with the rows, beside the table on the left, one
    // on most rows, and few lines there between the rows (a page column of prose beside the table has them)
    const yTop = top(region[0]!, boxes),
      yBottom = bottom(region[region.length - 1]!, boxes);
    // (a table whose rules run through its rows ends where they end: lines left of them are a page column beside
    // it, level with its rows when both are set on one leading)
    const frame = rules.filter((r) => r.yMax > yTop - h && r.yMin < yBottom + h && r.xMax > xMin && r.xMin < xMax);
    const ruledFrom = frame.length >= 2 ? Math.min(...frame.map((r) => r.xMin)) : -Infinity;
    const labels = lines
      .map((_, i) => i)
      .filter(
        (i) =>
          !taken.has(i) &&
          !candidates.includes(i) &&
          boxes[i]!.xMax <= xMin + h &&
          boxes[i]!.xMin >= ruledFrom - h &&
          boxes[i]!.yMin >= yTop - h &&
          boxes[i]!.yMax <= yBottom + h,
      );
    const labelled = region.map((r) => labels.filter((i) => level(boxes[i]!, boxes[r[0]!]!)));
    const used = labelled.flat();
    if (
      new Set(used).size === used.length &&
      labelled.filter((l) => l.length === 1).length >= LABELLED * region.length &&
      labels.length - used.length <= 0.5 * used.length
    )
      region.forEach((r, k) => r.unshift(...labelled[k]!));
    const members = region.flat();
    // a line beside the region that reaches into the table's width (prose running through it) leaves the table
    // to the decoder
    const yMin = top(region[0]!, boxes),
      yMax = bottom(region[region.length - 1]!, boxes);
    const through = lines.some(
      (_, i) =>
        !members.includes(i) &&
        boxes[i]!.xMax > xMin &&
        boxes[i]!.xMin < xMax &&
        Math.min(boxes[i]!.yMax, yMax) - Math.max(boxes[i]!.yMin, yMin) > 0.5 * (boxes[i]!.yMax - boxes[i]!.yMin),
    );
    if (through) continue;
    const seps = separators(region, boxes);
    const cols = seps.length + 1;
    if (region.length < 2 || cols < 2) continue;
    // a grid the boxes alone found is no table when one of its separators is a page gutter: the page's other
    // lines over the grid's width lie on both sides of it and none crosses it (an index, a cheat sheet, a list set
    // in page columns); a table's caption and the prose around it cross its columns, and a page that is only the
    // table has no other lines. (Crossing is by a line height on both sides: a left column's running header, set
    // smaller and wider than its lines, ends a few pixels past the gutter's middle.)
    if (gridOnly) {
      const others = lines
        .map((_, i) => i)
        .filter((i) => !members.includes(i) && pieces(lines[i]!.markdown).length && boxes[i]!.xMax > xMin && boxes[i]!.xMin < xMax);
      const gutter = (at: number) =>
        others.some((i) => boxes[i]!.xMax < at) &&
        others.some((i) => boxes[i]!.xMin > at) &&
        !others.some((i) => core(boxes[i]!)[0] < at - h && core(boxes[i]!)[1] > at + h);
      if (seps.some(gutter)) continue;
      // nor when it has two columns (a listing and its comments, two page columns), or columns of one width (page
      // columns of a list; a table's label column is wider than its figures)
      const spread = extentOf(members, boxes);
      const bounds = [spread.xMin, ...seps, spread.xMax];
      const widths = bounds.slice(1).map((b, c) => b - bounds[c]!);
      const alone = cols === 2 && region.length >= PAIR_ROWS && wholeImage(members, lines, boxes, pageWidth);
      if ((cols < 3 && !alone) || Math.max(...widths) <= EVEN_COLUMNS * Math.min(...widths)) continue;
    }
    const grid: Slot[][] = region.map(() => Array.from({ length: cols }, () => ({ text: [], owners: [], span: 1 })));
    region.forEach((row, r) => {
      for (const i of row) {
        const [a, b] = core(boxes[i]!);
        const c0 = columnAt(a, seps),
          c1 = Math.max(c0, columnAt(b, seps));
        const parts = pieces(lines[i]!.markdown);
        if (!parts.length) continue;
        if (parts.length === 1) {
          const slot = grid[r]![c0]!;
          slot.text.push(parts[0]!);
          slot.owners.push(i);
          slot.span = Math.max(slot.span, c1 - c0 + 1);
          continue;
        }
        // the decoder's own cells, one per column the box covers; what is left over joins the last
        parts.forEach((p, k) => {
          const slot = grid[r]![Math.min(c0 + k, c1)]!;
          slot.text.push(p);
          slot.owners.push(i);
        });
      }
    });
    // each column separator must part cells of a table, not page columns: on the side with fewer lines, most are
    // level with a line of the other side (a figure's labels beside a column of prose are not)
    // (lines of one row whose cells wrap count as level)
    const rowOf = new Map<number, number>();
    region.forEach((r, k) => {
      if (wrapped.has(rows[first + k]!)) for (const i of r) rowOf.set(i, k);
    });
    const beside = (f: number, m: number) => level(boxes[f]!, boxes[m]!) || (rowOf.has(f) && rowOf.get(f) === rowOf.get(m));
    const pageColumns = seps.some((at) => {
      const left = members.filter((i) => (boxes[i]!.xMin + boxes[i]!.xMax) / 2 < at);
      const right = members.filter((i) => (boxes[i]!.xMin + boxes[i]!.xMax) / 2 >= at);
      const [fewer, more] = left.length <= right.length ? [left, right] : [right, left];
      return fewer.filter((f) => more.some((m) => beside(f, m))).length < LEVEL_SHARE * fewer.length;
    });
    if (pageColumns) continue;
    // nor are columns of prose (two page columns set on one leading are level row by row): lines of sentence
    // length filling their column, in two columns (one may be a table's wrapped row labels)
    const edges = [Math.min(...members.map((i) => core(boxes[i]!)[0])), ...seps, Math.max(...members.map((i) => core(boxes[i]!)[1]))];
    const prose = Array.from({ length: cols }, (_, c) => {
      const only = members.filter((i) => {
        const [a, b] = core(boxes[i]!);
        return columnAt(a, seps) === c && columnAt(b, seps) === c;
      });
      if (only.length < PROSE_LINES) return false;
      const length = median(only.map((i) => pieces(lines[i]!.markdown).join(" ").length));
      const fill = median(only.map((i) => (core(boxes[i]!)[1] - core(boxes[i]!)[0]) / (edges[c + 1]! - edges[c]!)));
      return length >= PROSE_LENGTH && fill >= PROSE_FILL;
    });
    if (prose.filter((p) => p).length >= Math.min(2, cols)) continue;
    // nor is a listing's line numbers beside its code: a first column counting up by one, most rows
    const numbers = grid.map((row) => (/^\d{1,5}$/.test(row[0]!.text.join(" ")) ? Number(row[0]!.text.join(" ")) : undefined));
    const counting = numbers.filter((n, k) => n !== undefined && k > 0 && numbers[k - 1] === n - 1).length;
    if (counting >= LISTING * (grid.length - 1)) continue;
    // nor is an index or a table of contents set in page columns: entries and their page numbers, column after
    // column (text, numbers, text, numbers)
    const numeric = (c: number) => {
      const held = grid.map((row) => row[c]!.text.join(" ")).filter((t) => t);
      return held.filter((t) => PAGE_REFERENCES.test(t)).length > 0.5 * held.length;
    };
    const kinds = Array.from({ length: cols }, (_, c) => numeric(c));
    if (cols >= 4 && cols % 2 === 0 && kinds.every((n, c) => n === (c % 2 === 1))) continue;
    // a sparse grid is no table (a screenshot's widgets, a figure's labels): left to the decoder
    const filled = grid.flat().filter((slot) => slot.text.length).length;
    // (a grid the boxes alone found may be sparse, a table's values set on some rows only, when every row holds
    // two cells or more and most cells right of the first column are numbers, many of them measurements)
    const sparse =
      grid.every((row) => row.filter((slot) => slot.text.length).length >= 2) &&
      measured(
        grid.flatMap((row) =>
          row
            .slice(1)
            .filter((slot) => slot.text.length)
            .map((slot) => slot.text.join(" ")),
        ),
      );
    if (filled < (gridOnly && !sparse ? GRID_FILLED : FILLED) * grid.flat().length) continue;
    // a row of figures under the table detected as one line (a total row set close: "114 156 270") is parted into
    // the columns its numbers sit over
    const below = rows[last + 1];
    const total = below && numbersRow(below, lines, boxes, seps);
    if (total && top(below, boxes) - bottom(region[region.length - 1]!, boxes) <= ROW_GAP * h) {
      grid.push(
        Array.from({ length: cols }, (_, c) => {
          const cell = total.get(c);
          return { text: cell ? [cell[0]] : [], owners: cell ? [cell[1]] : [], span: 1 };
        }),
      );
      region.push([...below]);
      members.push(...below);
    }
    // HTML in row order, each piece owned by the line whose text it holds (tags go with the line before them)
    const html = new Map<number, string>();
    const order: number[] = [];
    let owner = -1;
    const emit = (s: string, by?: number) => {
      if (by !== undefined) owner = by;
      if (owner < 0) owner = by ?? region[0]![0]!;
      if (!html.has(owner)) order.push(owner);
      html.set(owner, (html.get(owner) ?? "") + s);
    };
    const firstOwner = grid.flat().find((s) => s.owners.length)?.owners[0] ?? region[0]![0]!;
    emit("\n\n<table>", firstOwner);
    grid.forEach((row) => {
      emit("<tr>");
      for (let c = 0; c < cols; ) {
        const slot = row[c]!;
        // a cell spans the columns its box covers, up to the next cell with text of its own
        let span = 1;
        while (span < slot.span && c + span < cols && !row[c + span]!.text.length) span++;
        emit(span > 1 ? `<td colspan="${span}">` : "<td>");
        slot.text.forEach((t, k) => emit((k ? " " : "") + t, slot.owners[k]));
        emit("</td>");
        c += span;
      }
      emit("</tr>");
    });
    emit("</table>\n\n");
    for (const i of members) taken.add(i);
    tables.push({ members: [...order, ...members.filter((i) => !order.includes(i))], html });
  }
  if (!tables.length) return [...lines];
  // the lines in reading order, each table's lines together where its first line was read
  const tableOf = new Map<number, (typeof tables)[number]>();
  for (const t of tables) for (const i of t.members) tableOf.set(i, t);
  const out: PageLine[] = [];
  const done = new Set<(typeof tables)[number]>();
  // a code fence the decoder left open before a table is closed there, and one its lines opened is opened after it
  let fenced = false;
  const fences = (markdown: string) => (markdown.match(/```/g)?.length ?? 0) % 2 === 1;
  lines.forEach((line, i) => {
    const t = tableOf.get(i);
    if (!t) {
      if (fences(line.markdown)) fenced = !fenced;
      return out.push(line);
    }
    if (done.has(t)) return;
    done.add(t);
    const after = t.members.reduce((open, m) => (fences(lines[m]!.markdown) ? !open : open), fenced);
    const parts = t.members.map((m) => ({ box: boxes[m]!, markdown: t.html.get(m) ?? "" }));
    if (fenced) parts[0]!.markdown = "\n```" + parts[0]!.markdown;
    // (only when a later line closes it: a fence the decoder opened on a table's line and never closed is dropped)
    const closedLater = lines.some((l, k) => k > i && !tableOf.has(k) && fences(l.markdown));
    if (after && closedLater) parts[parts.length - 1]!.markdown += "```\n";
    fenced = after && closedLater;
    out.push(...parts);
  });
  return out;
}
