#!/usr/bin/env node
// A probe of drop caps and numbers set large beside their text (a magazine's paragraphs, a manual's or a recipe's
// steps), ours against Tesseract on the same pixels: synthetic A4 pages at 150 DPI in one or two columns, each
// paragraph opening with a capital two to four lines deep (black, red or navy; in English, French, German and
// Spanish, so "É" and "Ü" among them), and on some pages a column of steps numbered 1-3 or 10-12, each number two
// lines deep, drawn by sharp (librsvg and the machine's fonts). Synthetic pages find failure modes; they are no claim
// about real documents (bench/real decides those).
//
//   node scripts/bench-real/drop-cap-probe.mjs build DIR [--pages 10] [--seed 7]
//   node scripts/bench-real/drop-cap-probe.mjs run DIR [--bin bin/ocr.js] [--tesseract]
//
// `build` writes DIR/img/dc-NN.png, their truth (DIR/truth/dc-NN.md, .lang) and the openings to look for
// (DIR/truth/dc-NN.json: each paragraph's first word, each step's number and first word); `run` parses the images in
// one `ocr parse --threads 1` batch (and with --tesseract runs `tesseract --psm 3 -l LANG+eng`, one thread, on each)
// and prints per engine the character errors, the paragraphs whose first word is read whole, and the steps read as
// their number and their first word.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { probeArgs, probeEngines, seeded, whitePage } from "../bench-common.mjs";
import { pageScores, plainText } from "../cer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { command, dir, flag, option } = probeArgs(
  "node scripts/bench-real/drop-cap-probe.mjs build|run DIR [--pages N] [--seed S] [--bin bin/ocr.js] [--tesseract]",
);
const FACES = ["DejaVu Serif", "Liberation Serif", "DejaVu Sans", "Liberation Sans"];
/** Each language's Tesseract pack, paragraph openings (a capital's word first) and words for the rest. */
const LANGUAGES = {
  eng: {
    openings: [
      "The market opened early",
      "When the river rose again",
      "After the long winter",
      "In the spring of that year",
      "Many visitors came back",
      "Some streets were closed",
    ],
    words:
      "the council voted on tuesday to extend riverside path by two miles linking old mill with new housing estate and station while residents asked for better lighting along".split(
        " ",
      ),
  },
  fra: {
    openings: ["Été comme hiver la ville", "Dans les rues du vieux port", "Avant la fin de la saison", "Orages et pluies ont marqué"],
    words:
      "la ville a voté mardi pour prolonger le chemin de deux kilomètres entre le moulin et la gare les habitants demandent un meilleur éclairage".split(
        " ",
      ),
  },
  deu: {
    openings: ["Über die Brücke fahren", "Nach dem langen Winter", "Viele Gäste kamen zurück", "Am Ende des Sommers"],
    words:
      "der rat hat am dienstag beschlossen den weg am fluss um zwei kilometer zu verlängern zwischen der alten mühle und dem bahnhof".split(
        " ",
      ),
  },
  spa: {
    openings: ["Durante la noche llovió", "Muchos vecinos volvieron", "Antes del invierno", "Otros años fueron peores"],
    words:
      "el consejo votó el martes ampliar el camino junto al río dos kilómetros entre el viejo molino y la estación los vecinos piden más luz".split(
        " ",
      ),
  },
};
const COLOURS = ["#111111", "#b01010", "#1a237e"];
/** A4 at 150 DPI; body type 20 px on a 29-px pitch. */
const [W, H] = [1240, 1754];
const [SIZE, PITCH] = [20, 29];
/** Capital height in ems of the faces (near enough for all four). */
const CAP_HEIGHT = 0.72;

