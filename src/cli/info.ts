// `ocr info`: page count, page sizes, text-layer presence, metadata and outline of one document.
import { isInputError, openDocument, type OpenedDocument, type OutlineEntry } from "../input/index.js";
import { addOptions } from "./options.js";
import { examples, registerCommand } from "./registry.js";

export interface DocumentInfo {
  source: string;
  kind: string;
  pageCount: number;
  pages: { page: number; width: number; height: number; unit: "pt" | "px"; hasTextLayer: boolean }[];
  metadata: Record<string, string | number | boolean>;
  outline: OutlineEntry[];
}

export async function describeDocument(document: OpenedDocument): Promise<DocumentInfo> {
  const pages: DocumentInfo["pages"] = [];
  for (let page = 1; page <= document.pageCount; page++) {
    const size = await document.pageSize(page);
    const text = await document.textContent(page);
    const hasTextLayer = !!text && text.runs.some((run) => run.text.trim().length > 0);
    pages.push({ page, width: round2(size.width), height: round2(size.height), unit: size.unit, hasTextLayer });
  }
  const { info, outline } = await document.metadata();
  return { source: document.source, kind: document.kind, pageCount: document.pageCount, pages, metadata: info, outline };
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

function formatOutline(entries: OutlineEntry[], depth = 0): string[] {
  return entries.flatMap((e) => [`${"  ".repeat(depth + 1)}- ${e.title}`, ...formatOutline(e.children, depth + 1)]);
}

export function formatInfo(info: DocumentInfo): string {
  const lines = [`${info.source}`, `  type: ${info.kind}`, `  pages: ${info.pageCount}`];
  // Runs of equal-sized pages collapse to one line: most documents have one page size.
  let start = 0;
  const pages = info.pages;
  for (let i = 1; i <= pages.length; i++) {
    const a = pages[start]!;
    const b = pages[i];
    if (b && b.width === a.width && b.height === a.height && b.hasTextLayer === a.hasTextLayer) continue;
    const range = i - 1 === start ? `page ${a.page}` : `pages ${a.page}-${pages[i - 1]!.page}`;
    lines.push(`  ${range}: ${a.width} x ${a.height} ${a.unit}, ${a.hasTextLayer ? "text layer" : "no text layer"}`);
    start = i;
  }
  const meta = Object.entries(info.metadata);
  if (meta.length) lines.push("  metadata:", ...meta.map(([k, v]) => `    ${k}: ${v}`));
  if (info.outline.length) lines.push("  outline:", ...formatOutline(info.outline, 1));
  return lines.join("\n") + "\n";
}

registerCommand({
  name: "info",
  order: 30,
  register(program, context) {
    const command = program
      .command("info")
      .description("page count, page sizes, text layer per page, metadata and outline")
      .argument("<doc>", "a PDF or image file");
    addOptions(command, ["json", "password"])
      .addHelpText("after", examples([["ocr info report.pdf --json | jq .pageCount", "page count of a PDF"]]))
      .action(async (doc: string, options: { json?: boolean; password?: string }) => {
        let document: OpenedDocument | undefined;
        try {
          document = await openDocument(doc, { password: options.password });
          const info = await describeDocument(document);
          context.stdout.write(options.json ? JSON.stringify(info, null, 2) + "\n" : formatInfo(info));
        } catch (error) {
          if (!isInputError(error)) throw error;
          context.stderr.write(`ocr: ${doc}: ${error.message}\n`);
          context.exitCode = 1;
        } finally {
          await document?.close();
        }
      });
  },
});
