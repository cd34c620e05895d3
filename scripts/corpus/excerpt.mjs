// Copies some pages of a PDF into a new small PDF (pdf-lib), for test fixtures with provenance.
// Usage: node scripts/corpus/excerpt.mjs IN.pdf OUT.pdf 5,6,7,8
import fs from "node:fs";
import { PDFDocument } from "pdf-lib";

const [input, output, list] = process.argv.slice(2);
if (!list) throw new Error("usage: excerpt.mjs IN.pdf OUT.pdf PAGES (1-based, comma-separated)");
const src = await PDFDocument.load(fs.readFileSync(input));
const out = await PDFDocument.create();
const pages = await out.copyPages(
  src,
  list.split(",").map((n) => Number(n) - 1),
);
for (const p of pages) out.addPage(p);
fs.writeFileSync(output, await out.save({ useObjectStreams: true }));
process.stderr.write(`${output}: ${pages.length} pages, ${fs.statSync(output).size} bytes\n`);
