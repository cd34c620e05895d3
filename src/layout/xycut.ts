// Reading order by recursive XY-cut, shared by the text-layer engine (blocks) and the line-unit vision mode (text lines).

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

/** Largest empty band between extents along one axis: cut position and width. */
function widestGap(items: readonly Extent[], axis: "x" | "y"): { at: number; gap: number } | undefined {
  const spans = items.map((b) => (axis === "x" ? [b.xMin, b.xMax] : [b.yMin, b.yMax]) as [number, number]).sort((a, b) => a[0] - b[0]);
  let best: { at: number; gap: number } | undefined;
  let reach = spans[0]![1];
  for (let i = 1; i < spans.length; i++) {
    const [start, end] = spans[i]!;
    if (start > reach && (!best || start - reach > best.gap)) best = { at: (start + reach) / 2, gap: start - reach };
    reach = Math.max(reach, end);
  }
  return best;
}

/**
 * Items in reading order. The page is split at its widest empty band, top before bottom, left before
 * right; a vertical band (a gutter) must be at least `body` wide and clearly wider than any horizontal
 * one, so page columns read one after the other while a full-width title stays above the columns under it.
 * Items overlapping on both axes fall through to plain top-to-bottom order.
 */
export function xyCut<T extends Extent>(items: readonly T[], body: number): T[] {
  if (items.length <= 1) return [...items];
  const h = widestGap(items, "y");
  const v = widestGap(items, "x");
  if (v && v.gap >= body && (!h || v.gap > GUTTER_OVER_GAP * h.gap)) {
    return [...xyCut(items.filter((b) => (b.xMin + b.xMax) / 2 < v.at), body), ...xyCut(items.filter((b) => (b.xMin + b.xMax) / 2 >= v.at), body)];
  }
  if (h) {
    return [...xyCut(items.filter((b) => (b.yMin + b.yMax) / 2 < h.at), body), ...xyCut(items.filter((b) => (b.yMin + b.yMax) / 2 >= h.at), body)];
  }
  return [...items].sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin);
}
