// The visual sequence: how encoder embeddings, row newlines and the view separator are ordered at the <image> placeholder.

export interface ViewGrid {
  rows: number;
  cols: number;
}

export interface VisualSequence {
  /** tiles of one page, stitched into one grid of (tileRows·grid.rows) × (tileCols·grid.cols) embeddings */
  tiles?: { tileRows: number; tileCols: number; grid: ViewGrid };
  global: ViewGrid;
  rowNewline: boolean;
  viewSeparator: boolean;
}

/** One position of the sequence: an embedding of a view (tile index or the global view), a newline, or the separator. */
export type VisualSlot =
  | { kind: "tile"; tile: number; row: number; col: number }
  | { kind: "global"; row: number; col: number }
  | { kind: "newline" }
  | { kind: "separator" };

/** Number of embeddings the sequence places at the placeholder. */
export function visualTokenCount(sequence: VisualSequence): number {
  const nl = sequence.rowNewline ? 1 : 0;
  let n = sequence.global.rows * (sequence.global.cols + nl);
  if (sequence.tiles) {
    const { tileRows, tileCols, grid } = sequence.tiles;
    n += tileRows * grid.rows * (tileCols * grid.cols + nl);
  }
  return n + (sequence.viewSeparator ? 1 : 0);
}

/** The sequence, in order: stitched tile rows (each + newline), then global rows (each + newline), then the separator. */
export function visualSlots(sequence: VisualSequence): VisualSlot[] {
  const slots: VisualSlot[] = [];
  if (sequence.tiles) {
    const { tileRows, tileCols, grid } = sequence.tiles;
    for (let r = 0; r < tileRows * grid.rows; r++) {
      const tileRow = Math.floor(r / grid.rows);
      for (let c = 0; c < tileCols * grid.cols; c++) {
        const tileCol = Math.floor(c / grid.cols);
        slots.push({ kind: "tile", tile: tileRow * tileCols + tileCol, row: r % grid.rows, col: c % grid.cols });
      }
      if (sequence.rowNewline) slots.push({ kind: "newline" });
    }
  }
  for (let r = 0; r < sequence.global.rows; r++) {
    for (let c = 0; c < sequence.global.cols; c++) slots.push({ kind: "global", row: r, col: c });
    if (sequence.rowNewline) slots.push({ kind: "newline" });
  }
  if (sequence.viewSeparator) slots.push({ kind: "separator" });
  return slots;
}

export interface SequenceInputs {
  hidden: number;
  /** encoder output of the global view: [rows, cols, hidden] */
  global: Float32Array;
  /** encoder output of the tiles, row-major tile order: [nTiles, rows, cols, hidden] */
  tiles?: Float32Array;
  newline?: Float32Array;
  separator?: Float32Array;
}

/** Builds the [visualTokenCount, hidden] matrix the decoder receives at the placeholder. */
export function assembleVisualEmbeddings(sequence: VisualSequence, inputs: SequenceInputs): Float32Array {
  const h = inputs.hidden;
  const slots = visualSlots(sequence);
  const out = new Float32Array(slots.length * h);
  const g = sequence.global;
  if (inputs.global.length !== g.rows * g.cols * h)
    throw new Error(`global view has ${inputs.global.length} values, sequence needs ${g.rows}×${g.cols}×${h}`);
  if (sequence.tiles) {
    const t = sequence.tiles;
    const need = t.tileRows * t.tileCols * t.grid.rows * t.grid.cols * h;
    if (!inputs.tiles || inputs.tiles.length !== need)
      throw new Error(`tiles have ${inputs.tiles?.length ?? 0} values, sequence needs ${need}`);
  }
  if (sequence.rowNewline && inputs.newline?.length !== h) throw new Error("sequence needs the image_newline row");
  if (sequence.viewSeparator && inputs.separator?.length !== h) throw new Error("sequence needs the view_seperator row");
  slots.forEach((s, i) => {
    const dst = i * h;
    switch (s.kind) {
      case "global":
        out.set(inputs.global.subarray((s.row * g.cols + s.col) * h, (s.row * g.cols + s.col + 1) * h), dst);
        break;
      case "tile": {
        const tg = sequence.tiles!.grid;
        const at = ((s.tile * tg.rows + s.row) * tg.cols + s.col) * h;
        out.set(inputs.tiles!.subarray(at, at + h), dst);
        break;
      }
      case "newline":
        out.set(inputs.newline!, dst);
        break;
      case "separator":
        out.set(inputs.separator!, dst);
        break;
    }
  });
  return out;
}
