// `ocr render`: writes each page as the exact RGB pixels the model is given before resizing.
import path from "node:path";
import { loadSharp } from "../input/sharp.js";
import { formatPageSelection, openDocument, resolvePages, type PageRange } from "../input/index.js";
import { isInputError } from "../input/index.js";
import { writeFileAtomic } from "../output/atomic.js";
import { fixationOverlay, readFixations, type FixationRecord } from "../app/fixations.js";
import { buildOption } from "./options.js";
import { examples, registerCommand } from "./registry.js";

interface RenderOptions {
  outputDir?: string;
  dpi: number;
  pages?: PageRange[];
  password?: string;
  maxPixels: number;
  fixations?: string;
}

registerCommand({
  name: "render",
  order: 20,
  register(program, context) {
    program
      .command("render")
      .description("write page-0001.png, … : the pixels the model sees (before resizing), for debugging")
      .argument("<doc>", "a PDF or image file")
      .addOption(buildOption("renderOutputDir").makeOptionMandatory())
      .addOption(buildOption("dpi"))
      .addOption(buildOption("pages"))
      .addOption(buildOption("password"))
      .addOption(buildOption("maxPixels"))
      .addOption(buildOption("overlayFixations"))
      .addHelpText(
        "after",
        examples([
          ["ocr render paper.pdf -o pages/", "all pages at 150 DPI"],
          ["ocr render paper.pdf -o pages/ --dpi 200 --pages 1-2", "first two pages at 200 DPI"],
          ["ocr parse paper.pdf --fixations f.jsonl && ocr render paper.pdf -o look/ --fixations f.jsonl", "where the model looked"],
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
            if (fixations) {
              const svg = fixationOverlay(fixations.filter((f) => f.page === pageNumber), page.width, page.height);
              image = sharp(await image.png().toBuffer()).composite([{ input: Buffer.from(svg) }]);
            }
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
