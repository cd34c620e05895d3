// A line as a line-unit page gives it to the layout stage: its box (left, top, right, bottom) and its Markdown.
import type { PageLine } from "../../src/layout/page.js";

export const pageLine = (x0: number, y0: number, x1: number, y1: number, markdown: string): PageLine => ({
  box: { xMin: x0, yMin: y0, xMax: x1, yMax: y1 },
  markdown,
});
