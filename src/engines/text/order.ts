// Reading order of a page's text blocks, as pdftotext reads them: a topological sort by Breuel's two rules.
//
// T. M. Breuel, "High performance document layout analysis" (2003): block a comes before block b when
//   (1) they overlap horizontally and a is above b, or
//   (2) a lies wholly left of b and no block c sits between them, below a... (precisely: b is above c and
//       c is above a by rule 1: a spanning block under the right one and over the left one).
// Poppler's text extractor (behind `pdftotext`, the baseline this engine is measured against) reads blocks
// this way, after two refinements reproduced here: each block's box is widened sideways towards blocks
// further down (so a paragraph that ends short still overlaps the column under it), and grids of
// aligned blocks are recognised as tables, which then read row by row and sort against other text
// as one box.

/** A block's extent (points, y down) and the font size of its first word. */
export interface OrderBlock {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  fontSize: number;
}

/** Centres or edges of table cells agree within this (× font size) across columns / along rows (poppler: minColSpacing1, maxIntraLineDelta). */
const CELL_ALIGN_X = 0.7;
const CELL_ALIGN_Y = 0.5;

interface Node {
  block: OrderBlock;
  /** The box the rules compare: the block's own, widened (see widen) or a whole table's. */
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  table: number;
}

const overlapX = (a: OrderBlock, b: OrderBlock) => a.xMin <= b.xMax && a.xMax >= b.xMin;
const overlapY = (a: OrderBlock, b: OrderBlock) => a.yMin <= b.yMax && a.yMax >= b.yMin;

/** Rule 1: a is above b and their (extended) boxes overlap horizontally. */
function aboveOf(a: Node, b: Node): boolean {
  const overlap = (a.xMin <= b.xMin && b.xMin <= a.xMax) || (b.xMin <= a.xMin && a.xMin <= b.xMax);
  return overlap && a.yMin < b.yMin;
}

/** Rule 2's geometric half: a ends left of where b starts. */
function leftOf(a: Node, b: Node): boolean {
  return a.xMax <= b.xMin;
}

/**
 * Marks blocks that form a grid with their nearest neighbours to the right, below and diagonally below
 * right (centres or edges aligned both ways) as cells of one table; returns the table number of each.
 */
function findTables(blocks: readonly OrderBlock[]): number[] {
  const table = blocks.map(() => -1);
  let tables = 0;
  blocks.forEach((cell, i) => {
    let right = -1;
    let below = -1;
    let diagonal = -1;
    for (let j = 0; j < blocks.length; j++) {
      if (j === i) continue;
      const b = blocks[j]!;
      if (overlapY(b, cell) && b.xMin > cell.xMax) {
        if (right < 0 || b.xMin < blocks[right]!.xMin) right = j;
      } else if (overlapX(b, cell) && b.yMin > cell.yMax) {
        if (below < 0 || b.yMin < blocks[below]!.yMin) below = j;
      } else if (b.xMin > cell.xMax && b.yMin > cell.yMax) {
        if (diagonal < 0 || (b.xMin < blocks[diagonal]!.xMin && b.yMin < blocks[diagonal]!.yMin)) diagonal = j;
      }
    }
    if (right < 0 || below < 0 || diagonal < 0) return;
    const r = blocks[right]!;
    const d = blocks[below]!;
    const g = blocks[diagonal]!;
    // The four must sit in a 2×2 grid: the diagonal one level with `below` and under `right`, no other overlaps.
    if (overlapX(d, g) || overlapY(r, g) || overlapX(r, d) || overlapY(r, d)) return;
    if (!(overlapX(g, r) && overlapY(g, d))) return;
    const size = Math.min(cell.fontSize, r.fontSize, d.fontSize, g.fontSize);
    const dx = CELL_ALIGN_X * size;
    const dy = CELL_ALIGN_Y * size;
    const near = (p: number, q: number, tolerance: number) => Math.abs(p - q) <= tolerance;
    const mid = (a: OrderBlock, axis: "x" | "y") => (axis === "x" ? a.xMin + a.xMax : a.yMin + a.yMax) / 2;
    const alignedX =
      (near(mid(cell, "x"), mid(d, "x"), dx) && near(mid(r, "x"), mid(g, "x"), dx)) ||
      (near(cell.xMin, d.xMin, dx) && near(r.xMin, g.xMin, dx)) ||
      (near(cell.xMax, d.xMax, dx) && near(r.xMax, g.xMax, dx));
    const alignedY =
      (near(mid(cell, "y"), mid(r, "y"), dy) && near(mid(d, "y"), mid(g, "y"), dy)) ||
      (near(cell.yMin, r.yMin, dy) && near(d.yMin, g.yMin, dy)) ||
      (near(cell.yMax, r.yMax, dy) && near(d.yMax, g.yMax, dy));
    if (!alignedX || !alignedY) return;
    let id = Math.max(table[i]!, table[right]!, table[below]!, table[diagonal]!);
    if (id < 0) id = tables++;
    for (const k of [i, right, below, diagonal]) table[k] = id;
  });
  return table;
}

