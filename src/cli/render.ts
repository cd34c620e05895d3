// `ocr render`: writes each page as the exact RGB pixels the model is given before resizing.
import path from "node:path";
import { loadSharp } from "../input/sharp.js";
import { formatPageSelection, openDocument, resolvePages, type PageRange } from "../input/index.js";
import { isInputError } from "../input/index.js";
import { writeFileAtomic } from "../output/atomic.js";
import { readFile } from "node:fs/promises";
import { fixationOverlay, readFixations, type FixationRecord } from "../engines/model/fixations.js";
import { parse } from "../app/parse.js";
import { layoutOverlay } from "../layout/overlay.js";
import type { DocumentRecord, PageRecord } from "../output/schema.js";
import { addOptions, type OptionName } from "./options.js";
import { examples, registerCommand } from "./registry.js";

interface RenderOptions {
  outputDir?: string;
  dpi: number;
  pages?: PageRange[];
  password?: string;
  maxPixels: number;
  fixations?: string;
  layout?: string | true;
  engine: string;
  model?: string;
}

/** The pages of an `ocr parse` NAME.json (any schema version with blocks), or why it cannot be read. */
export async function readLayoutRecord(file: string): Promise<PageRecord[]> {
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === "ENOENT" ? "no such file" : err.message);
  });
  let record: Partial<DocumentRecord>;
  try {
    record = JSON.parse(text) as Partial<DocumentRecord>;
  } catch {
    throw new Error("is not JSON");
  }
  if (typeof record.schema !== "string" || !record.schema.startsWith("ocr-document/") || !Array.isArray(record.pages))
    throw new Error("is not an `ocr parse` document (NAME.json)");
  return record.pages;
}

const RENDER_OPTIONS: OptionName[] = [
  "renderOutputDir",
  "dpi",
  "pages",
  "password",
  "maxPixels",
  "overlayFixations",
  "overlayLayout",
  "engine",
  "model",
];

registerCommand({
  name: "render",
  order: 20,
  register(program, context) {
    const command = program
      .command("render")
      .description("write page-0001.png, … : the pixels the model sees (before resizing), for debugging")
      .argument("<doc>", "a PDF or image file");
    addOptions(command, RENDER_OPTIONS)
      .addHelpText(
        "after",
        examples([
          ["ocr render paper.pdf -o pages/", "all pages at 150 DPI"],
          ["ocr render paper.pdf -o pages/ --dpi 200 --pages 1-2", "first two pages at 200 DPI"],
          ["ocr parse paper.pdf --fixations f.jsonl && ocr render paper.pdf -o look/ --fixations f.jsonl", "where the model looked"],
          ["ocr render paper.pdf -o layout/ --layout", "blocks, roles and reading order the model finds"],
          ["ocr render paper.pdf -o layout/ --layout ocr-out/paper.json", "…as a parse run wrote them"],
        ]),
      )
      .action(async (doc: string, options: RenderOptions) => {
        const outputDir = options.outputDir!;
        let fixations: FixationRecord[] | undefined;
        if (options.fixations) {
          try {
            fixations = await readFixations(options.fixations, doc);
          } catch (error) {
            context.stderr.write(`ocr: --fixations ${options.fixations}: ${(error as Error).message}\n`);
            context.exitCode = 2;
            return;
          }
        }
        let layout: PageRecord[] | undefined;
        if (typeof options.layout === "string") {
          try {
            layout = await readLayoutRecord(options.layout);
          } catch (error) {
            context.stderr.write(`ocr: --layout ${options.layout}: ${(error as Error).message}\n`);
            context.exitCode = 2;
            return;
          }
        } else if (options.layout) {
          // no file: parse the selected pages first (the blocks a parse run would write)
          const record = await parse(doc, {
            engine: options.engine,
            model: options.model,
            dpi: options.dpi,
            maxPixels: options.maxPixels,
            password: options.password,
            pages: options.pages ? formatPageSelection(options.pages) : undefined,
          }).catch((error: unknown) => {
            context.stderr.write(`ocr: ${(error as Error).message}\n`);
            context.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
            return undefined;
          });
          if (!record) return;
          layout = record.pages;
        }
        let document;
        try {
          document = await openDocument(doc, { password: options.password });
        } catch (error) {
          if (!isInputError(error)) throw error;
          context.stderr.write(`ocr: ${doc}: ${error.message}\n`);
          context.exitCode = 1;
          return;
        }
        try {
          const pages = resolvePages(options.pages, document.pageCount);
          if (pages.length === 0) {
            context.stderr.write(
              `ocr: ${doc}: no pages selected by --pages ${formatPageSelection(options.pages)} (document has ${document.pageCount})\n`,
            );
            context.exitCode = 1;
            return;
          }
          for (const pageNumber of pages) {
            if (context.signal.aborted) break;
            const page = await document.renderPage(pageNumber, { dpi: options.dpi, maxPixels: options.maxPixels });
            for (const warning of page.warnings) context.stderr.write(`ocr: ${doc}: warning: ${warning}\n`);
            const sharp = await loadSharp();
            let image = sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } });
            const overlays: string[] = [];
            if (fixations)
              overlays.push(
                fixationOverlay(
                  fixations.filter((f) => f.page === pageNumber),
                  page.width,
                  page.height,
                ),
              );
            if (layout) {
              const record = layout.find((p) => p.page === pageNumber);
              if (!record) context.stderr.write(`ocr: ${doc}: warning: --layout has no page ${pageNumber}\n`);
              else overlays.push(layoutOverlay(record.blocks, record.width, record.height, page.width, page.height));
            }
            if (overlays.length)
              image = sharp(await image.png().toBuffer()).composite(overlays.map((svg) => ({ input: Buffer.from(svg) })));
            const png = await image.png({ compressionLevel: 6 }).toBuffer();
            const target = path.join(outputDir, `page-${String(pageNumber).padStart(4, "0")}.png`);
            await writeFileAtomic(target, png);
            context.stdout.write(`${target}\n`);
          }
        } catch (error) {
          if (!isInputError(error)) throw error;
          context.stderr.write(`ocr: ${doc}: ${error.message}\n`);
          context.exitCode = 1;
        } finally {
          await document.close();
        }
      });
  },
});
