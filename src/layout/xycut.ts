// Reading order by recursive XY-cut for the line-unit vision mode (text lines); the text engine reads blocks as pdftotext does (engines/text/order.ts).

/** Anything with an extent on the page (any unit, y down). */
export interface Extent {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

/** The box around some of the boxes (those at `indices`). */
export function extentOf(indices: readonly number[], boxes: readonly Extent[]): Extent {
  return {
    xMin: Math.min(...indices.map((i) => boxes[i]!.xMin)),
    xMax: Math.max(...indices.map((i) => boxes[i]!.xMax)),
    yMin: Math.min(...indices.map((i) => boxes[i]!.yMin)),
    yMax: Math.max(...indices.map((i) => boxes[i]!.yMax)),
  };
}

/** The middle value (the upper of the two middle ones), 0 for none: line heights, pitches, widths. */
export function median(values: readonly number[]): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * A vertical cut (between columns) wins only when its band is this many times wider than the best
 * horizontal one: a running header's page number or a table's label column is not a page column.
 */
const GUTTER_OVER_GAP = 2;

/** Every empty band between extents along one axis, in order: cut position and width. */
function bands(items: readonly Extent[], axis: "x" | "y"): { at: number; gap: number }[] {
  const spans = items.map((b) => (axis === "x" ? [b.xMin, b.xMax] : [b.yMin, b.yMax]) as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: { at: number; gap: number }[] = [];
  let reach = spans[0]![1];
  for (let i = 1; i < spans.length; i++) {
    const [start, end] = spans[i]!;
    if (start > reach) out.push({ at: (start + reach) / 2, gap: start - reach });
    reach = Math.max(reach, end);
  }
  return out;
}

/** Largest empty band along one axis (the first of equal ones). */
function widestGap(items: readonly Extent[], axis: "x" | "y"): { at: number; gap: number } | undefined {
  return bands(items, axis).reduce<{ at: number; gap: number } | undefined>(
    (best, band) => (!best || band.gap > best.gap ? band : best),
    undefined,
  );
}

/** Vertical middle of an item. */
function middle(b: Extent): number {
  return (b.yMin + b.yMax) / 2;
}

/**
 * Full-width lines above and below page columns (a running header, a page number set in the gutter) hide the
 * gutter from the whole page, and cutting at the widest band instead would slice the columns into sections
 * read across (a short right column read between two parts of the left one). When peeling off what lies above
 * the topmost band and/or below the bottommost one leaves items with a gutter, and what is peeled reaches into
 * that gutter, the cuts are taken there: header, columns, footer.
 */
function peelToColumns<T extends Extent>(items: readonly T[], body: number): T[][] | undefined {
  const ys = bands(items, "y");
  if (ys.length === 0) return undefined;
  const first = ys[0]!.at,
    last = ys[ys.length - 1]!.at;
  for (const [top, bottom] of [
    [first, last],
    [first, Infinity],
    [-Infinity, last],
  ] as const) {
    if (top >= bottom) continue;
    const inner = items.filter((b) => middle(b) > top && middle(b) < bottom);
    if (inner.length < 2) continue;
    const v = widestGap(inner, "x");
    if (!v || v.gap < body) continue;
    const [left, right] = sides(inner, "x", v.at);
    if (tableLike(left, right, v.gap, 2 * body)) continue;
    // a peeled part must be what hid the gutter (an item reaching into it), not the end of one column
    const blocks = (part: T[]) => part.some((b) => b.xMax > v.at - v.gap / 2 && b.xMin < v.at + v.gap / 2);
    const above = items.filter((b) => middle(b) <= top),
      below = items.filter((b) => middle(b) >= bottom);
    if ((above.length && !blocks(above)) || (below.length && !blocks(below))) continue;
    return [above, inner, below].filter((part) => part.length > 0);
  }
  return undefined;
}

/** Share of `items` that sit on the same row as some item of `others`. */
function rowShare(items: readonly Extent[], others: readonly Extent[]): number {
  let shared = 0;
  for (const a of items) if (others.some((b) => onRow(a, b))) shared++;
  return items.length ? shared / items.length : 0;
}

function span(items: readonly Extent[]): number {
  return Math.max(...items.map((b) => b.xMax)) - Math.min(...items.map((b) => b.xMin)) || 1;
}

/** Median share of its side's width that an item spans: prose columns are near 1, table cells ragged. */
function fill(items: readonly Extent[]): number {
  const width = span(items);
  const shares = items.map((b) => (b.xMax - b.xMin) / width).sort((a, b) => a - b);
  return shares[Math.floor(shares.length / 2)]!;
}

/**
 * Row alignment nearly every item shares with the other side. Of the side with more items only those beside
 * the other side count: the detector never finds a lone "-" or digit, so a column of such cells loses items
 * and leaves its neighbour's last rows, or a heading above, unmatched; but no more than TABLE_OUTSIDE times
 * as many items may lie above and below as beside (a small table set beside a long column is not one table
 * with it). Below TABLE_FILL both sides read as ragged cells (a side holding two page columns is ragged too,
 * so one ragged side is not enough); a band wider than TABLE_GAP of the narrower side separates cells, not
 * page columns (a gutter is a small fraction of a column).
 */
const TABLE_ROW_SHARE = 0.8;
const TABLE_OUTSIDE = 2;
const TABLE_FILL = 0.75;
const TABLE_GAP = 0.5;
/** A side narrower than this many line heights (some 15 characters) holds cells, not a page column of prose. */
const NARROW_COLUMN = 6;

/**
 * Two sides of a vertical band read as a table, row by row, rather than as page columns: at least two
 * rows, nearly every item on either side level with one on the other (on the longer side, every item beside
 * the shorter one), and either both sides made of short cells rather than lines that fill them, or a band
 * wide against the narrower side, or a side too narrow for prose (a table's last column, whose two cells fill
 * it) — running text in two columns set on the same leading is aligned too, so alignment alone would
 * interleave them. `line`: the page's line height.
 */
export function tableLike(left: readonly Extent[], right: readonly Extent[], gap: number, line: number): boolean {
  if (left.length < 2 || right.length < 2) return false;
  const [fewer, more] = left.length <= right.length ? [left, right] : [right, left];
  const top = Math.min(...fewer.map((b) => b.yMin)),
    bottom = Math.max(...fewer.map((b) => b.yMax));
  const beside = more.filter((b) => middle(b) >= top && middle(b) <= bottom);
  if (beside.length < 2 || more.length - beside.length > TABLE_OUTSIDE * beside.length) return false;
  if (rowShare(fewer, more) < TABLE_ROW_SHARE || rowShare(beside, fewer) < TABLE_ROW_SHARE) return false;
  const narrow = Math.min(span(left), span(right));
  return Math.max(fill(left), fill(right)) < TABLE_FILL || gap > TABLE_GAP * narrow || narrow < NARROW_COLUMN * line;
}

/**
 * On one row: middles within a quarter of the shorter height (cells of a row share a baseline; lines of two
 * page columns set on the same leading drift apart at every paragraph, while their dilated boxes overlap anyway).
 */
function onRow(a: Extent, b: Extent): boolean {
  return Math.abs(a.yMin + a.yMax - b.yMin - b.yMax) / 2 <= 0.25 * Math.min(a.yMax - a.yMin, b.yMax - b.yMin);
}

/** Level with each other: a y overlap of at least half the shorter height. */
export function level(a: Extent, b: Extent): boolean {
  return Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin) >= 0.5 * Math.min(a.yMax - a.yMin, b.yMax - b.yMin);
}

/**
 * A table whose rows leave no empty band between them (tight leading, dilated boxes): rows are runs of
 * items level with the row's first item, top to bottom, each read left to right. A cell wrapped over two lines
 * beside one-line cells set level with its middle (a description beside a command and its syntax) joins two such
 * rows into one, read cell by cell, each cell's lines top to bottom.
 */
function byRows<T extends Extent>(items: readonly T[]): T[] {
  const rows: T[][] = [];
  for (const item of [...items].sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin)) {
    const row = rows[rows.length - 1];
    if (row && level(row[0]!, item)) row.push(item);
    else rows.push([item]);
  }
  const joined = new Set<T[]>();
  for (let k = rows.length - 1; k > 0; k--) {
    const above = rows[k - 1]!,
      below = rows[k]!;
    const both = [...above, ...below];
    if (below.some((b) => wrappedCell(above, b, both))) {
      rows.splice(k - 1, 2, both);
      joined.add(both);
    }
  }
  return rows.flatMap((row) => {
    if (!joined.has(row)) return row.sort((a, b) => a.xMin - b.xMin);
    const cells: T[][] = [];
    for (const item of [...row].sort((a, b) => a.xMin - b.xMin)) {
      const cell = cells.find((c) => c.some((o) => overlapX(o, item) > 0));
      if (cell) cell.push(item);
      else cells.push([item]);
    }
    return cells.flatMap((cell) => cell.sort((a, b) => a.yMin - b.yMin));
  });
}