async function build() {
  const sharp = createRequire(path.join(root, "package.json"))("sharp");
  const { random, pick, int } = seeded(Number(option("--seed", "7")));
  /** The ink width of `text` set at `size` px in `face`, measured from its rendering. */
  const inkWidth = async (text, face, size, weight = "normal") => {
    const side = Math.ceil(size * (text.length + 1));
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${Math.ceil(size * 1.6)}"><rect width="100%" height="100%" fill="white"/><text x="${size / 4}" y="${size * 1.2}" font-family="${face}" font-size="${size}" font-weight="${weight}">${text}</text></svg>`;
    const { info } = await sharp(Buffer.from(svg)).trim().toBuffer({ resolveWithObject: true });
    return { left: -(info.trimOffsetLeft ?? 0) - size / 4, width: info.width };
  };
  for (const sub of ["img", "truth"]) mkdirSync(path.join(dir, sub), { recursive: true });
  const codes = Object.keys(LANGUAGES);
  const pages = Number(option("--pages", "10"));
  for (let p = 0; p < pages; p++) {
    const lang = codes[p % codes.length];
    const { openings, words } = LANGUAGES[lang];
    const face = FACES[Math.floor(p / codes.length + p) % FACES.length];
    const columns = p % 2 ? 2 : 1;
    const width = columns === 2 ? 520 : 1080;
    // lines filled to 80-95 % of the column (20-px type: about 9.5 px a character)
    const fill = (first, indent) => {
      const room = (width - indent) * (0.8 + 0.15 * random());
      const out = first ? [first] : [];
      for (let next = pick(words); (out.join(" ").length + next.length + 1) * 9.5 < room; next = pick(words)) out.push(next);
      return out.join(" ");
    };
    let svg = "";
    const truth = [];
    const look = { openings: [], steps: [] };
    for (let c = 0; c < columns; c++) {
      const x = 80 + c * 580;
      let y = 200;
      const stepsHere = p % 3 === 2 && c === columns - 1;
      for (let b = 0; b < (stepsHere ? 3 : 2); b++) {
        if (stepsHere) {
          // a step: its number two lines deep, its text beside it
          const n = (p % 2 ? 10 : 1) + b;
          const size = (PITCH + CAP_HEIGHT * SIZE) / CAP_HEIGHT;
          const { left, width: w } = await inkWidth(String(n), face, size, "bold");
          svg += `<text x="${x - left}" y="${y + PITCH}" font-family="${face}" font-size="${size.toFixed(1)}" font-weight="bold">${n}</text>`;
          const indent = w + 14;
          const lines = [fill(pick(words), indent), fill("", indent)];
          lines.forEach(
            (t, l) => (svg += `<text x="${x + indent}" y="${y + l * PITCH}" font-family="${face}" font-size="${SIZE}">${t}</text>`),
          );
          truth.push(`${n} ${lines.join(" ")}`);
          look.steps.push(`${n} ${lines[0].split(" ")[0]}`);
          y += 4 * PITCH;
          continue;
        }
        const opening = pick(openings);
        const [letter, rest] = [opening[0], opening.slice(1)];
        const depth = int(2, 4);
        const size = ((depth - 1) * PITCH + CAP_HEIGHT * SIZE) / CAP_HEIGHT;
        const { left, width: w } = await inkWidth(letter, face, size);
        svg += `<text x="${x - left}" y="${y + (depth - 1) * PITCH}" font-family="${face}" font-size="${size.toFixed(1)}" fill="${pick(COLOURS)}">${letter}</text>`;
        const indent = w + int(6, 12);
        const lines = [];
        for (let l = 0; l < depth + int(2, 4); l++) lines.push(fill(l === 0 ? rest : "", l < depth ? indent : 0));
        lines.forEach(
          (t, l) =>
            (svg += `<text x="${x + (l < depth ? indent : 0)}" y="${y + l * PITCH}" font-family="${face}" font-size="${SIZE}">${t}</text>`),
        );
        truth.push(letter + lines.join(" "));
        look.openings.push(opening.split(" ")[0]);
        y += (lines.length + 2) * PITCH;
      }
    }
    const name = `dc-${String(p).padStart(2, "0")}`;
    await whitePage(sharp, W, H, svg, path.join(dir, "img", `${name}.png`));
    writeFileSync(path.join(dir, "truth", `${name}.md`), truth.join("\n\n") + "\n");
    writeFileSync(path.join(dir, "truth", `${name}.lang`), lang + "\n");
    writeFileSync(path.join(dir, "truth", `${name}.json`), JSON.stringify(look) + "\n");
    process.stderr.write(`drop-cap-probe: ${name} (${lang}, ${face}, ${columns} column${columns > 1 ? "s" : ""})\n`);
  }
}

function run() {
  const bin = path.resolve(option("--bin", path.join(root, "bin/ocr.js")));
  const lang = (n) => `${readFileSync(path.join(dir, "truth", `${n}.lang`), "utf8").trim()}+eng`;
  const { names, engines } = probeEngines(bin, dir, flag("--tesseract"), lang);
  const pct = (a, b) => ((100 * a) / Math.max(1, b)).toFixed(1);
  console.log("engine     pages   CER (errors)      openings read   steps read   openings missed");
  for (const [engine, file] of engines) {
    let [errors, chars, openings, opened, steps, stepped] = [0, 0, 0, 0, 0, 0];
    const missed = [];
    for (const n of names) {
      const truth = readFileSync(path.join(dir, "truth", `${n}.md`), "utf8");
      const text = existsSync(file(n)) ? readFileSync(file(n), "utf8") : "";
      const s = pageScores(text, truth);
      errors += s.errors;
      chars += s.refChars;
      const plain = ` ${plainText(text)} `;
      const look = JSON.parse(readFileSync(path.join(dir, "truth", `${n}.json`), "utf8"));
      for (const w of look.openings) {
        openings++;
        if (plain.includes(` ${w} `)) opened++;
        else missed.push(w);
      }
      for (const w of look.steps) {
        steps++;
        if (plain.includes(` ${w} `)) stepped++;
      }
    }
    console.log(
      `${engine.padEnd(10)} ${String(names.length).padStart(5)}   ${pct(errors, chars).padStart(5)} % (${String(errors).padStart(5)})` +
        `   ${`${opened}/${openings}`.padStart(13)}   ${`${stepped}/${steps}`.padStart(10)}   ${missed.join(" ").slice(0, 60)}`,
    );
  }
}

if (command === "build") await build();
else run();
