// 8-connected runs of marked pixels in a w × h mask, shared by the line front end's mark finder (lines.ts), the
// link-frame eraser (link-borders.ts) and the dot-leader finder (leaders.ts); and such runs joined along their rows
// (the mark finder's marks, missed-text.ts's runs of glyphs).
import type { Extent } from "../layout/xycut.js";
import { luminance, type PagePixels } from "./preprocess.js";

/** Calls `visit` with each pixel index 8-adjacent to pixel p inside the w × h grid. */
export function forNeighbours(p: number, w: number, h: number, visit: (q: number) => void): void {
  const x = p % w,
    y = (p - x) / w;
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const nx = x + dx,
        ny = y + dy;
      if ((dx || dy) && nx >= 0 && ny >= 0 && nx < w && ny < h) visit(ny * w + nx);
    }
}

/** A run's pixels and its box, inclusive (x0 ≤ x ≤ x1, y0 ≤ y ≤ y1). */
export interface Component {
  members: number[];
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * Each 8-connected run of pixels marked 1 in `mask`, in the order of its first pixel; the pixels of a run visited
 * become 2. `members` is reused from run to run: copy it to keep it.
 */
export function forComponents(mask: Uint8Array, w: number, h: number, visit: (c: Component) => void): void {
  const stack: number[] = [];
  const c: Component = { members: [], x0: 0, x1: 0, y0: 0, y1: 0 };
  const push = (q: number) => {
    if (mask[q] === 1) {
      mask[q] = 2;
      stack.push(q);
    }
  };
  for (let start = 0; start < w * h; start++) {
    if (mask[start] !== 1) continue;
    c.members.length = 0;
    [c.x0, c.x1, c.y0, c.y1] = [w, -1, h, -1];
    push(start);
    while (stack.length) {
      const p = stack.pop()!;
      c.members.push(p);
      const x = p % w,
        y = (p - x) / w;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      forNeighbours(p, w, h, push);
    }
    visit(c);
  }
}

/** A run of dark pixels: its box in page pixels (exclusive ends) and how many pixels it holds. */
export interface DarkRun extends Extent {
  pixels: number;
}

/**
 * The 8-connected runs of pixels darker than `dark` (0–255 luminance) in the region [x0, x1) × [y0, y1) of an RGB
 * page, each as its box in the page's pixels; pixels marked in `skip` (a page-sized mask) are no ink.
 */
export function darkRuns(page: PagePixels, x0: number, x1: number, y0: number, y1: number, dark: number, skip?: Uint8Array): DarkRun[] {
  const w = x1 - x0,
    h = y1 - y0;
  if (w <= 0 || h <= 0) return [];
  const ink = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const p = (y0 + y) * page.width + x0 + x;
      if (skip?.[p]) continue;
      ink[y * w + x] = luminance(page.data, p * 3) < dark ? 1 : 0;
    }
  const out: DarkRun[] = [];
  forComponents(ink, w, h, ({ members, x0: ax, x1: bx, y0: ay, y1: by }) => {
    out.push({ xMin: x0 + ax, xMax: x0 + bx + 1, yMin: y0 + ay, yMax: y0 + by + 1, pixels: members.length });
  });
  return out;
}

/** A row of boxes joined left to right: the extent that holds them, and they. */
export interface RowGroup<B extends Extent> {
  extent: Extent;
  members: B[];
}

/** `boxes` joined along their rows, from the left: each joins the first group whose extent so far `joins` it with
 * (that extent then grows to hold it), else opens a group of its own. */
export function rowGroups<B extends Extent>(boxes: readonly B[], joins: (group: Extent, box: B) => boolean): RowGroup<B>[] {
  const groups: RowGroup<B>[] = [];
  for (const b of [...boxes].sort((x, y) => x.xMin - y.xMin)) {
    const g = groups.find((m) => joins(m.extent, b));
    if (g) {
      const e = g.extent;
      [e.xMin, e.xMax, e.yMin, e.yMax] = [
        Math.min(e.xMin, b.xMin),
        Math.max(e.xMax, b.xMax),
        Math.min(e.yMin, b.yMin),
        Math.max(e.yMax, b.yMax),
      ];
      g.members.push(b);
    } else groups.push({ extent: { xMin: b.xMin, xMax: b.xMax, yMin: b.yMin, yMax: b.yMax }, members: [b] });
  }
  return groups;
}
