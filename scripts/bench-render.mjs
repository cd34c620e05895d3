#!/usr/bin/env node
// Benchmark: our PDF rasteriser (pdfjs-dist + @napi-rs/canvas) vs poppler's `pdftoppm -r 150`:
// mean absolute pixel difference and ms/page for both, side by side, on the same pages.
// Usage: node scripts/bench-render.mjs [--dpi 150] [--pages N] [pdf-or-folder ...]
//   default inputs: ../shared/data/real/debian next to the repo; default: first 8 pages of each PDF.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { pdfsIn } from "./bench-common.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
let dpi = 150;
let pageLimit = 8;
const inputs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--dpi") dpi = Number(args[++i]);
  else if (args[i] === "--pages") pageLimit = Number(args[++i]);
  else inputs.push(args[i]);
}
if (inputs.length === 0) inputs.push(path.resolve(repo, "../shared/data/real/debian"));
const pdfs = pdfsIn(inputs);

const { openDocument } = await import(path.join(repo, "dist/input/index.js"));

async function rgb(file) {
  return sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

const work = mkdtempSync(path.join(tmpdir(), "ocr-bench-render-"));
const rows = [];
try {
  for (const pdf of pdfs) {
    const base = path.basename(pdf, ".pdf");
    const doc = await openDocument(pdf);
    const pages = Math.min(pageLimit, doc.pageCount);
    // In-process rasterisation only (what `ocr parse` pays per page), warm after the first page.
    let renderMs = 0;
    for (let p = 1; p <= pages; p++) {
      const t = performance.now();
      await doc.renderPage(p, { dpi });
      renderMs += performance.now() - t;
    }
    await doc.close();
    // Both tools end to end, writing PNGs, process start included.
    const ours = path.join(work, `${base}-ours`);
    let t = performance.now();
    execFileSync(
      process.execPath,
      [path.join(repo, "bin/ocr.js"), "render", pdf, "-o", ours, "--dpi", String(dpi), "--pages", `1-${pages}`],
      {
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    const oursCliMs = performance.now() - t;
    const poppler = path.join(work, `${base}-pp`);
    t = performance.now();
    execFileSync("pdftoppm", ["-r", String(dpi), "-f", "1", "-l", String(pages), "-png", pdf, poppler]);
    const popplerMs = performance.now() - t;
    let diffSum = 0;
    let count = 0;
    let worst = 0;
    let sizeMismatch = 0;
    const digits = String(doc.pageCount).length;
    for (let p = 1; p <= pages; p++) {
      const a = await rgb(path.join(ours, `page-${String(p).padStart(4, "0")}.png`));
      const b = await rgb(`${poppler}-${String(p).padStart(digits, "0")}.png`);
      if (a.info.width !== b.info.width || a.info.height !== b.info.height) {
        sizeMismatch++;
        continue;
      }
      let sum = 0;
      for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i] - b.data[i]);
      diffSum += sum;
      count += a.data.length;
      worst = Math.max(worst, sum / a.data.length);
    }
    rows.push({
      base,
      pages,
      mad: count ? diffSum / count : NaN,
      worst,
      sizeMismatch,
      renderMs: renderMs / pages,
      oursCliMs: oursCliMs / pages,
      popplerMs: popplerMs / pages,
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
console.log(`render at ${dpi} DPI; MAD = mean |ours - pdftoppm| per channel (0-255)`);
console.log(
  `${pad("document", 40)} ${padl("pages", 5)} ${padl("MAD", 6)} ${padl("worst", 6)} ${padl("raster ms/pg", 12)} ${padl("ocr render ms/pg", 16)} ${padl("pdftoppm ms/pg", 14)}`,
);
for (const r of rows) {
  console.log(
    `${pad(r.base, 40)} ${padl(r.pages, 5)} ${padl(r.mad.toFixed(2), 6)} ${padl(r.worst.toFixed(2), 6)} ${padl(r.renderMs.toFixed(0), 12)} ${padl(r.oursCliMs.toFixed(0), 16)} ${padl(r.popplerMs.toFixed(0), 14)}${r.sizeMismatch ? `  (${r.sizeMismatch} pages differ in size)` : ""}`,
  );
}
const total = rows.reduce((a, r) => a + r.pages, 0);
const mean = (key) => rows.reduce((a, r) => a + r[key] * r.pages, 0) / total;
console.log(
  `${pad("all", 40)} ${padl(total, 5)} ${padl(mean("mad").toFixed(2), 6)} ${padl("", 6)} ${padl(mean("renderMs").toFixed(0), 12)} ${padl(mean("oursCliMs").toFixed(0), 16)} ${padl(mean("popplerMs").toFixed(0), 14)}`,
);
