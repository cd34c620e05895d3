#!/usr/bin/env node
// Benchmark: `ocr parse --engine text` vs poppler's pdftotext — character error rate per document and ms/page.
// CER = Levenshtein distance / reference length after NFKC and whitespace collapsing, page by page;
// "order-free" is the same after sorting each page's words (it separates reading order from wrong text).
// Usage: node scripts/bench-text.mjs [pdf-or-folder ...]   (default: ../shared/data/real/debian next to the repo)
// Reference text: FILE.txt beside the PDF when present (pdftotext output), else pdftotext is run here.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { editDistance, normaliseForCer } from "./cer.mjs";
import { pdfsIn } from "./bench-common.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const defaultData = path.resolve(repo, "../shared/data/real/debian");
const args = process.argv.slice(2);
const inputs = args.length ? args : [defaultData];
const pdfs = pdfsIn(inputs);
if (pdfs.length === 0) {
  console.error("bench-text: no PDFs found");
  process.exit(2);
}

const work = mkdtempSync(path.join(tmpdir(), "ocr-bench-text-"));
const rows = [];
try {
  for (const pdf of pdfs) {
    const base = path.basename(pdf, ".pdf");
    // pdftotext reference (and its time, run here so both are timed on this machine).
    const refFile = path.join(work, `${base}.ref.txt`);
    let started = performance.now();
    execFileSync("pdftotext", [pdf, refFile]);
    const popplerMs = performance.now() - started;
    const shipped = pdf.replace(/\.pdf$/, ".txt");
    const reference = readFileSync(existsSync(shipped) ? shipped : refFile, "utf8");
    const out = path.join(work, base);
    started = performance.now();
    execFileSync(process.execPath, [
      path.join(repo, "bin/ocr.js"),
      "parse",
      pdf,
      "--engine",
      "text",
      "-o",
      out,
      "--format",
      "json",
      "--quiet",
    ]);
    const oursMs = performance.now() - started;
    const record = JSON.parse(readFileSync(path.join(out, `${base}.json`), "utf8"));
    // pdftotext ends every page with a form feed; compare page by page (a far cheaper alignment).
    const refPages = reference.split("\f");
    let errors = 0;
    let refChars = 0;
    let orderFreeErrors = 0;
    let worst = { page: 0, cer: 0 };
    for (const page of record.pages) {
      const hyp = normaliseForCer(page.blocks.map((b) => (b.marker ? `${b.marker} ` : "") + b.text).join("\n"));
      const ref = normaliseForCer(refPages[page.page - 1] ?? "");
      const d = editDistance(hyp, ref);
      errors += d;
      refChars += ref.length;
      // The same words in a different order cost a lot in CER; sorting words first shows how much
      // of the error is reading order (tables, indexes, formulas) rather than wrong characters.
      const sortWords = (t) => t.split(" ").sort().join(" ");
      orderFreeErrors += editDistance(sortWords(hyp), sortWords(ref));
      const cer = ref.length ? d / ref.length : hyp.length ? 1 : 0;
      if (cer > worst.cer) worst = { page: page.page, cer };
    }
    const pages = record.pages.length;
    rows.push({
      base,
      pages,
      cer: refChars ? errors / refChars : 0,
      orderFree: refChars ? orderFreeErrors / refChars : 0,
      worst,
      oursMs: oursMs / pages,
      popplerMs: popplerMs / pages,
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
console.log(
  `${pad("document", 44)} ${padl("pages", 5)} ${padl("CER", 7)} ${padl("order-free", 10)} ${padl("worst page", 14)} ${padl("ocr ms/pg", 10)} ${padl("pdftotext ms/pg", 16)}`,
);
for (const r of rows) {
  console.log(
    `${pad(r.base, 44)} ${padl(r.pages, 5)} ${padl((r.cer * 100).toFixed(2) + "%", 7)} ${padl((r.orderFree * 100).toFixed(2) + "%", 10)} ${padl(`p${r.worst.page} ${(r.worst.cer * 100).toFixed(1)}%`, 14)} ${padl(r.oursMs.toFixed(1), 10)} ${padl(r.popplerMs.toFixed(1), 16)}`,
  );
}
const over = rows.filter((r) => r.cer > 0.02);
console.log(over.length ? `over the 2 % target: ${over.map((r) => r.base).join(", ")}` : "every document within the 2 % target");
process.exitCode = over.length ? 1 : 0;
