// Builds training pages from real born-digital PDFs of Debian documentation packages (fetched by fetch.mjs), in the
// synthetic generator's on-disk form, so scripts/train/extract-lines.mjs, data.py and train.py read them unchanged:
//   OUT/{train,val}/doc-NNNNN.json         {source: "PKG:PATH", package, path, split, pages: [truth page + pdfPage]}
//   OUT/{train,val}/doc-NNNNN-pK.png       the page image (grey)
//   OUT/{train,val}/doc-NNNNN.raster.json  {pages: [{png, width, height, scaleX, scaleY, rotate?, renderer, dpi, scan}]}
// Usage: node scripts/corpus/build.mjs --src DATA/debian --out DATA/corpus [--packages a,b,...]
// (--src and --out default to $OCR_DATA/debian and $OCR_DATA/corpus when OCR_DATA is set)
//        [--docs-per-package 12] [--pages-per-doc 10] [--scan 0.35] [--seed 1] [--no-render] [--latin]
// --latin keeps pages with letters the model's vocabulary lacks but any Latin script has (Polish, Czech, ...).
// Documents of the dev benchmark (packages.mjs isBenchDocument) and reserved packages are never read; training
// documents split into train / val by document (packages.mjs splitOf). Dropped pages are counted by reason in
// OUT/build-report.json.
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { dataDefault, requireData } from "../data-dir.mjs";
import { assertAllowed, DENY, docKey, splitOf } from "./packages.mjs";
import { documentFurniture, openPdf, pageTruth, readPage } from "./truth.mjs";
import { renderDocument } from "./render.mjs";

const args = {
  src: dataDefault("debian"),
  out: dataDefault("corpus"),
  packages: null,
  docsPerPackage: 12,
  pagesPerDoc: 10,
  scan: 0.35,
  seed: 1,
  render: true,
  maxMb: 40,
  latin: false,
};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--src") args.src = process.argv[++i];
  else if (a === "--out") args.out = process.argv[++i];
  else if (a === "--packages") args.packages = process.argv[++i].split(",");
  else if (a === "--docs-per-package") args.docsPerPackage = Number(process.argv[++i]);
  else if (a === "--pages-per-doc") args.pagesPerDoc = Number(process.argv[++i]);
  else if (a === "--scan") args.scan = Number(process.argv[++i]);
  else if (a === "--seed") args.seed = Number(process.argv[++i]);
  else if (a === "--no-render") args.render = false;
  else if (a === "--latin") args.latin = true;
  else throw new Error(`build.mjs: unknown option ${a}`);
}
requireData(args.src, "--src", "debian");
requireData(args.out, "--out", "corpus");

/** The package's PDFs (paths inside the package), sorted. */
function pdfsOf(pkgDir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && /\.pdf$/i.test(e.name)) out.push(path.relative(pkgDir, p));
    }
  };
  walk(pkgDir);
  return out.sort();
}

/** Evenly spread page numbers: up to k of 1..n. */
function spread(n, k) {
  if (n <= k) return Array.from({ length: n }, (_, i) => i + 1);
  return Array.from({ length: k }, (_, i) => 1 + Math.round((i * (n - 1)) / (k - 1)));
}

const packages = (args.packages ?? fs.readdirSync(args.src).filter((d) => fs.existsSync(path.join(args.src, d, ".done"))))
  .filter((p) => {
    if (DENY.includes(p)) {
      process.stderr.write(`${p}: reserved for evaluation, skipped\n`);
      return false;
    }
    return true;
  })
  .map(assertAllowed)
  .sort();
const report = {
  packages: {},
  documents: { train: 0, val: 0 },
  pages: { train: 0, val: 0 },
  bench_documents_skipped: 0,
  dropped: {},
  kinds: {},
  renderers: {},
  scan: 0,
  docs_without_pages: 0,
};
const counters = { train: 0, val: 0 };
for (const split of ["train", "val"]) {
  fs.mkdirSync(path.join(args.out, split), { recursive: true });
  counters[split] = fs.readdirSync(path.join(args.out, split)).filter((f) => /^doc-\d+\.json$/.test(f)).length;
}
const done = new Set();
for (const split of ["train", "val"])
  for (const f of fs.readdirSync(path.join(args.out, split)).filter((f) => /^doc-\d+\.json$/.test(f)))
    done.add(JSON.parse(fs.readFileSync(path.join(args.out, split, f), "utf8")).source);

