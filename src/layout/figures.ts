// Pictures found on a line-unit page (vision/pictures.ts) become figure blocks among the page's blocks, where a
// reader meets them: before the first body block that starts below the picture's top edge and shares its width.
import type { Block } from "../output/schema.js";
import { MARGIN_ROLES, setBlockMarkdown } from "./page.js";
import type { Extent } from "./xycut.js";

export interface PlacedFigure {
  /** 1-based figure number on the page */
  index: number;
  bbox: [number, number, number, number];
  /** where its crop is written, relative to the Markdown file; undefined when no files are written */
  path?: string;
}

/**
 * Inserts a figure block (empty text, the picture's box) for each picture into `blocks`, in reading order. With
 * `figurePath` the block's Markdown is an image link to the crop; without it the figure writes nothing in the
 * Markdown and stays in the JSON.
 */
export function placeFigures(blocks: Block[], pictures: readonly Extent[], figurePath?: (index: number) => string): PlacedFigure[] {
  const placed: PlacedFigure[] = [];
  const sorted = [...pictures].sort((a, b) => a.yMin - b.yMin || a.xMin - b.xMin);
  for (const p of sorted) {
    const bbox: [number, number, number, number] = [Math.round(p.xMin), Math.round(p.yMin), Math.round(p.xMax), Math.round(p.yMax)];
    const index = placed.length + 1;
    const path = figurePath?.(index);
    const figure = setBlockMarkdown({ type: "figure", text: "", bbox }, path ? `![](${path})` : "");
    const below = blocks.findIndex(
      (b) =>
        !MARGIN_ROLES.has(b.type) &&
        b.type !== "figure" &&
        b.bbox !== null &&
        b.bbox[1] >= p.yMin &&
        Math.min(b.bbox[2], p.xMax) > Math.max(b.bbox[0], p.xMin),
    );
    // else after the last body block (footers and page numbers stay last)
    let at = below;
    if (at < 0) {
      at = blocks.length;
      while (at > 0 && MARGIN_ROLES.has(blocks[at - 1]!.type) && blocks[at - 1]!.bbox !== null && blocks[at - 1]!.bbox![1] >= p.yMax) at--;
    }
    blocks.splice(at, 0, figure);
    placed.push({ index, bbox, ...(path ? { path } : {}) });
  }
  return placed;
}