/** How far two extents overlap along x (negative: the gap between them). */
export const overlapX = (a: Extent, b: Extent) => Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);

/** Whether the middle of `b` lies inside `p` (not on its edge). */
export function middleInside(b: Extent, p: Extent): boolean {
  const x = (b.xMin + b.xMax) / 2,
    y = (b.yMin + b.yMax) / 2;
  return x > p.xMin && x < p.xMax && y > p.yMin && y < p.yMax;
}

/** The area two extents share (0 where they do not overlap). */
export const overlapArea = (a: Extent, b: Extent) =>
  Math.max(0, overlapX(a, b)) * Math.max(0, Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin));

/**
 * `below` is the second line of a cell whose first line is in `above` (it sits under one there, in its column),
 * and a line alone in another column among `row` sits level with the cell's middle: between the two lines'
 * middles, a quarter of a line from each (a regular table's next row sits level with the second line itself).
 */
function wrappedCell(above: readonly Extent[], below: Extent, row: readonly Extent[]): boolean {
  return above.some((a) => {
    if (a === below || overlapX(a, below) <= 0 || middle(a) >= middle(below)) return false;
    const q = 0.25 * Math.min(a.yMax - a.yMin, below.yMax - below.yMin);
    // (a one-line cell is alone in its column there: a line of a page column beside has lines above and below it)
    return row.some(
      (c) =>
        c !== a &&
        c !== below &&
        !row.some((o) => o !== c && overlapX(o, c) > 0) &&
        middle(c) > middle(a) + q &&
        middle(c) < middle(below) - q,
    );
  });
}

