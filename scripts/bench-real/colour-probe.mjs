#!/usr/bin/env node
// A probe of type in colour and headlines (a magazine's or a leaflet's page), ours against Tesseract on the same
// pixels: synthetic A4 pages at 150 DPI, each a tracked heading with a year on a dark band, a headline in dark type
// under it, then boxes of three lines in white on navy, red, green and black, dark on pale yellow and on white, and
// coloured type on white, in English, German, French, Czech, Polish and Spanish, in four faces, drawn by sharp
// (librsvg and the machine's fonts). Synthetic pages find failure modes; they are no claim about real documents
// (bench/real decides those).
//
//   node scripts/bench-real/colour-probe.mjs build DIR [--pages 12] [--seed 11]
//   node scripts/bench-real/colour-probe.mjs run DIR [--bin bin/ocr.js] [--tesseract]
//
// `build` writes DIR/img/cp-NN.png and their truth (DIR/truth/cp-NN.md, DIR/truth/cp-NN.lang); `run` parses the
// images in one `ocr parse --threads 1` batch (and with --tesseract runs `tesseract --psm 3 -l LANG+eng`, one
// thread, on each) and prints per language the character errors, the numbers of 3+ digits read exactly
// (scripts/cer.mjs numbersRead) and the letters written that the page's truth never uses (invented marks: "ť" on
// an English page).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { probeArgs, probeEngines, seeded, whitePage } from "../bench-common.mjs";
import { numbersRead, pageScores } from "../cer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { command, dir, flag, option } = probeArgs(
  "node scripts/bench-real/colour-probe.mjs build|run DIR [--pages N] [--seed S] [--bin bin/ocr.js] [--tesseract]",
);
const FACES = ["DejaVu Sans", "DejaVu Serif", "Liberation Sans", "Liberation Serif"];
/** Each language's Tesseract pack, its heading's words and its sentences (short enough for a box's line). */
const LANGUAGES = {
  eng: {
    heading: ["Summer Festival", "City Marathon", "Annual Report", "Garden Show"],
    lines: [
      "The festival returns with more than 140 stalls",
      "Tickets cost 12 euros at the gate this year",
      "Parking is limited so please take the bus",
      "Doors open at 9:00 and the last entry is at 17:30",
      "Call 0151 234 5678 for the full programme",
      "Its fast service suits the city streets",
      "Children under six years get in for free",
      "The stalls sell cakes, toast and tea to visitors",
    ],
  },
  deu: {
    heading: ["Sommerfest", "Stadtlauf", "Jahresbericht"],
    lines: [
      "Größere Bühnen für die Straßenmusik",
      "Öffnungszeiten täglich von neun bis zwölf",
      "Der Eintritt für Kinder ist frei",
      "Über 300 Aussteller zeigen ihre Neuheiten",
      "Anmeldung bis zum 15. März unter 0521 998877",
      "Die Führung beginnt pünktlich am Rathaus",
    ],
  },
  fra: {
    heading: ["Fête de la Musique", "Saison Théâtrale", "Rapport Annuel"],
    lines: [
      "Le théâtre présente une création inédite",
      "Les élèves répètent à la bibliothèque",
      "Où sont passées les clés du château",
      "Entrée libre pour les moins de douze ans",
      "Réservation au 01 45 67 89 10 avant le 3 juin",
      "Un dîner est servi après le spectacle",
    ],
  },
  ces: {
    heading: ["Letní Festival", "Městský Běh", "Výroční Zpráva"],
    lines: [
      "Večerní program začíná v osm hodin",
      "Vstupenky stojí dvě stě korun českých",
      "Příliš žluťoučký kůň úpěl ďábelské ódy",
      "Výstava bude otevřena každou středu",
      "Děti do šesti let mají vstup zdarma",
      "Rezervace na čísle 602 123 456 do pátku",
    ],
  },
  pol: {
    heading: ["Letni Festiwal", "Bieg Miejski", "Raport Roczny"],
    lines: [
      "Wystawa będzie otwarta w każdą środę",
      "Bilety można kupić w kasie muzeum",
      "Zażółć gęślą jaźń przed świętami",
      "Dzieci do lat sześciu wchodzą za darmo",
      "Zapisy pod numerem 601 234 567 do piątku",
      "Koncert zaczyna się o godzinie dziewiętnastej",
    ],
  },
  spa: {
    heading: ["Fiesta de Verano", "Maratón Urbano", "Informe Anual"],
    lines: [
      "La exposición abre sus puertas en junio",
      "Los niños menores de seis años entran gratis",
      "Reserve su mesa en el teléfono 915 555 123",
      "El último autobús sale a las once y media",
      "Más de 200 artistas participan este año",
      "La función empezará después del almuerzo",
    ],
  },
};
/** Box grounds and their type: white on navy, red, green and black, dark on pale yellow and on white, red on white. */
const BOXES = [
  ["#1a237e", "#ffffff"],
  ["#c62828", "#ffffff"],
  ["#2e7d32", "#ffffff"],
  ["#111111", "#ffeb3b"],
  ["#fff59d", "#333333"],
  ["#ffffff", "#c62828"],
  ["#ffffff", "#1565c0"],
];
/** A4 at 150 DPI. */
const [W, H] = [1240, 1754];

