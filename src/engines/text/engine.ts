// The "text" engine: the PDF's own text layer as Markdown/JSON — fast path for born-digital PDFs, and a baseline.
import { isInputError, type PageText } from "../../input/index.js";

/** Page failures that leave the rest of the document readable. */
const PAGE_LEVEL = new Set(["CORRUPT_PDF", "RENDER_FAILED", "PAGE_RANGE"]);
import type { Block } from "../../output/schema.js";
import { registerEngine, type DecodedPage, type DocumentPages, type PageEngine } from "../engine.js";
import { pageBlocks, type TextBlock } from "./blocks.js";
import { blockStats, headingLevels, layoutBlocks } from "./layout.js";
import { marginRoles, pageMarkdown } from "../../layout/page.js";

export function createTextEngine(): PageEngine {
  return {
    engine: "text",
    model: null,
    async *decodeDocument(pages: DocumentPages, context) {
      if (pages.kind !== "pdf") {
        context.warn(`${pages.kind.toUpperCase()} images have no text layer; the text engine yields empty pages (use --engine model)`);
      }
      // Heading levels are a document-wide judgement, so read every selected page's text first.
      const texts = new Map<number, { text: PageText | undefined; blocks: TextBlock[]; ms: number; error?: string }>();
      for (const pageNumber of pages.pageNumbers) {
        if (context.signal.aborted) return;
        const started = performance.now();
        let text: PageText | undefined;
        try {
          text = await pages.textContent(pageNumber);
        } catch (error) {
          // one unreadable page (a broken page tree) keeps the others, as with the model; a document the
          // parser had to stop (time or memory budget, interrupt) fails as a whole
          if (!isInputError(error) || !PAGE_LEVEL.has(error.code)) throw error;
          texts.set(pageNumber, { text: undefined, blocks: [], ms: performance.now() - started, error: error.message });
          continue;
        }
        const blocks = text ? pageBlocks(text.runs) : [];
        texts.set(pageNumber, { text, blocks, ms: performance.now() - started });
      }
      const stats = [...texts.values()].flatMap(({ text, blocks }) => (text ? [blockStats(blocks)] : []));
      const levels = headingLevels(stats.filter((s) => s.lines.length > 0));
      for (const pageNumber of pages.pageNumbers) {
        if (context.signal.aborted) return;
        const started = performance.now();
        const entry = texts.get(pageNumber)!;
        if (entry.error !== undefined) {
          const size = await pages.pixelSize(pageNumber).catch(() => ({ width: 0, height: 0, dpi: undefined }));
          yield {
            pageNumber,
            width: size.width,
            height: size.height,
            dpi: size.dpi,
            markdown: "",
            blocks: [],
            tokenCount: 0,
            truncated: false,
            timings: { text: round(entry.ms) },
            warnings: [`page ${pageNumber} has no text: ${entry.error}`],
            error: entry.error,
          };
          continue;
        }
        const size = await pages.pixelSize(pageNumber);
        const warnings: string[] = [];
        let markdown = "";
        let blocks: Block[] = [];
        if (entry.text) {
          const layout = layoutBlocks(entry.blocks, levels);
          // Points → page pixels: the same space the rendered page (and the model's boxes) use.
          const sx = size.width / entry.text.width;
          const sy = size.height / entry.text.height;
          const px = (b: { x0: number; y0: number; x1: number; y1: number }): [number, number, number, number] => [
            Math.round(b.x0 * sx),
            Math.round(b.y0 * sy),
            Math.round(b.x1 * sx),
            Math.round(b.y1 * sy),
          ];
          // the blocks themselves (each carries its Markdown), their boxes now in page pixels
          blocks = layout.blocks.map((entry) => {
            const { bboxPoints, linePoints } = entry;
            const block: Block & Partial<typeof entry> = entry;
            delete block.bboxPoints;
            delete block.linePoints;
            return Object.assign(block, { bbox: px(bboxPoints), lines: linePoints.map((l) => ({ text: l.text, bbox: px(l.box) })) });
          });
          markRunningHeaders(blocks, size.height);
          markdown = pageMarkdown(blocks);
          if (blocks.length === 0 && pages.kind === "pdf") {
            warnings.push(`page ${pageNumber} has no text layer (scanned?); use --engine model to recognise it`);
          }
        }
        const page: DecodedPage = {
          pageNumber,
          width: size.width,
          height: size.height,
          dpi: size.dpi,
          markdown,
          blocks,
          tokenCount: 0,
          truncated: false,
          timings: { text: round(entry.ms), layout: round(performance.now() - started) },
          warnings,
        };
        yield page;
      }
    },
    async close() {},
  };
}

/**
 * Running headers, footers and page numbers of a text-layer page, told from its lines' geometry (layout/page.ts
 * marginRoles): a block whose lines are all margin lines takes their role.
 */
export function markRunningHeaders(blocks: Block[], pageHeight: number): void {
  const lines = blocks.flatMap((b, k) => (b.lines ?? []).map((l) => ({ block: k, line: l })));
  const boxes = lines.map(
    ({
      line: {
        bbox: [xMin, yMin, xMax, yMax],
      },
    }) => ({ xMin, yMin, xMax, yMax }),
  );
  const roles = marginRoles(
    boxes,
    lines.map((l) => l.line.text),
    pageHeight,
    lines.map((l) => blocks[l.block]!.type === "heading"),
  );
  blocks.forEach((block, k) => {
    const own = lines.map((l, i) => (l.block === k ? roles.get(i) : null)).filter((r) => r !== null);
    if (own.length && own.every((r) => r !== undefined))
      block.type = own.every((r) => r === "page-number") ? "page-number" : own.find((r) => r !== "page-number")!;
  });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

registerEngine({
  name: "text",
  description: "the PDF's own text layer (born-digital PDFs; no model)",
  async create() {
    return createTextEngine();
  },
});