/** Items whose middle lies before `at` along the axis, and the rest. */
function sides<T extends Extent>(items: readonly T[], axis: "x" | "y", at: number): [T[], T[]] {
  const before = (b: T) => (axis === "x" ? b.xMin + b.xMax : b.yMin + b.yMax) / 2 < at;
  return [items.filter(before), items.filter((b) => !before(b))];
}

/**
 * The band at `at` (y) only ends one of the two sides of a gutter: one side has items above and below it,
 * the other only on one side of it, so cutting there would split a page column (a short right column
 * beside a long left one) rather than separate full-width sections.
 */
function endsOneColumn(left: readonly Extent[], right: readonly Extent[], at: number): boolean {
  const through = (side: readonly Extent[]) => sides(side, "y", at).every((part) => part.length > 0);
  return through(left) !== through(right);
}

/**
 * Page columns of prose: a band across both sides of a clean gutter, narrower than PROSE_BAND line heights, is where
 * paragraphs, a heading's space or a float's happen to end level in both columns, not a section break, when the
 * columns' prose runs through it: PROSE_LINES lines that fill PROSE_FILL of their side's width above it on both
 * sides, and below it on at least one. A grid of centred author blocks over two columns of text fills little of its
 * width, and so do a form's questions and answer boxes under two columns of text.
 */
const PROSE_BAND = 2;
const PROSE_LINES = 2;
const PROSE_FILL = 0.8;

function proseColumns(left: readonly Extent[], right: readonly Extent[], at: number, band: number, line: number): boolean {
  if (band >= PROSE_BAND * line) return false;
  const full = (side: readonly Extent[]) => {
    const width = span(side);
    const lines = side.filter((b) => b.xMax - b.xMin >= PROSE_FILL * width);
    const above = lines.filter((b) => middle(b) < at).length;
    return { above: above >= PROSE_LINES, below: lines.length - above >= PROSE_LINES };
  };
  const l = full(left),
    r = full(right);
  return l.above && r.above && (l.below || r.below);
}

/**
 * Soft gutters. A detected box is grown around its text by about 0.3 of its height on every side, so the box-level
 * gutter of a LaTeX two-column paper (10 pt) or a magazine's three columns is a few pixels wide or closed outright
 * (a line end drawn into the gutter, a hyphen detected on its own, two lines of neighbouring columns detected as
 * one box). A soft gutter is found on the boxes' cores instead: an x position that at most SOFT_CROSSERS of the
 * lines on the shorter side cross, with at least SOFT_PROSE prose lines (SOFT_PROSE_WIDTH line heights wide) on
 * either side, the two sides side by side over most of their height.
 */
