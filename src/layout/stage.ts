// The page layout stage between the text detector and the decoder, and after it: reading order of the detected
// lines, then blocks with roles from the lines and what was written for them. XY-cut with soft gutters and the
// geometric roles of page.ts are the default; a learned stage (reading order and roles from line boxes, the
// recogniser's evidence and page features) implements the same interface and replaces it.
import { assemblePage, type AssembledPage, type PageLine } from "./page.js";
import { median, xyCut, type Extent } from "./xycut.js";

/** The page the lines lie on: its size and, where the page's pixels were read for them, its horizontal rules. */
export interface PageFrame {
  width: number;
  height: number;
  /** rules drawn across the page (layout/rules.ts): a gutter they cross is a ruled table's, read row by row */
  rules?: readonly Extent[];
  /**
   * pictures on the page (vision/pictures.ts), whose lines are not read: they take part in the cuts as the blocks they
   * are (a photograph in one column keeps its band from reading as a section break across the page)
   */
  pictures?: readonly Extent[];
}

export interface LayoutStage {
  readonly name: string;
  /** The page's detected lines in reading order (a line may come back split, e.g. two columns' lines read as one box). */
  order<T extends Extent>(lines: readonly T[], page: PageFrame): T[];
  /** Blocks with roles and boxes from the lines in reading order, each with the Markdown written for it. */
  assemble(lines: readonly PageLine[], page: PageFrame): AssembledPage;
}

/** Marks the pictures XY-cut orders among the lines. */
const PICTURE = Symbol("picture");

/**
 * The default stage: recursive XY-cut with half the median line height as the narrowest clean gutter (detected
 * boxes are dilated, and a two-column paper's gutter is about one line of its body text) and soft gutters on the
 * boxes' cores; roles from the Markdown and the page's geometry.
 */
export const XY_CUT_STAGE: LayoutStage = {
  name: "xy-cut",
  order(lines, page) {
    const body = median(lines.map((b) => b.yMax - b.yMin)) || 10;
    if (!page.pictures?.length) return xyCut(lines, 0.5 * body, page.rules);
    // (marked, not kept by identity: a box XY-cut splits at a gutter comes back as copies, and copies keep the mark)
    const pictures = page.pictures.map((p) => ({ ...p, [PICTURE]: true }));
    return xyCut<Extent>([...lines, ...pictures], 0.5 * body, page.rules).filter((b) => !(PICTURE in b)) as (typeof lines)[number][];
  },
  assemble(lines, page) {
    return assemblePage(lines, page.width, page.height, page.rules);
  },
};

let current: LayoutStage = XY_CUT_STAGE;

/** The layout stage pages are read with. */
export function layoutStage(): LayoutStage {
  return current;
}

/** Replaces the layout stage (a learned one); returns the one it replaced. */
export function setLayoutStage(stage: LayoutStage): LayoutStage {
  const previous = current;
  current = stage;
  return previous;
}
