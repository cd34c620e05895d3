// --fixations FILE.jsonl: per generated token, the visual grid cells focal pruning kept (where the model looked).
import { createWriteStream, mkdirSync, renameSync, rmSync, type WriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Fixation } from "../../native/index.js";

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
  /** where the kept tokens sit on the page, as fractions of its width and height (what `ocr render --fixations` draws) */
  points?: [number, number][];
  /** the page's size in pixels in the parse run (the unit of `line.box`) */
  pageSize?: [number, number];
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
  page(
    source: string,
    page: number,
    fixations: Fixation[],
    visualStart: number,
    grid: [number, number],
    rowNewline: boolean,
    view?: { index: number; box: [number, number, number, number]; firstStep: number },
    /** page position (fractions) of a kept cell, when known */
    locate?: (row: number, col: number) => [number, number] | undefined,
    pageSize?: [number, number],
  ): void {
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
      if (locate) {
        const round = (v: number) => Math.round(v * 10000) / 10000;
        record.points = cells
          .map(([r, c]) => locate(r, c))
          .filter((p): p is [number, number] => !!p)
          .map(([x, y]) => [round(x), round(y)]);
      }
      if (pageSize) record.pageSize = pageSize;
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

/**
 * The records of FILE for document `doc` (the source as `ocr parse` named it, compared as resolved paths, else
 * by file name). Throws when FILE cannot be read, holds no records, or none for the document.
 */
export async function readFixations(file: string, doc: string): Promise<FixationRecord[]> {
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === "ENOENT" ? "no such file" : err.message);
  });
  const records: FixationRecord[] = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let r: FixationRecord;
    try {
      r = JSON.parse(line) as FixationRecord;
    } catch {
      throw new Error(`line ${i + 1} is not JSON`);
    }
    if (typeof r.source !== "string" || typeof r.page !== "number" || !Array.isArray(r.cells))
      throw new Error(`line ${i + 1} is not a fixation record`);
    records.push(r);
  });
  if (!records.length) throw new Error("holds no fixation records");
  const mine = records.filter((r) => path.resolve(r.source) === path.resolve(doc));
  const byName = mine.length ? mine : records.filter((r) => path.basename(r.source) === path.basename(doc));
  if (!byName.length) throw new Error(`has no records for ${doc} (it covers ${[...new Set(records.map((r) => r.source))].join(", ")})`);
  if (!byName.some((r) => r.points)) throw new Error("its records carry no page positions (written by an older ocr)");
  return byName;
}

/**
 * An SVG overlay for one page: each line read (line-unit models) outlined, each kept token a dot whose
 * opacity grows with the number of decode steps that kept it.
 */
export function fixationOverlay(records: readonly FixationRecord[], width: number, height: number): string {
  const counts = new Map<string, { x: number; y: number; n: number }>();
  const lines = new Map<number, [number, number, number, number]>();
  for (const r of records) {
    for (const [fx, fy] of r.points ?? []) {
      const x = Math.round(fx * width),
        y = Math.round(fy * height);
      const key = `${x},${y}`;
      const c = counts.get(key);
      if (c) c.n++;
      else counts.set(key, { x, y, n: 1 });
    }
  }
  const max = Math.max(1, ...[...counts.values()].map((c) => c.n));
  const radius = Math.max(2, Math.round(width / 300));
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`];
  for (const r of records) {
    if (!r.line || !r.pageSize) continue;
    // boxes are in the parse run's page pixels: scale them to this rendering
    const sx = width / r.pageSize[0],
      sy = height / r.pageSize[1];
    const [x0, y0, x1, y1] = r.line.box;
    lines.set(r.line.index, [x0 * sx, y0 * sy, x1 * sx, y1 * sy].map(Math.round) as [number, number, number, number]);
  }
  for (const [x0, y0, x1, y1] of lines.values())
    parts.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${y1 - y0}" fill="none" stroke="#1f6feb" stroke-width="1"/>`);
  for (const c of counts.values())
    parts.push(`<circle cx="${c.x}" cy="${c.y}" r="${radius}" fill="#e5534b" fill-opacity="${(0.25 + (0.75 * c.n) / max).toFixed(3)}"/>`);
  parts.push("</svg>");
  return parts.join("");
}