const SOFT_CROSSERS = 0.25;
/** Boxes that are two lines of neighbouring columns read as one are a minority of the lines beside them. */
const SOFT_MERGED = 0.5;
const SOFT_PROSE = 4;
const SOFT_PROSE_WIDTH = 4;
/** A box reaching this many line heights past the gutter on both sides is a line of each column, or a full-width line. */
const SOFT_SPAN = 2;
/** …a line of each column (two lines detected as one) when a column has a line within this many line heights of it. */
const SOFT_NEIGHBOUR = 1.6;
/** Below a soft gutter a horizontal band cuts first only when it is this many line heights high (a section break). */
const SOFT_BAND = 1;

/** At most this many items above the topmost band or below the bottommost one are peeled off soft columns, and the
 * band is at least this many line heights high (a running head stands apart; names set on their author blocks do not). */
const SOFT_PEEL = 3;
const SOFT_PEEL_BAND = 0.5;

/**
 * A running header above soft columns and a page number below them (see peelToColumns for gutters the boxes
 * leave open): the few items above the topmost band and/or below the bottommost one are read before and after
 * the rest when what remains has a soft gutter.
 */
function peelToSoftColumns<T extends Extent>(items: readonly T[], line: number): T[][] | undefined {
  const ys = bands(items, "y");
  if (ys.length === 0) return undefined;
  const wide = (band: { gap: number }) => band.gap >= SOFT_PEEL_BAND * line;
  const first = wide(ys[0]!) ? ys[0]!.at : -Infinity,
    last = wide(ys[ys.length - 1]!) ? ys[ys.length - 1]!.at : Infinity;
  for (const [top, bottom] of [
    [first, last],
    [first, Infinity],
    [-Infinity, last],
  ] as const) {
    if (top >= bottom || (top === -Infinity && bottom === Infinity)) continue;
    const above = items.filter((b) => middle(b) <= top),
      below = items.filter((b) => middle(b) >= bottom);
    if (above.length > SOFT_PEEL || below.length > SOFT_PEEL) continue;
    const inner = items.filter((b) => middle(b) > top && middle(b) < bottom);
    if (!softGutter(inner, line)) continue;
    return [above, inner, below].filter((part) => part.length > 0);
  }
  return undefined;
}

/** The part of a box that holds text: the box less the detector's growth (0.3 of its height, at most a quarter of its width). */
export function core(b: Extent): [number, number] {
  const s = Math.min(0.3 * (b.yMax - b.yMin), 0.25 * (b.xMax - b.xMin));
  return [b.xMin + s, b.xMax - s];
}

/** How many of the items' cores cover each x from x0 (index 0) to x0 + width: where gutters and table columns show. */
export function coreCoverage(items: readonly Extent[], x0: number, width: number): Int32Array {
  const profile = new Int32Array(width + 1);
  for (const b of items) {
    const [a, c] = core(b);
    if (c <= a) continue;
    profile[Math.max(0, Math.floor(a) - x0)]! += 1;
    profile[Math.min(width, Math.ceil(c) - x0)]! -= 1;
  }
  for (let x = 1; x <= width; x++) profile[x]! += profile[x - 1]!;
  return profile;
}

interface SoftGutter<T> {
  at: number;
  left: T[];
  right: T[];
}

/**
 * The soft gutter of `items` (see SOFT_CROSSERS), with the items on either side: a line crossing it is put on the
 * side of its middle, except a box reaching SOFT_SPAN line heights into both sides, which is split at the gutter
 * when both columns have a line next to it (two lines read as one) and otherwise (a full-width title or abstract
 * above the columns) means the items are not side-by-side columns: no gutter.
 */
export function softGutter<T extends Extent>(items: readonly T[], line: number): SoftGutter<T> | undefined {
  if (items.length < 2 * SOFT_PROSE) return undefined;
  const x0 = Math.floor(Math.min(...items.map((b) => b.xMin))),
    x1 = Math.ceil(Math.max(...items.map((b) => b.xMax)));
  const width = x1 - x0 + 1;
  if (width < 4 * line) return undefined;
  const profile = coreCoverage(items, x0, width);
  // runs of the profile's local minima that lie between text on both sides
  let best: { at: number; count: number; left: T[]; right: T[]; crossers: T[] } | undefined;
  let x = Math.ceil(2 * line);
  while (x < width - 2 * line) {
    // a run of equal, locally lowest coverage
    let end = x;
    while (end + 1 < width && profile[end + 1] === profile[x]) end++;
    const before = profile[x - 1]!,
      after = profile[end + 1]!;
    if (before > profile[x]! && after > profile[x]!) {
      const at = x0 + (x + end + 1) / 2;
      const candidate = sidesOfGutter(items, at, line);
      if (candidate && (!best || profile[x]! < best.count)) best = { ...candidate, at, count: profile[x]! };
    }
    x = end + 1;
  }
  if (!best) return undefined;
  return { at: best.at, left: best.left, right: best.right };
}

