// Writes a document's results (Markdown, JSON) atomically and answers --resume's "is it up to date?".
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { OutputFormat } from "./paths.js";
import { writeFilesAtomic } from "./atomic.js";
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
 * Writes the requested formats as one commit: NAME.md and NAME.json (or the hidden key file) appear
 * together or not at all, so a full disk never leaves a Markdown file without its JSON. A failure is an
 * OutputWriteError naming the file.
 */
export async function writeDocumentOutputs(
  record: DocumentRecord,
  outputDir: string,
  stem: string,
  formats: readonly OutputFormat[],
): Promise<string[]> {
  const files: { file: string; data: string }[] = [];
  if (formats.includes("md")) files.push({ file: outputFileFor(outputDir, stem, "md"), data: renderDocumentMarkdown(record) });
  if (formats.includes("json")) files.push({ file: outputFileFor(outputDir, stem, "json"), data: renderDocumentJson(record) });
  // md only: the key file says which source the Markdown came from (for --resume and for name clashes)
  else
    files.push({ file: resumeKeyFileFor(outputDir, stem), data: `${record.resumeKey}\n${record.source.sha256}\t${record.source.path}\n` });
  await writeFilesAtomic(files);
  return files.filter((f) => !f.file.endsWith(".ocr-key")).map((f) => f.file);
}

/** The source an existing output was made from, or undefined when no output of that stem exists. */
async function existingSource(
  outputDir: string,
  stem: string,
  formats: readonly OutputFormat[],
): Promise<{ sha256?: string; path?: string } | undefined> {
  const exists = async (f: string) => (await stat(f).catch(() => undefined)) !== undefined;
  const json = outputFileFor(outputDir, stem, "json");
  if (await exists(json)) {
    try {
      const record = JSON.parse(await readFile(json, "utf8")) as Partial<DocumentRecord>;
      return { sha256: record.source?.sha256, path: record.source?.path };
    } catch {
      return {};
    }
  }
  const key = await readFile(resumeKeyFileFor(outputDir, stem), "utf8").catch(() => undefined);
  if (key !== undefined) {
    const [sha256, source] = (key.split("\n")[1] ?? "").split("\t");
    // a key file from before sources were recorded: take it as this document's
    return sha256 ? { sha256, path: source } : undefined;
  }
  for (const format of formats) if (await exists(outputFileFor(outputDir, stem, format))) return {};
  return undefined;
}

/**
 * The stem a document's outputs go to: `stem` unless its outputs there were made from another document
 * (other bytes under another path: two runs into one -o with inputs of one base name); then the first
 * free or own `stem-2`, `stem-3`, … with `clash` set to the file that would have been overwritten.
 * The same path with new bytes is the same document edited, and overwrites as before.
 */
export async function claimOutputStem(
  outputDir: string,
  stem: string,
  formats: readonly OutputFormat[],
  source: { path: string; sha256: string },
): Promise<{ stem: string; clash?: { file: string; source: string } }> {
  let clash: { file: string; source: string } | undefined;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stem : `${stem}-${n}`;
    const existing = await existingSource(outputDir, candidate, formats);
    const own =
      existing === undefined || existing.sha256 === source.sha256 || (existing.path !== undefined && existing.path === source.path);
    if (own) return clash ? { stem: candidate, clash } : { stem: candidate };
    clash ??= {
      file: outputFileFor(outputDir, stem, formats.includes("md") ? "md" : "json"),
      source: existing.path ?? "an unknown document",
    };
  }
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
    return (await readFile(resumeKeyFileFor(outputDir, stem), "utf8")).split("\n")[0]!.trim() === resumeKey;
  } catch {
    return false;
  }
}