async function build() {
  const sharp = createRequire(path.join(root, "package.json"))("sharp");
  const { random, pick, int } = seeded(Number(option("--seed", "11")));
  const xml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  for (const sub of ["img", "truth"]) mkdirSync(path.join(dir, sub), { recursive: true });
  const codes = Object.keys(LANGUAGES);
  const pages = Number(option("--pages", "12"));
  for (let p = 0; p < pages; p++) {
    const lang = codes[p % codes.length];
    const { heading, lines } = LANGUAGES[lang];
    const face = FACES[p % FACES.length];
    const title = `${pick(heading)} ${int(1990, 2029)}`;
    const size = int(34, 44);
    // the heading tracked wide (3-6 px between its letters) in white on a dark band
    let svg = `<rect x="80" y="70" width="1080" height="${size + 60}" fill="${pick(["#1a237e", "#263238", "#4a148c"])}"/>`;
    svg += `<text x="110" y="${100 + size}" font-family="${face}" font-size="${size}" font-weight="bold" letter-spacing="${int(3, 6)}" fill="#ffffff">${xml(title)}</text>`;
    // a headline in dark type on white below it, 52-72 px (the detector, at its 960-px scale of the page, lost
    // such headlines whole or for all but a word)
    const headline = pick(heading);
    const headSize = int(52, 72);
    svg += `<text x="80" y="${230 + headSize}" font-family="${face}" font-size="${headSize}" font-weight="${pick(["bold", "normal"])}" fill="#1b1b1b">${xml(headline)}</text>`;
    const truth = [title, headline];
    // boxes of three lines, two to a row
    const order = [...BOXES].sort(() => random() - 0.5);
    for (let b = 0; b < 6; b++) {
      const [ground, type] = order[b % order.length];
      const x = b % 2 ? 640 : 80,
        y = 340 + Math.floor(b / 2) * 460;
      const px = int(20, 26);
      svg += `<rect x="${x}" y="${y}" width="520" height="400" fill="${ground}"/>`;
      const start = int(0, lines.length - 1);
      for (let k = 0; k < 3; k++) {
        // each sentence on two lines where it would not fit the box
        const words = lines[(start + k) % lines.length].split(" ");
        const rows =
          words.join(" ").length * px * 0.5 > 470
            ? [words.slice(0, Math.ceil(words.length / 2)), words.slice(Math.ceil(words.length / 2))]
            : [words];
        rows.forEach((row, r) => {
          svg += `<text x="${x + 24}" y="${y + 50 + (2 * k + r) * px * 1.6}" font-family="${face}" font-size="${px}" fill="${type}">${xml(row.join(" "))}</text>`;
        });
        truth.push(words.join(" "));
      }
    }
    const name = `cp-${String(p).padStart(2, "0")}`;
    await whitePage(sharp, W, H, svg, path.join(dir, "img", `${name}.png`));
    writeFileSync(path.join(dir, "truth", `${name}.md`), truth.join("\n") + "\n");
    writeFileSync(path.join(dir, "truth", `${name}.lang`), lang + "\n");
    process.stderr.write(`colour-probe: ${name} (${lang}, ${face})\n`);
  }
}

function run() {
  const bin = path.resolve(option("--bin", path.join(root, "bin/ocr.js")));
  const langOf = (n) => readFileSync(path.join(dir, "truth", `${n}.lang`), "utf8").trim();
  const { names, engines } = probeEngines(bin, dir, flag("--tesseract"), (n) => `${langOf(n)}+eng`);
  const pct = (a, b) => ((100 * a) / Math.max(1, b)).toFixed(1);
  console.log("lang  engine     pages   CER (errors)        numbers      letters not in the truth");
  for (const [engine, file] of engines) {
    const rows = new Map();
    for (const n of names) {
      const truth = readFileSync(path.join(dir, "truth", `${n}.md`), "utf8");
      const text = existsSync(file(n)) ? readFileSync(file(n), "utf8") : "";
      const s = pageScores(text, truth);
      const [found, total] = numbersRead(text, truth);
      const alphabet = new Set(truth.toLowerCase());
      const invented = [...text.toLowerCase()].filter((c) => /\p{L}/u.test(c) && !alphabet.has(c));
      for (const key of [langOf(n), "all"]) {
        const r = rows.get(key) ?? { pages: 0, errors: 0, chars: 0, found: 0, total: 0, invented: [] };
        Object.assign(r, {
          pages: r.pages + 1,
          errors: r.errors + s.errors,
          chars: r.chars + s.refChars,
          found: r.found + found,
          total: r.total + total,
          invented: [...r.invented, ...invented],
        });
        rows.set(key, r);
      }
    }
    for (const [key, r] of [...rows].sort(([a], [b]) => (a === "all") - (b === "all") || a.localeCompare(b)))
      console.log(
        `${key.padEnd(5)} ${engine.padEnd(10)} ${String(r.pages).padStart(5)}   ${pct(r.errors, r.chars).padStart(5)} % (${String(r.errors).padStart(5)})` +
          `   ${`${r.found}/${r.total}`.padStart(7)}      ${r.invented.length} ${[...new Set(r.invented)].join("").slice(0, 30)}`,
      );
  }
}

if (command === "build") await build();
else run();