function sidesOfGutter<T extends Extent>(
  items: readonly T[],
  at: number,
  line: number,
): { left: T[]; right: T[]; crossers: T[] } | undefined {
  const left: T[] = [],
    right: T[] = [],
    crossers: T[] = [],
    spanning: T[] = [];
  for (const b of items) {
    const [a, c] = core(b);
    if (c <= at) left.push(b);
    else if (a >= at) right.push(b);
    else if (at - a >= SOFT_SPAN * line && c - at >= SOFT_SPAN * line) spanning.push(b);
    else crossers.push(b);
  }
  const prose = (side: T[]) => side.filter((b) => b.xMax - b.xMin >= SOFT_PROSE_WIDTH * line).length;
  if (prose(left) < SOFT_PROSE || prose(right) < SOFT_PROSE) return undefined;
  const fewer = Math.min(left.length, right.length);
  if (crossers.length > Math.max(2, SOFT_CROSSERS * fewer) || spanning.length > SOFT_MERGED * fewer) return undefined;
  // side by side: each side's vertical extent overlaps the other's over most of the shorter one
  const top = (s: T[]) => Math.min(...s.map((b) => b.yMin)),
    bottom = (s: T[]) => Math.max(...s.map((b) => b.yMax));
  const overlap = Math.min(bottom(left), bottom(right)) - Math.max(top(left), top(right));
  if (overlap < 0.5 * Math.min(bottom(left) - top(left), bottom(right) - top(right))) return undefined;
  // two lines read as one have a line of each column next to them, or run from the left column's left edge to the
  // right column's right edge with a line of one column next to them, or have such a box next to them (a run of
  // them at the columns' foot); a full-width title or abstract is set apart from the columns, or set narrower
  // (centred, indented) or wider
  const near = (side: readonly T[], b: T) => side.some((o) => o !== b && Math.abs(middle(o) - middle(b)) <= SOFT_NEIGHBOUR * line);
  const leftEdge = Math.min(...left.map((b) => b.xMin)),
    rightEdge = Math.max(...right.map((b) => b.xMax));
  const aligned = (b: T) => Math.abs(b.xMin - leftEdge) <= line && Math.abs(b.xMax - rightEdge) <= line;
  const merged = new Set(spanning.filter((b) => (near(left, b) && near(right, b)) || (aligned(b) && (near(left, b) || near(right, b)))));
  for (let grew = true; grew; ) {
    grew = false;
    for (const b of spanning) if (!merged.has(b) && near([...merged], b)) merged.add(b), (grew = true);
  }
  if (merged.size < spanning.length) return undefined; // a full-width line: not columns
  for (const b of crossers) ((b.xMin + b.xMax) / 2 < at ? left : right).push(b);
  for (const b of spanning) {
    left.push({ ...b, xMax: at });
    right.push({ ...b, xMin: at });
  }
  return { left, right, crossers };
}

/**
 * Items in reading order. The page is split at its widest empty band, top before bottom, left before
 * right; a vertical band (a gutter) must be at least `body` wide and either clearly wider than any
 * horizontal one or the horizontal band merely ends one column (see endsOneColumn), so page columns read
 * one after the other while a full-width title stays above the columns under it.
 * A band between the columns of a table (see tableLike) does not cut: its rows read in turn, cells left to right.
 * Items overlapping on both axes (dilated boxes) read row by row, left to right: a section number set a quad
 * apart from its title is detected as its own box, which the title's box overlaps. Where no gutter shows,
 * a header and footer are peeled off first when that reveals one (see peelToColumns). Columns whose gutter the
 * page's horizontal rules cross between a table's rows (`rules`, layout/rules.ts; see ruledBands) are read band by
 * band between the rules instead.
 */
