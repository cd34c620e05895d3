// A decoded page from a model's text (the model engine's and the server engine's): grounded output or line-unit
// lines become blocks, Markdown and figure crops.
import { placeFigures } from "../layout/figures.js";
import { pageMarkdown, type PageLine } from "../layout/page.js";
import type { Extent } from "../layout/xycut.js";
import { layoutStage, type PageFrame } from "../layout/stage.js";
import { balanceTables } from "../layout/table.js";
import { parseGroundedPage } from "../output/grounding.js";
import { cropRegionPng } from "../vision/crop.js";
import type { PagePixels } from "../vision/preprocess.js";
import type { DecodedPage } from "./engine.js";

/** The decoder's separator and block marker (new paragraph, heading, list item) before the recogniser's text. */
export function lineFallback(decoded: string, recognised: string): string {
  const lead = /^\s*(?:#{1,6} |[-*+] |\d{1,3}[.)] )?/.exec(decoded)![0];
  return lead + recognised.trim();
}

/** A line-unit page: blocks from its lines, with its pictures placed among them as figures. */
function lineUnitPage(lines: readonly PageLine[], pictures: readonly Extent[], p: PageFrame, figurePath?: (n: number) => string) {
  const page = layoutStage().assemble(lines, p);
  if (!pictures.length) return { ...page, figures: [], warnings: [] };
  const figures = placeFigures(page.blocks, pictures, figurePath);
  return { blocks: page.blocks, markdown: pageMarkdown(page.blocks), warnings: [], figures };
}

/**
 * A page from the model's text. Line-unit models give `lines` (each line's box and the Markdown written for it, in
 * reading order): blocks with roles and boxes grow from them (layout/page.ts). Otherwise the text is grounded
 * output: blocks with boxes in page pixels, Markdown cleaned of the tags, figure regions cropped from the page
 * pixels to PNGs under `figureDir` (relative to the Markdown file) and linked. Tables come out balanced either way.
 */
export async function decodedPageFromText(
  text: string,
  p: { pageNumber: number; width: number; height: number; dpi: number | undefined; pixels: PagePixels },
  o: {
    figureDir?: string;
    tokenCount: number;
    truncated: boolean;
    timings: Record<string, number>;
    missing?: boolean;
    maxTokens: number;
    lines?: PageLine[];
    pictures?: readonly Extent[];
    /** line-unit mode: the page's horizontal rules (layout/rules.ts), for its tables' rows */
    rules?: readonly Extent[];
  },
): Promise<DecodedPage> {
  const dir = o.figureDir;
  const figurePath = dir ? (n: number) => `${dir}/page-${p.pageNumber}-${n}.png` : undefined;
  const grounded = o.lines
    ? lineUnitPage(o.lines, o.pictures ?? [], { width: p.width, height: p.height, rules: o.rules }, figurePath)
    : parseGroundedPage(text, p.width, p.height, figurePath ? { figurePath } : {});
  if (!o.lines) grounded.markdown = balanceTables(grounded.markdown);
  const warnings = [...grounded.warnings];
  const figures: { file: string; png: Uint8Array }[] = [];
  for (const f of grounded.figures) {
    if (!f.path) continue;
    const png = await cropRegionPng(p.pixels, f.bbox);
    if (png) figures.push({ file: f.path, png });
    else warnings.push(`figure ${f.index} on page ${p.pageNumber} has an empty box`);
  }
  if (o.missing) warnings.push(`the pass ended (token limit ${o.maxTokens} per page) before the model reached page ${p.pageNumber}`);
  else if (o.truncated) warnings.push(`page ${p.pageNumber} stopped at the token limit (${o.maxTokens}) before the model ended it`);
  return {
    pageNumber: p.pageNumber,
    width: p.width,
    height: p.height,
    dpi: p.dpi,
    markdown: grounded.markdown,
    blocks: grounded.blocks,
    tokenCount: o.tokenCount,
    truncated: o.truncated,
    timings: o.timings,
    warnings,
    ...(figures.length ? { figures } : {}),
    rawText: text,
    ...(o.lines ? { pageLines: o.lines } : {}),
  };
}
