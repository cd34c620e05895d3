#!/usr/bin/env node
// A probe of numbers read digit for digit (issue 18's "numbers copied digit for digit"), ours against Tesseract on
// the same pixels: synthetic A4 pages at 150 DPI of tables and prose dense with numbers (integers, grouped
// thousands, money, percentages, decimals, dates, phone numbers, ranges) in nine faces at 9-12 pt, drawn by sharp
// (librsvg and the machine's fonts), and a copy of each page degraded as a poor scan (tilted 0.3-0.9°, scanned at
// 55-80 % of the resolution, blurred, JPEG at quality 35, contrast raised). Synthetic pages find failure modes; they
// are no claim about real documents (bench/real decides those).
//
//   node scripts/bench-real/number-probe.mjs build DIR [--pages 18] [--seed 7]
//   node scripts/bench-real/number-probe.mjs run DIR [--bin bin/ocr.js] [--tesseract]
//
// `build` writes DIR/{clean,scan}/img/np-NN.png and their truth (DIR/{clean,scan}/truth/np-NN.md); `run` parses
// each set's images in one `ocr parse --threads 1` batch (and with --tesseract runs `tesseract --psm 3 -l eng`,
// one thread, on each) and prints per set the numbers of 3+ digits read exactly (scripts/cer.mjs numbersRead) and
// the character errors, then each number missed beside the nearest token written.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { probeArgs, probeEngines, seeded, whitePage } from "../bench-common.mjs";
import { editDistance, numbersRead, pageScores, plainText } from "../cer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { command, dir, flag, option } = probeArgs(
  "node scripts/bench-real/number-probe.mjs build|run DIR [--pages N] [--seed S] [--bin bin/ocr.js] [--tesseract]",
);
const SETS = ["clean", "scan"];
const FACES = [
  "DejaVu Sans",
  "DejaVu Serif",
  "Liberation Serif",
  "Liberation Sans",
  "CMU Serif",
  "Latin Modern Roman",
  "Liberation Mono",
  "Noto Sans",
  "CMU Sans Serif",
];
const WORDS = "total sample value rate index period count growth region order units net gross weight mean share cost invoice items".split(
  " ",
);
/** A4 at 150 DPI, and its margins. */
const [W, H, MARGIN] = [1240, 1754, 150];

