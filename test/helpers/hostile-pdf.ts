// Pathological PDFs for reliability tests: a port of ../shared/tools/hostile/rawpdf.py (same kinds, same
// bytes for the same arguments) so the tests need Node alone. Each is small and built to hurt a parser.
import { deflateSync } from "node:zlib";

function build(objs: Map<number, Buffer>, root = 1): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = parts[0]!.length;
  const push = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  const offsets = new Map<number, number>();
  for (const n of [...objs.keys()].sort((a, b) => a - b)) {
    offsets.set(n, length);
    push(Buffer.from(`${n} 0 obj\n`, "latin1"));
    push(objs.get(n)!);
    push(Buffer.from("\nendobj\n", "latin1"));
  }
  const xref = length;
  const size = Math.max(...objs.keys()) + 1;
  let table = `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) {
    table += offsets.has(n) ? `${String(offsets.get(n)).padStart(10, "0")} 00000 n \n` : "0000000000 65535 f \n";
  }
  table += `trailer\n<< /Size ${size} /Root ${root} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(table, "latin1"));
  return Buffer.concat(parts);
}

/** A stream object: the dictionary `d` (ending in ">>") gets the /Length of `content`. */
function stream(d: string, content: Buffer | string): Buffer {
  const body = typeof content === "string" ? Buffer.from(content, "latin1") : content;
  return Buffer.concat([
    Buffer.from(`${d.slice(0, -2)} /Length ${body.length} >>\nstream\n`, "latin1"),
    body,
    Buffer.from("\nendstream", "latin1"),
  ]);
}

const b = (s: string) => Buffer.from(s, "latin1");
const FONT = b("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
const TEXT = "BT /F1 24 Tf 72 700 Td (Hello from a pathological PDF) Tj ET";
const PAGE = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>";

export type HostileKind = "deepq" | "xobjchain" | "xobjcycle" | "pagecycle" | "deeparray" | "countlie" | "countlie-mid" | "flatebomb";

/**
 * `deepq` N: `q` nested N deep; `xobjchain` N: Form XObjects nested N deep (the last one draws "bottom");
 * `xobjcycle`: a Form that draws itself; `pagecycle`: a page tree whose second kid is itself; `deeparray` N:
 * an array nested N deep in the page dictionary; `countlie` / `countlie-mid`: /Count 2^31-1 / 10^6 over one
 * page; `flatebomb` N: a content stream that inflates to N bytes of spaces (rawpdf.py: 2^30).
 */
export function hostilePdf(kind: HostileKind, n = 0): Buffer {
  const objs = new Map<number, Buffer>([[1, b("<< /Type /Catalog /Pages 2 0 R >>")]]);
  const onePage = () => objs.set(2, b("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"));
  switch (kind) {
    case "countlie":
    case "countlie-mid":
      objs.set(2, b(`<< /Type /Pages /Kids [3 0 R] /Count ${kind === "countlie" ? 2147483647 : 1000000} >>`));
      objs.set(3, b(PAGE)).set(4, stream("<< >>", TEXT)).set(5, FONT);
      break;
    case "deeparray":
      onePage();
      objs.set(3, b(`${PAGE.slice(0, -3)} /Deep ${"[".repeat(n)}${"]".repeat(n)} >>`));
      objs.set(4, stream("<< >>", TEXT)).set(5, FONT);
      break;
    case "deepq":
      onePage();
      objs
        .set(3, b(PAGE))
        .set(4, stream("<< >>", "q ".repeat(n) + TEXT + " Q".repeat(n)))
        .set(5, FONT);
      break;
    case "xobjchain":
      onePage();
      objs.set(
        3,
        b(
          "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X0 10 0 R >> >> /Contents 4 0 R >>",
        ),
      );
      objs.set(4, stream("<< >>", TEXT + " /X0 Do")).set(5, FONT);
      for (let i = 0; i < n; i++) {
        const last = i + 1 >= n;
        const next = last ? "BT /F1 12 Tf 72 72 Td (bottom) Tj ET" : `/X${i + 1} Do`;
        const res = last
          ? "/Resources << /Font << /F1 5 0 R >> >>"
          : `/Resources << /Font << /F1 5 0 R >> /XObject << /X${i + 1} ${11 + i} 0 R >> >>`;
        objs.set(10 + i, stream(`<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] ${res} >>`, next));
      }
      break;
    case "xobjcycle":
      onePage();
      objs.set(
        3,
        b(
          "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /X0 10 0 R >> >> /Contents 4 0 R >>",
        ),
      );
      objs.set(4, stream("<< >>", TEXT + " /X0 Do")).set(5, FONT);
      objs.set(
        10,
        stream(
          "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /X0 10 0 R >> >> >>",
          "0.5 0 0 0.5 10 10 cm /X0 Do",
        ),
      );
      break;
    case "pagecycle":
      objs.set(2, b("<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>"));
      objs.set(3, b(PAGE)).set(4, stream("<< >>", TEXT)).set(5, FONT);
      break;
    case "flatebomb": {
      const raw = deflateSync(Buffer.concat([Buffer.alloc(n || 2 ** 30, " "), b(TEXT)]), { level: 9 });
      onePage();
      objs.set(3, b(PAGE)).set(5, FONT);
      objs.set(4, Buffer.concat([b(`<< /Filter /FlateDecode /Length ${raw.length} >>\nstream\n`), raw, b("\nendstream")]));
      break;
    }
  }
  return build(objs);
}
