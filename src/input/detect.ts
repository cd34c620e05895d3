// Content sniffing: decide what a document is from its first bytes, never from its file name.

export type DocumentKind = "pdf" | "png" | "jpeg" | "webp" | "tiff" | "gif" | "avif";

/** Bytes needed by sniffKind; reading this many from the file head is enough. */
export const SNIFF_BYTES = 1024;

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)));
}

/**
 * Returns the kind of document the bytes hold, or undefined when it is none we support.
 * PDF readers accept "%PDF-" anywhere in the first 1024 bytes (some files carry junk before it).
 */
export function sniffKind(head: Uint8Array): DocumentKind | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "jpeg";
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return "webp";
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return "tiff";
  // BigTIFF
  if (startsWith(head, [0x49, 0x49, 0x2b, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2b])) return "tiff";
  const gif = ascii(head, 0, 6);
  if (gif === "GIF87a" || gif === "GIF89a") return "gif";
  if (ascii(head, 4, 8) === "ftyp") {
    // ISO-BMFF: the major brand and compatible brands list say whether this is AVIF.
    const boxSize = ((head[0] ?? 0) << 24) | ((head[1] ?? 0) << 16) | ((head[2] ?? 0) << 8) | (head[3] ?? 0);
    const brands = ascii(head, 8, Math.min(Math.max(boxSize, 16), head.length));
    if (/avif|avis/.test(brands)) return "avif";
  }
  const text = ascii(head, 0, SNIFF_BYTES);
  if (text.includes("%PDF-")) return "pdf";
  return undefined;
}

/** A short human description of bytes we could not classify, for error messages. */
export function describeUnknown(head: Uint8Array): string {
  if (head.length === 0) return "empty file";
  const sample = head.subarray(0, 512);
  let printable = 0;
  for (const b of sample) if (b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127) || b >= 128) printable++;
  if (printable === sample.length) return "looks like a text file, not a PDF or image";
  return "unrecognised binary content (not a PDF, PNG, JPEG, WebP, TIFF, GIF or AVIF)";
}
