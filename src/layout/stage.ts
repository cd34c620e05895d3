// The page layout stage between the text detector and the decoder, and after it: reading order of the detected
// lines, then blocks with roles from the lines and what was written for them. XY-cut with soft gutters and the
// geometric roles of page.ts are the default; a learned stage (reading order and roles from line boxes, the
// recogniser's evidence and page features) implements the same interface and replaces it.
import { assemblePage, type AssembledPage, type PageLine } from "./page.js";
import { median, middleInside, xyCut, type Extent } from "./xycut.js";

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
  /**
   * panels on the page (vision/panels.ts: rectangles of flat colour holding text): each one's lines are read
   * together, the panel taking part in the cuts as one block (a coloured box beside a column is read after or
   * before it, never row by row with it)
   */
  panels?: readonly Extent[];
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
    return page.panels?.length ? inPanels(lines, page, body) : withPictures(lines, page, body);
  },
  assemble(lines, page) {
    return assemblePage(lines, page.width, page.height, page.rules);
  },
};

/** `lines` and the page's pictures in XY-cut's order, the pictures left out; `body`: the page's line height. */
function withPictures<T extends Extent>(lines: readonly T[], page: PageFrame, body: number): T[] {
  if (!page.pictures?.length) return xyCut(lines, 0.5 * body, page.rules);
  // (marked, not kept by identity: a box XY-cut splits at a gutter comes back as copies, and copies keep the mark)
  const pictures = page.pictures.map((p) => ({ ...p, [PICTURE]: true }));
  return xyCut<Extent>([...lines, ...pictures], 0.5 * body, page.rules).filter((b) => !(PICTURE in b)) as T[];
}

/** Marks a panel's block among the lines XY-cut orders: its lines, in their own order. */
const PANEL = Symbol("panel");

/**
 * `lines` in reading order where the page has panels: the lines whose middles lie in a panel (the smallest that
 * holds it) become one block, the panel's rectangle and theirs, which XY-cut orders among the other lines (and the
 * pictures); each block then stands for its lines, themselves in XY-cut's order. `body`: the page's line height.
 */
function inPanels<T extends Extent>(lines: readonly T[], page: PageFrame, body: number): T[] {
  const panels = [...page.panels!].sort((a, b) => (a.xMax - a.xMin) * (a.yMax - a.yMin) - (b.xMax - b.xMin) * (b.yMax - b.yMin));
  const members: T[][] = panels.map(() => []);
  const free: T[] = [];
  for (const b of lines) {
    const k = panels.findIndex((p) => middleInside(b, p));
    if (k < 0) free.push(b);
    else members[k]!.push(b);
  }
  const blocks = panels.flatMap((p, k) => (members[k]!.length ? [{ ...spanWith(p, members[k]!), [PANEL]: k }] : []));
  // (a block XY-cut cut at a gutter comes back as copies: its lines are read at the first)
  const read = new Set<number>();
  return withPictures<Extent>([...free, ...blocks], page, body).flatMap((b) => {
    if (!(PANEL in b)) return [b as T];
    const k = (b as { [PANEL]: number })[PANEL];
    if (read.has(k)) return [];
    read.add(k);
    return xyCut(members[k]!, 0.5 * body, page.rules);
  });
}

/** The extent of a panel and its lines together. */
function spanWith(panel: Extent, lines: readonly Extent[]): Extent {
  return {
    xMin: Math.min(panel.xMin, ...lines.map((b) => b.xMin)),
    xMax: Math.max(panel.xMax, ...lines.map((b) => b.xMax)),
    yMin: Math.min(panel.yMin, ...lines.map((b) => b.yMin)),
    yMax: Math.max(panel.yMax, ...lines.map((b) => b.yMax)),
  };
}

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
