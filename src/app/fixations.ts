// --fixations FILE.jsonl: per generated token, the visual grid cells focal pruning kept (where the model looked).
import { createWriteStream, mkdirSync, renameSync, rmSync, type WriteStream } from "node:fs";
import path from "node:path";
import type { Fixation } from "../engine/index.js";

/** One line of the file. `cells` are [row, col] of the page's visual grid (row newlines excluded). */
export interface FixationRecord {
  source: string;
  page: number;
  /** 0-based decode step within the page. */
  step: number;
  /** Sequence position of the generated token. */
  position: number;
  cells: [number, number][];
  /** line-unit models: the text line (view) the token was read from, its index on the page and box in page pixels */
  line?: { index: number; box: [number, number, number, number] };
}

/** Appends records to FILE through a temporary file that is renamed on close, so a failed run leaves no half file. */
export class FixationLog {
  private readonly temp: string;
  private readonly out: WriteStream;

  constructor(readonly file: string) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.temp = `${file}.tmp-${process.pid}`;
    this.out = createWriteStream(this.temp);
  }

  /**
   * Records one page's fixations. `visualStart` is the sequence position of the page's first visual entry;
   * `grid` its [rows, cols] of embeddings, each row followed by one row-newline entry when `rowNewline`
   * (row newlines and the view separator are visual entries too, but not page cells: they are left out).
   */
  page(source: string, page: number, fixations: Fixation[], visualStart: number, grid: [number, number], rowNewline: boolean,
    view?: { index: number; box: [number, number, number, number]; firstStep: number }): void {
    const [gridRows, gridCols] = grid;
    const stride = gridCols + (rowNewline ? 1 : 0);
    fixations.forEach((f, step) => {
      const cells: [number, number][] = [];
      for (const position of f.visual) {
        const offset = position - visualStart;
        const col = offset % stride;
        if (offset >= 0 && offset < gridRows * stride && col < gridCols) cells.push([Math.floor(offset / stride), col]);
      }
      const record: FixationRecord = { source, page, step: step + (view?.firstStep ?? 0), position: f.position, cells };
      if (view) record.line = { index: view.index, box: view.box };
      this.out.write(JSON.stringify(record) + "\n");
    });
  }

  /** Finishes the file: renamed into place when `keep`, removed otherwise. */
  async close(keep = true): Promise<void> {
    await new Promise<void>((resolve, reject) => this.out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (keep) renameSync(this.temp, this.file);
    else rmSync(this.temp, { force: true });
  }
}
