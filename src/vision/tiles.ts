// Tile-grid choice for tiled modes (Gundam): the grid whose aspect ratio is closest to the page's, as the DeepSeek-OCR reference picks it.

export interface TileGrid {
  /** tiles across (width) */
  cols: number;
  /** tiles down (height) */
  rows: number;
}

/** Candidate grids with min ≤ cols·rows ≤ max, ordered by tile count (ties: cols then rows ascending). */
export function candidateGrids(minTiles: number, maxTiles: number): TileGrid[] {
  const out: TileGrid[] = [];
  for (let cols = 1; cols <= maxTiles; cols++)
    for (let rows = 1; rows <= maxTiles; rows++) {
      const n = cols * rows;
      if (n >= minTiles && n <= maxTiles) out.push({ cols, rows });
    }
  // Array.prototype.sort is stable, so equal counts keep the (cols, rows) order above
  return out.sort((a, b) => a.cols * a.rows - b.cols * b.rows);
}

/**
 * Closest aspect ratio wins; on an exact tie the later (larger) grid wins only when the page has more than
 * half the pixels that grid would hold at full tile resolution.
 */
export function chooseTileGrid(pageWidth: number, pageHeight: number, tileSize: number, minTiles: number, maxTiles: number): TileGrid {
  const aspect = pageWidth / pageHeight;
  const area = pageWidth * pageHeight;
  let best: TileGrid = { cols: 1, rows: 1 };
  let bestDiff = Infinity;
  for (const g of candidateGrids(minTiles, maxTiles)) {
    const diff = Math.abs(aspect - g.cols / g.rows);
    if (diff < bestDiff) {
      bestDiff = diff;
      best = g;
    } else if (diff === bestDiff && area > 0.5 * tileSize * tileSize * g.cols * g.rows) {
      best = g;
    }
  }
  return best;
}

/** Tiles are cut only from pages larger than one tile in some direction; smaller pages get the global view alone. */
export function needsTiles(pageWidth: number, pageHeight: number, tileWidth: number, tileHeight: number): boolean {
  return !(pageWidth <= tileWidth && pageHeight <= tileHeight);
}
