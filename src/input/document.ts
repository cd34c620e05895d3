// openDocument: read a path or bytes, recognise the content, hand back a uniform page source.
import { readFile, stat } from "node:fs/promises";
import { describeUnknown, sniffKind } from "./detect.js";
import { InputError } from "./errors.js";
import { openImage } from "./image.js";
import { openPdf } from "./pdf.js";
import type { OpenedDocument, OpenOptions } from "./types.js";

/** Reads a file into memory, turning filesystem failures into InputErrors that name the file. */
export async function readDocumentBytes(filePath: string): Promise<Buffer> {
  try {
    const info = await stat(filePath);
    if (info.isDirectory()) throw new InputError("UNSUPPORTED", "is a folder, not a document", filePath);
    return await readFile(filePath);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new InputError("ENOENT", "no such file", filePath, { cause: error });
    if (code === "EACCES" || code === "EPERM") throw new InputError("EACCES", "permission denied", filePath, { cause: error });
    throw new InputError("EACCES", `cannot read: ${(error as Error).message}`, filePath, { cause: error });
  }
}

/**
 * Opens a PDF or image. `source` is a file path, or the document's bytes (then `options.name`
 * names it in errors). The type comes from the content, never the file name.
 * Throws InputError with a stable `code` for every unusable input.
 */
export async function openDocument(source: string | Uint8Array, options: OpenOptions = {}): Promise<OpenedDocument> {
  const name = typeof source === "string" ? source : (options.name ?? "-");
  const bytes = typeof source === "string" ? await readDocumentBytes(source) : source;
  if (bytes.length === 0) throw new InputError("EMPTY", "empty file (0 bytes)", name);
  const kind = sniffKind(bytes.subarray(0, 1024));
  if (!kind) throw new InputError("UNSUPPORTED", describeUnknown(bytes.subarray(0, 1024)), name);
  if (kind === "pdf")
    return openPdf(bytes, name, { password: options.password, pageTimeoutMs: options.pageTimeoutMs, signal: options.signal });
  return openImage(bytes, kind, name);
}
