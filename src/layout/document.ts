// Layout decisions over a whole document: text repeated at the same place on several pages is a running header
// or footer, and each page's Markdown is written from its blocks as the run asked (--keep-headers, --tables).
import { blocksCarryMarkdown, isPageNumber, MARGIN_ROLES, pageMarkdown, type MarkdownOptions } from "./page.js";
import { balanceTables } from "./table.js";
import type { Block, PageRecord } from "../output/schema.js";

/** Repeated text is looked for in this share of the page height at its top and bottom. */
const REPEAT_BAND = 0.15;
/** Two blocks are at the same place when their centres differ by at most this share of the page size. */
const SAME_PLACE = 0.02;
/** Text longer than this is not a running header even when repeated (a repeated paragraph is content). */
const REPEAT_CHARS = 90;

/** What stays equal between running headers of different pages: digits (page numbers, dates) do not count. */
function repeatKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, "#").replace(/\s+/g, " ").trim();
}

interface Candidate {
  page: number;
  block: Block;
  key: string;
  cx: number;
  cy: number;
  top: boolean;
}

/**
 * Blocks in the top or bottom band of their page whose text (digits aside) recurs at the same place, within
 * SAME_PLACE of the page size, on at least two other pages (or on the other page of a two-page document), become
 * headers, footers or page numbers; page numbers at the same place count as repeated whatever their digits.
 * Returns how many blocks changed role.
 */
export function markRepeatedMargins(pages: readonly PageRecord[]): number {
  if (pages.length < 2) return 0;
  const candidates: Candidate[] = [];
  pages.forEach((page, p) => {
    if (!page.width || !page.height) return;
    for (const block of page.blocks) {
      if (!block.bbox || MARGIN_ROLES.has(block.type) || block.type === "table" || block.type === "figure") continue;
      const text = block.text.trim();
      if (!text || text.length > REPEAT_CHARS || (block.lines && block.lines.length > 2)) continue;
      const [x0, y0, x1, y1] = block.bbox;
      const cy = (y0 + y1) / 2 / page.height;
      const top = cy <= REPEAT_BAND;
      if (!top && cy < 1 - REPEAT_BAND) continue;
      // a heading repeats only word for word ("Chapter 2" at the top of each chapter's first page is no running header)
      const heading = block.type === "heading" || block.type === "title";
      const key = isPageNumber(text) ? "#page" : heading ? `heading:${text.toLowerCase()}` : repeatKey(text);
      candidates.push({ page: p, block, key, cx: (x0 + x1) / 2 / page.width, cy, top });
    }
  });
  const needed = pages.length === 2 ? 1 : 2;
  let changed = 0;
  for (const c of candidates) {
    const others = new Set<number>();
    for (const d of candidates) {
      if (d.page === c.page || d.key !== c.key || d.top !== c.top) continue;
      if (Math.abs(d.cy - c.cy) > SAME_PLACE) continue;
      // page numbers alternate sides on facing pages; other running text must also match across
      if (c.key !== "#page" && Math.abs(d.cx - c.cx) > 0.25) continue;
      others.add(d.page);
    }
    if (others.size < needed) continue;
    c.block.type = c.key === "#page" ? "page-number" : c.top ? "header" : "footer";
    changed++;
  }
  return changed;
}

/**
 * Finishes a document's pages: repeated running headers and footers get their role, and each page's Markdown is
 * written again from its blocks with the run's options (margin blocks out unless keepHeaders; tables as HTML or,
 * where no cell spans, pipe tables). A page whose blocks do not know their Markdown (grounded output) keeps its
 * Markdown, its tables rewritten in the style asked for.
 */
export function finishDocumentPages(pages: PageRecord[], options: MarkdownOptions = {}): void {
  const changed = markRepeatedMargins(pages);
  for (const page of pages) {
    if (page.blocks.length && blocksCarryMarkdown(page.blocks)) {
      if (changed || options.keepHeaders || options.tables === "markdown") page.markdown = pageMarkdown(page.blocks, options);
    } else if (options.tables === "markdown") page.markdown = balanceTables(page.markdown, "markdown");
  }
}
