// Reading order by recursive XY-cut for the line-unit vision mode (text lines); the text engine reads blocks as pdftotext does (app/text-order.ts).

/** Anything with an extent on the page (any unit, y down). */
export interface Extent {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
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
  return bands(items, axis).reduce<{ at: number; gap: number } | undefined>((best, band) => (!best || band.gap > best.gap ? band : best), undefined);
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
  const first = ys[0]!.at, last = ys[ys.length - 1]!.at;
  for (const [top, bottom] of [[first, last], [first, Infinity], [-Infinity, last]] as const) {
    if (top >= bottom) continue;
    const inner = items.filter((b) => middle(b) > top && middle(b) < bottom);
    if (inner.length < 2) continue;
    const v = widestGap(inner, "x");
    if (!v || v.gap < body) continue;
    const [left, right] = sides(inner, "x", v.at);
    if (tableLike(left, right, v.gap, 2 * body)) continue;
    // a peeled part must be what hid the gutter (an item reaching into it), not the end of one column
    const blocks = (part: T[]) => part.some((b) => b.xMax > v.at - v.gap / 2 && b.xMin < v.at + v.gap / 2);
    const above = items.filter((b) => middle(b) <= top), below = items.filter((b) => middle(b) >= bottom);
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
  const top = Math.min(...fewer.map((b) => b.yMin)), bottom = Math.max(...fewer.map((b) => b.yMax));
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
function level(a: Extent, b: Extent): boolean {
  return Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin) >= 0.5 * Math.min(a.yMax - a.yMin, b.yMax - b.yMin);
}

/**
 * A table whose rows leave no empty band between them (tight leading, dilated boxes): rows are runs of
 * items level with the row's first item, top to bottom, each read left to right.
 */
function byRows<T extends Extent>(items: readonly T[]): T[] {
  const rows: T[][] = [];
  for (const item of [...items].sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin)) {
    const row = rows[rows.length - 1];
    if (row && level(row[0]!, item)) row.push(item);
    else rows.push([item]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.xMin - b.xMin));
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
 * Items in reading order. The page is split at its widest empty band, top before bottom, left before
 * right; a vertical band (a gutter) must be at least `body` wide and either clearly wider than any
 * horizontal one or the horizontal band merely ends one column (see endsOneColumn), so page columns read
 * one after the other while a full-width title stays above the columns under it.
 * A band between the columns of a table (see tableLike) does not cut: its rows read in turn, cells left to right.
 * Items overlapping on both axes (dilated boxes) read row by row, left to right: a section number set a quad
 * apart from its title is detected as its own box, which the title's box overlaps. Where no gutter shows,
 * a header and footer are peeled off first when that reveals one (see peelToColumns).
 */
export function xyCut<T extends Extent>(items: readonly T[], body: number): T[] {
  if (items.length <= 1) return [...items];
  const h = widestGap(items, "y");
  const v = widestGap(items, "x");
  const cut = (parts: T[][]): T[] => parts.flatMap((part) => xyCut(part, body));
  const gutter = v !== undefined && v.gap >= body;
  if (gutter) {
    const [left, right] = sides(items, "x", v.at);
    if (!h || v.gap > GUTTER_OVER_GAP * h.gap || endsOneColumn(left, right, h.at)) {
      if (!tableLike(left, right, v.gap, 2 * body)) return cut([left, right]);
      if (!h) return byRows(items);
    }
  }
  if (h && !gutter) {
    const parts = peelToColumns(items, body);
    if (parts && parts.length > 1) return cut(parts);
  }
  if (h) return cut(sides(items, "y", h.at));
  return byRows(items);
}
