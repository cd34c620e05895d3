// Writes a document's results (Markdown, JSON) atomically and answers --resume's "is it up to date?".
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { OutputFormat } from "../app/settings.js";
import { writeFileAtomic } from "./atomic.js";
import { documentMarkdown } from "./markdown.js";
import { outputFileFor } from "./paths.js";
import { DOCUMENT_SCHEMA, type DocumentRecord } from "./schema.js";

/** Where --resume keeps the key when NAME.json is not written (md-only runs). */
export function resumeKeyFileFor(outputDir: string, stem: string): string {
  const p = path.parse(stem);
  return path.join(outputDir, p.dir, `.${p.base}.ocr-key`);
}

export function renderDocumentMarkdown(record: DocumentRecord): string {
  return documentMarkdown(record.pages, record.source.pageCount);
}

export function renderDocumentJson(record: DocumentRecord): string {
  return JSON.stringify(record, null, 2) + "\n";
}

/**
 * Writes the requested formats; each file appears complete or not at all. The file carrying the
 * resume key (NAME.json, or the hidden key file) is written last, so a run interrupted between
 * files is redone by --resume rather than trusted.
 */
export async function writeDocumentOutputs(
  record: DocumentRecord,
  outputDir: string,
  stem: string,
  formats: readonly OutputFormat[],
): Promise<string[]> {
  const written: string[] = [];
  if (formats.includes("md")) {
    const file = outputFileFor(outputDir, stem, "md");
    await writeFileAtomic(file, renderDocumentMarkdown(record));
    written.push(file);
  }
  if (formats.includes("json")) {
    const file = outputFileFor(outputDir, stem, "json");
    await writeFileAtomic(file, renderDocumentJson(record));
    written.push(file);
  } else {
    await writeFileAtomic(resumeKeyFileFor(outputDir, stem), record.resumeKey + "\n");
  }
  return written;
}

/**
 * True when every requested output exists and was made from the same source bytes, settings and
 * model (the resume key matches). Any unreadable or foreign file means "not up to date".
 */
export async function outputsUpToDate(
  outputDir: string,
  stem: string,
  formats: readonly OutputFormat[],
  resumeKey: string,
): Promise<boolean> {
  try {
    for (const format of formats) {
      const info = await stat(outputFileFor(outputDir, stem, format));
      if (!info.isFile()) return false;
    }
    if (formats.includes("json")) {
      const record = JSON.parse(await readFile(outputFileFor(outputDir, stem, "json"), "utf8")) as Partial<DocumentRecord>;
      return record.schema === DOCUMENT_SCHEMA && record.resumeKey === resumeKey;
    }
    return (await readFile(resumeKeyFileFor(outputDir, stem), "utf8")).trim() === resumeKey;
  } catch {
    return false;
  }
}