export function xyCut<T extends Extent>(items: readonly T[], body: number, rules: readonly Extent[] = []): T[] {
  if (items.length <= 1) return [...items];
  const h = widestGap(items, "y");
  const v = widestGap(items, "x");
  const cut = (parts: T[][]): T[] => parts.flatMap((part) => xyCut(part, body, rules));
  const gutter = v !== undefined && v.gap >= body;
  // columns about to be read one after the other whose gutter rules cross, with items above and below them on
  // both sides: a ruled table whose cells wrap (their rows are not level lines, so tableLike missed it), read band
  // by band between the rules, each band a row of cells (cellsOfRow)
  const banded = (at: number, gap: number): T[] | undefined =>
    ruledBands(items, rules, at, gap)?.flatMap((band) => cellsOfRow(band, body, rules));
  if (gutter) {
    const [left, right] = sides(items, "x", v.at);
    if (!h || v.gap > GUTTER_OVER_GAP * h.gap || endsOneColumn(left, right, h.at) || proseColumns(left, right, h.at, h.gap, 2 * body)) {
      if (!tableLike(left, right, v.gap, 2 * body)) return banded(v.at, v.gap) ?? cut([left, right]);
      if (!h) return byRows(items);
    }
  }
  if (h && !gutter) {
    const parts = peelToColumns(items, body);
    if (parts && parts.length > 1) return cut(parts);
  }
  if (!gutter) {
    // columns whose gutter the boxes close: a running header and a page number above and below them first
    const peeled = peelToSoftColumns(items, 2 * body);
    if (peeled) return cut(peeled);
    // …then split there unless a band at least a line high runs across both
    const soft = softGutter(items, 2 * body);
    if (
      soft &&
      (!h || h.gap < SOFT_BAND * 2 * body || endsOneColumn(soft.left, soft.right, h.at)) &&
      !tableLike(soft.left, soft.right, 0, 2 * body)
    )
      return banded(soft.at, 0) ?? cut([soft.left, soft.right]);
  }
  if (h) return cut(sides(items, "y", h.at));
  return byRows(items);
}

/**
 * The items in the bands between the rules (horizontal, see layout/rules.ts) that cross the vertical gap of width
 * `gap` at `at`, top to bottom, where they are a table's rules between its rows: at least two of them, items above
 * and below them, and every band between two of them that holds items holds items of both sides (a cell on either
 * side of each row); undefined otherwise (a rule under a header or above a footer, a table beside prose).
 */
function ruledBands<T extends Extent>(items: readonly T[], rules: readonly Extent[], at: number, gap: number): T[][] | undefined {
  const across = rules.filter((r) => r.xMin <= at - gap / 2 && r.xMax >= at + gap / 2);
  if (across.length < 2) return undefined;
  const centre = (b: Extent) => (b.xMin + b.xMax) / 2;
  const bands = bandsBetween(items, across);
  // (the bands between the rules: all but the first, above the first rule, and the last, below the last; none
  // between the two lines of a double rule)
  const inner = bands.slice(1, -1).filter((band) => band.length > 0);
  const twoSided = (band: readonly Extent[]) => band.some((b) => centre(b) < at) && band.some((b) => centre(b) >= at);
  const held = bands.filter((band) => band.length > 0);
  return held.length >= 2 && inner.length >= 1 && inner.every(twoSided) ? held : undefined;
}

/**
 * The items of a band between a table's rules, one row of it: its cells left to right, split at the band's vertical
 * gutters (a description's three lines beside a command level with the second stay one cell), each cell as xyCut
 * reads it.
 */
function cellsOfRow<T extends Extent>(items: readonly T[], body: number, rules: readonly Extent[]): T[] {
  const v = widestGap(items, "x");
  if (items.length < 2 || v === undefined || v.gap < body) return xyCut(items, body, rules);
  const [left, right] = sides(items, "x", v.at);
  return [...cellsOfRow(left, body, rules), ...cellsOfRow(right, body, rules)];
}

/** The items in the bands between `rules` (sorted by y), top to bottom, each band's items by their middles, empty
 * bands included. */
function bandsBetween<T extends Extent>(items: readonly T[], rules: readonly Extent[]): T[][] {
  const edges = rules.map((r) => (r.yMin + r.yMax) / 2);
  const bands: T[][] = Array.from({ length: edges.length + 1 }, () => []);
  for (const b of items) {
    const y = middle(b);
    let k = 0;
    while (k < edges.length && y > edges[k]!) k++;
    bands[k]!.push(b);
  }
  return bands;
}