/** Boxes the rules compare: a table's cells share the table's box; other blocks widen towards text below. */
function extendedBoxes(blocks: readonly OrderBlock[], table: readonly number[]): Node[] {
  const nodes: Node[] = blocks.map((block, i) => ({
    block,
    xMin: block.xMin,
    xMax: block.xMax,
    yMin: block.yMin,
    yMax: block.yMax,
    table: table[i]!,
  }));
  const envelopes = new Map<number, { xMin: number; xMax: number; yMin: number; yMax: number }>();
  for (const node of nodes) {
    if (node.table < 0) continue;
    const e = envelopes.get(node.table);
    if (!e) envelopes.set(node.table, { xMin: node.xMin, xMax: node.xMax, yMin: node.yMin, yMax: node.yMax });
    else
      Object.assign(e, {
        xMin: Math.min(e.xMin, node.xMin),
        xMax: Math.max(e.xMax, node.xMax),
        yMin: Math.min(e.yMin, node.yMin),
        yMax: Math.max(e.yMax, node.yMax),
      });
  }
  for (const node of nodes) {
    if (node.table >= 0) {
      Object.assign(node, envelopes.get(node.table));
      continue;
    }
    // Widen sideways to the edges of blocks further down, but not into a neighbour on the block's own rows.
    const own = node.block;
    let limitRight = Infinity;
    let limitLeft = -Infinity;
    for (const other of blocks) {
      if (other === own || !overlapY(own, other)) continue;
      if (other.xMin > own.xMax) limitRight = Math.min(limitRight, other.xMin);
      if (other.xMax < own.xMin) limitLeft = Math.max(limitLeft, other.xMax);
    }
    for (const other of blocks) {
      if (other === own || other.yMin < own.yMax) continue;
      if (other.xMax > node.xMax && other.xMax <= limitRight) node.xMax = other.xMax;
      if (other.xMin < node.xMin && other.xMin >= limitLeft) node.xMin = other.xMin;
    }
  }
  return nodes;
}

/** Blocks in pdftotext's reading order (see the file comment); ties keep the given order. */
export function readingOrder<T extends OrderBlock>(blocks: readonly T[]): T[] {
  const nodes = extendedBoxes(blocks, findTables(blocks));
  const visited = new Array<boolean>(nodes.length).fill(false);
  const sorted: T[] = [];
  // Blocks that recently stood between a pair: tried first, since the same spanning block blocks many pairs.
  const blockers: Node[] = [];
  const separated = (upper: Node, lower: Node): boolean => {
    for (let k = 0; k < blockers.length; k++) {
      const c = blockers[k]!;
      if (aboveOf(upper, c) && aboveOf(c, lower)) {
        blockers.splice(k, 1);
        blockers.unshift(c);
        return true;
      }
    }
    for (const c of nodes) {
      if (c === upper || c === lower) continue;
      if (aboveOf(upper, c) && aboveOf(c, lower)) {
        blockers.unshift(c);
        if (blockers.length > 4) blockers.pop();
        return true;
      }
    }
    return false;
  };
  const visit = (i: number): void => {
    if (visited[i]) return;
    visited[i] = true;
    const node = nodes[i]!;
    for (let j = 0; j < nodes.length; j++) {
      if (visited[j]) continue;
      const other = nodes[j]!;
      let before: boolean;
      if (node.table >= 0 && other.table === node.table) {
        // Cells of one table: rows top to bottom, cells left to right.
        const a = other.block;
        const b = node.block;
        before = (a.xMax <= b.xMin && overlapY(a, b)) || a.yMax <= b.yMin;
      } else {
        before = aboveOf(other, node) || (leftOf(other, node) && !separated(node, other));
      }
      if (before) visit(j);
    }
    sorted.push(node.block as T);
  };
  for (let i = 0; i < nodes.length; i++) visit(i);
  return sorted;
}