// candidates of every package first, then documents taken round-robin across packages (one each in turn), so a
// build stopped early still covers every package
const queues = [];
for (const pkg of packages) {
  const pkgDir = path.join(args.src, pkg);
  const all = pdfsOf(pkgDir);
  const keyed = all.map((p) => ({ rel: p, key: docKey(pkg, p) }));
  const bench = keyed.filter((d) => splitOf(d.key) === "bench");
  report.bench_documents_skipped += bench.length;
  // a deterministic shuffle (sha1 of seed + key)
  const candidates = keyed
    .filter((d) => splitOf(d.key) !== "bench")
    .map((d) => ({ ...d, order: createHash("sha1").update(`${args.seed}:${d.key}`).digest("hex") }))
    .sort((a, b) => (a.order < b.order ? -1 : 1));
  report.packages[pkg] = { pdfs: all.length, bench: bench.length, documents: 0, pages: 0 };
  queues.push({ pkg, pkgDir, candidates, used: 0 });
}
for (let round = 0; queues.some((q) => q.used < args.docsPerPackage && q.candidates.length); round++) {
  for (const q of queues) {
    while (q.used < args.docsPerPackage && q.candidates.length) {
      if (await takeDocument(q, q.candidates.shift())) {
        q.used++;
        break;
      }
    }
  }
}

/** Reads, judges and renders one document; false when it gives no page (too small, too big, unreadable, all dropped). */
async function takeDocument({ pkg, pkgDir }, d) {
  const stat = report.packages[pkg];
  const file = path.join(pkgDir, d.rel);
  const size = fs.statSync(file).size;
  if (size > args.maxMb * 1e6 || size < 20e3) return false;
  if (done.has(d.key)) return true;
  let doc;
  try {
    doc = await openPdf(file);
  } catch {
    count("unreadable-document");
    return false;
  }
  try {
    if (doc.numPages < 2) return false;
    const chosen = spread(doc.numPages, args.pagesPerDoc);
    // furniture is judged over the chosen pages and up to 6 more of the document
    const extra = spread(doc.numPages, Math.min(doc.numPages, args.pagesPerDoc + 6)).filter((n) => !chosen.includes(n));
    const fontCache = new Map();
    const read = new Map();
    for (const n of [...chosen, ...extra].sort((a, b) => a - b)) {
      try {
        read.set(n, await readPage(doc, n, fontCache));
      } catch {
        /* a broken page: counted below when chosen */
      }
    }
    const order = [...read.keys()];
    const furniture = documentFurniture(order.map((n) => read.get(n)));
    const pages = [];
    for (const n of chosen) {
      const page = read.get(n);
      if (!page) {
        count("unreadable-page");
        continue;
      }
      let t;
      try {
        t = pageTruth(page, furniture[order.indexOf(n)], { latin: args.latin });
      } catch (e) {
        t = { drop: "truth-error" };
        process.stderr.write(`${d.key} p${n}: ${e.message}\n`);
      }
      if (t.drop) {
        count(t.drop);
        continue;
      }
      pages.push({ ...t, pdfPage: n });
    }
    if (!pages.length) {
      report.docs_without_pages++;
      return false;
    }
    const split = splitOf(d.key);
    const name = `doc-${String(counters[split]++).padStart(5, "0")}`;
    const dir = path.join(args.out, split);
    const truth = { source: d.key, package: pkg, path: "/" + d.rel, split, pages };
    fs.writeFileSync(path.join(dir, name + ".json.tmp"), JSON.stringify(truth));
    fs.renameSync(path.join(dir, name + ".json.tmp"), path.join(dir, name + ".json"));
    // the .raster.json last: extract-lines.mjs keys on it; a page a renderer draws in another shape is left out
    if (args.render && !(await renderDocument(file, truth, dir, name, { seed: args.seed, scan: args.scan, report }))) return false;
    stat.documents++;
    stat.pages += truth.pages.length;
    report.documents[split]++;
    report.pages[split] += truth.pages.length;
    for (const p of truth.pages) for (const [k, v] of Object.entries(p.kinds)) report.kinds[k] = (report.kinds[k] ?? 0) + v;
    process.stderr.write(`${split}/${name} ${d.key}: ${truth.pages.length}/${chosen.length} pages\n`);
    fs.writeFileSync(path.join(args.out, "build-report.json"), JSON.stringify(report, null, 1));
    return true;
  } finally {
    await doc.destroy();
  }
}
fs.writeFileSync(path.join(args.out, "build-report.json"), JSON.stringify(report, null, 1));
process.stderr.write(JSON.stringify(report) + "\n");

function count(reason) {
  report.dropped[reason] = (report.dropped[reason] ?? 0) + 1;
}
