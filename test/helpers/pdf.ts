// Test-only PDF writers: tiny one-page PDFs, plain or encrypted (RC4, standard security handler R2).
import { createHash } from "node:crypto";

/** The padding string of the PDF standard security handler (ISO 32000-1, 7.6.3.3). */
const PAD = Buffer.from("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A", "hex");

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

function md5(...parts: Buffer[]): Buffer {
  const hash = createHash("md5");
  for (const p of parts) hash.update(p);
  return hash.digest();
}

function padPassword(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, "latin1"), PAD]).subarray(0, 32);
}

interface PdfOptions {
  /** Page text drawn in Helvetica. */
  text?: string;
  /** The page's content stream instead (its font is /F1, Helvetica); `text` is then only the document's ID. */
  content?: string;
  /** MediaBox size in points. */
  width?: number;
  height?: number;
  /** Encrypts with this user password (owner password "owner"). */
  userPassword?: string;
}

/** Builds a valid one-page PDF with a correct xref table. */
export function makePdf(options: PdfOptions = {}): Buffer {
  const width = options.width ?? 612;
  const height = options.height ?? 792;
  const text = (options.text ?? "Hello from a generated PDF").replace(/[()\\]/g, "\\$&");
  let content: Buffer = Buffer.from(options.content ?? `BT /F1 24 Tf 72 ${height - 96} Td (${text}) Tj ET\n`, "latin1");
  const id = md5(Buffer.from(`${text}${width}x${height}${options.userPassword ?? ""}`));
  let encryptDict = "";
  if (options.userPassword !== undefined) {
    const permissions = -44;
    const ownerKey = md5(padPassword("owner")).subarray(0, 5);
    const O = rc4(ownerKey, padPassword(options.userPassword));
    const p = Buffer.alloc(4);
    p.writeInt32LE(permissions);
    const fileKey = md5(padPassword(options.userPassword), O, p, id).subarray(0, 5);
    const U = rc4(fileKey, PAD);
    const objectNumber = 4;
    const objectKey = md5(fileKey, Buffer.from([objectNumber & 255, (objectNumber >> 8) & 255, 0, 0, 0])).subarray(0, 10);
    content = rc4(objectKey, content);
    encryptDict = `<< /Filter /Standard /V 1 /R 2 /O <${O.toString("hex")}> /U <${U.toString("hex")}> /P ${permissions} >>`;
  }
  const objects: Buffer[] = [
    Buffer.from("<< /Type /Catalog /Pages 2 0 R >>"),
    Buffer.from("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
    Buffer.from(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    ),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from("\nendstream")]),
    Buffer.from("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"),
  ];
  if (encryptDict) objects.push(Buffer.from(encryptDict));
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  const offsets: number[] = [];
  let length = chunks[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    chunks.push(chunk);
    length += chunk.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("") +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encryptDict ? ` /Encrypt ${objects.length} 0 R` : ""} /ID [<${id.toString("hex")}> <${id.toString("hex")}>] >>\n` +
    `startxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(xref));
  return Buffer.concat(chunks);
}