async function build() {
  const sharp = createRequire(path.join(root, "package.json"))("sharp");
  const { random, pick, int } = seeded(Number(option("--seed", "7")));
  const pad = (n, width) => String(n).padStart(width, "0");
  const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const NUMBERS = [
    () => String(int(100, 99999)),
    () => grouped(int(1000, 9999999)),
    () => `${int(0, 999)}.${pad(int(0, 999), 3)}`,
    () => `${int(1, 99)}.${pad(int(0, 999), 3)}%`,
    () => `$${grouped(int(100, 99999))}.${pad(int(0, 99), 2)}`,
    () => String(int(1900, 2029)),
    () => `${pad(int(1, 12), 2)}/${pad(int(1, 28), 2)}/${int(1990, 2025)}`,
    () => `(${int(200, 999)}) ${int(200, 999)}-${pad(int(0, 9999), 4)}`,
    () => `${int(0, 9)}.${pad(int(0, 9999), 4)}`,
    () => `${int(1000, 9999)}-${int(1000, 9999)}`,
    () => String(int(10000000, 99999999)),
  ];
  const xml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  for (const set of SETS) for (const sub of ["img", "truth"]) mkdirSync(path.join(dir, set, sub), { recursive: true });
  const pages = Number(option("--pages", "18"));
  for (let p = 0; p < pages; p++) {
    const face = FACES[p % FACES.length];
    const px = (pick([9, 10, 11, 12]) * 150) / 72;
    const pitch = px * 1.45;
    const texts = [];
    const truth = [];
    const text = (x, y, s, anchor = "start") => texts.push(`<text x="${x}" y="${y.toFixed(1)}" text-anchor="${anchor}">${xml(s)}</text>`);
    for (let y = MARGIN; y < H - MARGIN - 50; y += pitch) {
      if (random() < 0.5) {
        // a table: a label column, then right-aligned columns of one kind of number each
        const columns = int(3, 5);
        const width = (W - 2 * MARGIN) / columns;
        const kinds = Array.from({ length: columns - 1 }, () => pick(NUMBERS));
        for (let row = int(4, 9); row > 0 && y < H - MARGIN - 50; row--, y += pitch) {
          const cells = [`${pick(WORDS)} ${int(1, 40)}`, ...kinds.map((number) => number())];
          cells.forEach((c, k) => (k ? text(MARGIN + (k + 1) * width - 20, y, c, "end") : text(MARGIN, y, c)));
          truth.push(cells.join(" "));
        }
      } else {
        // a paragraph, a number in every five or six words, set ragged right
        const words = Array.from({ length: int(30, 70) }, () => (random() < 0.18 ? pick(NUMBERS)() : pick(WORDS)));
        let line = [];
        const flush = () => {
          text(MARGIN, y, line.join(" "));
          truth.push(line.join(" "));
          line = [];
          y += pitch;
        };
        for (const word of words) {
          if ([...line, word].join(" ").length * px * 0.5 > W - 2 * MARGIN) flush();
          if (y >= H - MARGIN - 50) break;
          line.push(word);
        }
        if (line.length && y < H - MARGIN - 50) flush();
      }
    }
    const name = `np-${pad(p, 2)}`;
    const clean = path.join(dir, "clean", "img", `${name}.png`);
    await whitePage(sharp, W, H, `<g font-family="${face}" font-size="${px.toFixed(1)}" fill="black">${texts.join("")}</g>`, clean);
    // the scan: tilted, scanned at a lower resolution, blurred, JPEG, brought back to 150 DPI, contrast raised
    const scale = [0.62, 0.7, 0.8, 0.55][p % 4];
    const small = await sharp(clean)
      .rotate([0.4, -0.7, 0.9, -0.3][p % 4], { background: "#ffffff" })
      .resize(Math.round(W * scale))
      .blur(0.6)
      .jpeg({ quality: 35 })
      .toBuffer();
    await sharp(small)
      .resize(W)
      .greyscale()
      .linear(1.15, -20)
      .png()
      .toFile(path.join(dir, "scan", "img", `${name}.png`));
    for (const set of SETS) writeFileSync(path.join(dir, set, "truth", `${name}.md`), truth.join("\n") + "\n");
    process.stderr.write(`number-probe: ${name} (${face}, ${(px * 0.48).toFixed(1)} pt)\n`);
  }
}

function run() {
  const bin = path.resolve(option("--bin", path.join(root, "bin/ocr.js")));
  for (const set of SETS) {
    const base = path.join(dir, set);
    const { names, engines } = probeEngines(bin, base, flag("--tesseract"), () => "eng");
    for (const [engine, file] of engines) {
      let [found, total, errors, chars] = [0, 0, 0, 0];
      const missed = [];
      for (const n of names) {
        const truth = readFileSync(path.join(base, "truth", `${n}.md`), "utf8");
        const text = existsSync(file(n)) ? readFileSync(file(n), "utf8") : "";
        const [f, t] = numbersRead(text, truth);
        const s = pageScores(text, truth);
        [found, total, errors, chars] = [found + f, total + t, errors + s.errors, chars + s.refChars];
        if (engine !== "ours") continue;
        // each truth token holding a number missed, beside the written token nearest it (in the text as numbersRead
        // reads it, so that the list is the misses it counts)
        const plain = plainText(text);
        const written = plain.split(" ").filter((w) => /\d/.test(w));
        const nearest = (token) => {
          let [best, least] = ["", token.length];
          for (const w of written) {
            const d = editDistance(w, token);
            if (d < least) [best, least] = [w, d];
          }
          return best;
        };
        const have = new Map();
        for (const m of plain.match(/\d{3,}/g) ?? []) have.set(m, (have.get(m) ?? 0) + 1);
        for (const token of truth.split(/\s+/))
          for (const m of token.match(/\d{3,}/g) ?? []) {
            if ((have.get(m) ?? 0) > 0) have.set(m, have.get(m) - 1);
            else missed.push(`${n} ${token} <- ${nearest(token)}`);
          }
      }
      const pct = (a, b) => ((100 * a) / Math.max(1, b)).toFixed(1);
      console.log(
        `${set.padEnd(5)} ${engine.padEnd(9)} numbers ${found}/${total} (${pct(found, total)} %)  CER ${pct(errors, chars)} % (${errors} errors)`,
      );
      if (missed.length) console.log(missed.map((m) => `  ${m}`).join("\n"));
    }
  }
}

if (command === "build") await build();
else run();
