#!/usr/bin/env node
// How the reading depends on the resolution a page comes at: the dev benchmark's born-digital pages (recipe pdf150,
// none of those reserved for independent evaluation) rendered by pdftoppm at several resolutions, each set parsed in
// one `ocr parse --threads 1` batch and scored against the page's truth (scripts/cer.mjs pageScores, as `ocr bench
// parse --real` scores). The held-out pages come as images of unknown resolution (a 300-DPI scan among them), so a
// stage whose thresholds hold at 150 DPI only shows here as one column far from the others.
//
//   node scripts/bench-real/dpi-sweep.mjs build DIR [--dpi 100,150,200,300] [--every 2] [--scan] [--shared ../shared/data/real]
//   node scripts/bench-real/dpi-sweep.mjs run DIR [--bin bin/ocr.js] [--tesseract] [--reuse]
//
// `build` writes DIR/dpiN/ID.png for every other such page (--every) and DIR/pages.txt; with --scan each page is
// made scan-like as the dev set's scan300 pages are (grey, turned, blurred, noise, JPEG, a third binarised:
// degrade.mjs, seeded by the page id; its blur is in pixels, so a low resolution's scan is the poorer). `run` writes
// DIR/outN/ and prints each page's character errors at each resolution, then each resolution's total and CER; with
// --tesseract each image is also read by Tesseract 5 (`--psm 3`, the page's language, one thread: DIR/tessN/ID.txt,
// kept and reused) and its errors are printed beside ours; --reuse keeps our outputs of an earlier run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { probeArgs, tesseractOnce } from "../bench-common.mjs";
import { pageScores } from "../cer.mjs";
import { degrade } from "./degrade.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { command, dir, flag, option, list } = probeArgs(
  "node scripts/bench-real/dpi-sweep.mjs build|run DIR [--dpi 100,150,200,300] [--every 2] [--scan] [--bin bin/ocr.js] [--tesseract] [--reuse]",
);
const manifest = JSON.parse(readFileSync(path.join(root, "bench/real/manifest.json"), "utf8"));

async function build() {
  const shared = path.resolve(option("--shared", path.join(root, "../shared/data/real")));
  const dpis = list(option("--dpi", "100,150,200,300"));
  const every = Number(option("--every", "2"));
  const scan = flag("--scan");
  const sharp = createRequire(path.join(root, "package.json"))("sharp");
  const pages = manifest.pages.filter((p) => p.recipe === "pdf150" && !p.evaluationOnly).filter((_, i) => i % every === 0);
  for (const dpi of dpis) {
    mkdirSync(path.join(dir, `dpi${dpi}`), { recursive: true });
    for (const p of pages) {
      const src = p.file.startsWith("shared:") ? path.join(shared, p.file.slice(7)) : path.join(root, p.file);
      const page = String(p.filePage);
      const out = path.join(dir, `dpi${dpi}`, p.id);
      execFileSync("pdftoppm", ["-r", String(dpi), ...(scan ? ["-gray"] : []), "-f", page, "-l", page, "-singlefile", "-png", src, out]);
      if (scan) writeFileSync(`${out}.png`, (await degrade(sharp, readFileSync(`${out}.png`), p.id)).png);
    }
  }
  writeFileSync(path.join(dir, "pages.txt"), pages.map((p) => p.id).join("\n") + "\n");
  process.stdout.write(`dpi-sweep: ${pages.length} pages at ${dpis.join(", ")} DPI${scan ? ", scan-like" : ""} in ${dir}\n`);
}

function run() {
  const bin = path.resolve(option("--bin", path.join(root, "bin/ocr.js")));
  const ids = readFileSync(path.join(dir, "pages.txt"), "utf8").trim().split("\n");
  const dpis = readdirSync(dir)
    .map((d) => /^dpi(\d+)$/.exec(d)?.[1])
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);
  for (const dpi of dpis) {
    const out = path.join(dir, `out${dpi}`);
    if (flag("--reuse") && existsSync(out)) continue;
    execFileSync(process.execPath, [bin, "parse", path.join(dir, `dpi${dpi}`), "-o", out, "--threads", "1", "--format", "md"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
  }
  const tesseract = flag("--tesseract");
  const lang = new Map(manifest.pages.map((p) => [p.id, p.lang]));
  if (tesseract)
    for (const dpi of dpis)
      for (const id of ids)
        tesseractOnce(path.join(dir, `dpi${dpi}`, `${id}.png`), path.join(dir, `tess${dpi}`, id), lang.get(id) ?? "eng");
  // (ocr parse mirrors the input's folders below the working directory into -o: the Markdown is found at any depth)
  const written = new Map(
    dpis.map((dpi) => {
      const out = path.join(dir, `out${dpi}`);
      const files = existsSync(out) ? readdirSync(out, { recursive: true }).filter((f) => f.endsWith(".md")) : [];
      return [dpi, new Map(files.map((f) => [path.basename(f, ".md"), path.join(out, f)]))];
    }),
  );
  const found = (dpi, id) => written.get(dpi).get(id);
  // (columns: ours at each resolution, then Tesseract's)
  const columns = [
    ...dpis.map((dpi) => ({ head: `${dpi} dpi`, file: (id) => found(dpi, id) })),
    ...(tesseract ? dpis.map((dpi) => ({ head: `tess ${dpi}`, file: (id) => path.join(dir, `tess${dpi}`, `${id}.txt`) })) : []),
  ];
  const totals = columns.map(() => ({ errors: 0, chars: 0 }));
  process.stdout.write(`${"page".padEnd(24)}${columns.map((c) => c.head.padStart(10)).join("")}\n`);
  for (const id of ids) {
    const truth = readFileSync(path.join(root, "bench/real/truth", `${id}.md`), "utf8");
    const row = columns.map((c, k) => {
      const file = c.file(id);
      if (!file || !existsSync(file)) return "-".padStart(10);
      const s = pageScores(readFileSync(file, "utf8"), truth);
      totals[k].errors += s.errors;
      totals[k].chars += s.refChars;
      return String(s.errors).padStart(10);
    });
    process.stdout.write(`${id.padEnd(24)}${row.join("")}\n`);
  }
  process.stdout.write(`${"errors".padEnd(24)}${totals.map((t) => String(t.errors).padStart(10)).join("")}\n`);
  process.stdout.write(
    `${"CER".padEnd(24)}${totals.map((t) => `${((100 * t.errors) / Math.max(1, t.chars)).toFixed(1)}%`.padStart(10)).join("")}\n`,
  );
}

if (command === "build") await build();
else run();
