#!/usr/bin/env node
// A probe of languages the dev set (bench/real) lacks, ours against Tesseract on the same pixels (issue 18's
// "Latin with diacritics and Cyrillic at Tesseract's level"): Hungarian and Portuguese pages of Debian's
// lilypond-doc-pdf-hu / -pt (150 DPI, poppler; truth: pdftotext, NFC), and Turkish, Serbian and Ukrainian man-page
// text (manpages-tr, -sr, -uk: groff's text of each page, paragraphs mostly of the language) laid out by
// scripts/synth/generate.mjs, and LibreOffice's help pages in ten of issue 18's languages (libreoffice-help-LANG: the
// text of its HTML pages laid out the same way, three pages a language, reported apart as "LANG (help)"), and the
// Serbian, German, Czech and Russian texts again in the faces of LaTeX documents ("LANG (LaTeX)", eight pages each;
// "rus (LaTeX, Cyrillic)": eight pages of the Russian help's Cyrillic paragraphs alone, as a Russian document is). The
// laid-out pages are synthetic layout: a check of letters, not of layout. None of these packages is reserved for
// evaluation or in the training corpus (scripts/corpus/packages.mjs).
//
//   node scripts/bench-real/lang-probe.mjs build DIR    (apt-get download, dpkg-deb, pdftoppm, pdftotext, groff)
//   node scripts/bench-real/lang-probe.mjs run DIR [--bin bin/ocr.js] [--keep-headers]
//
// `run` parses DIR/img/*.png in one `ocr parse --threads 1` batch, runs `tesseract -l LANG+eng --psm 3` (one thread)
// on each, and prints per page and per language the errors against DIR/truth/NAME.txt (scripts/cer.mjs pageScores).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pageScores } from "../cer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const [command, dirArg] = process.argv.slice(2);
if (!["build", "run"].includes(command) || !dirArg) {
  process.stderr.write("usage: node scripts/bench-real/lang-probe.mjs build|run DIR [--bin bin/ocr.js] [--keep-headers]\n");
  process.exit(2);
}
const dir = path.resolve(dirArg);
const sh = (cmd, args, options = {}) => execFileSync(cmd, args, { encoding: "utf8", maxBuffer: 1 << 28, ...options });

/** PDF pages: package, file under the lilypond docs, page, Tesseract language. */
const PDF_PAGES = [
  ["lilypond-doc-pdf-pt", "web.pt.pdf", 54, "por"],
  ["lilypond-doc-pdf-pt", "web.pt.pdf", 59, "por"],
  ["lilypond-doc-pdf-hu", "essay.hu.pdf", 6, "hun"],
  ["lilypond-doc-pdf-hu", "usage.hu.pdf", 7, "hun"],
  ["lilypond-doc-pdf-hu", "learning.hu.pdf", 50, "hun"],
];
/** Man pages laid out: language, package, Tesseract language, a paragraph of the language. */
const MAN_PAGES = [
  ["tr", "manpages-tr", "tur", (p) => /[şğıİŞĞ]/.test(p)],
  ["sr", "manpages-sr", "srp", (p) => (p.match(/\p{Script=Cyrillic}/gu) ?? []).length > 0.7 * (p.match(/\p{L}/gu) ?? []).length],
  ["uk", "manpages-uk", "ukr", (p) => (p.match(/\p{Script=Cyrillic}/gu) ?? []).length > 0.7 * (p.match(/\p{L}/gu) ?? []).length],
];
const LILYPOND = "usr/share/doc/lilypond/html/Documentation";
/** LibreOffice's help in the languages of issue 18 that it is translated to (Debian has no Ukrainian, Bulgarian or
 * Serbian help): its HTML pages' text laid out like the man pages, a page of each of DOCUMENTS documents a language.
 * [language, Tesseract's]. */
const HELP_LANGUAGES = [
  ["de", "deu"],
  ["fr", "fra"],
  ["es", "spa"],
  ["it", "ita"],
  ["pt", "por"],
  ["pl", "pol"],
  ["cs", "ces"],
  ["hu", "hun"],
  ["tr", "tur"],
  ["ru", "rus"],
];
/** Documents laid out per language, of the man pages and of the help. */
const DOCUMENTS = 3;
/** Languages whose text is laid out a second time in the look of a LaTeX document (generate.mjs --latex 1: Computer
 * Modern Unicode, Latin Modern, TeX Gyre; only CMU has Cyrillic; poppler draws the TeX Gyre and Latin Modern
 * subsets pdf-lib embeds in a substitute face), the first page of TEX_DOCUMENTS documents each, reported apart as
 * "LANG (LaTeX)": the faces of the LaTeX manuals of issue 18's languages. */
const TEX_LOOK = ["sr", "de", "cs", "ru"];
const TEX_DOCUMENTS = 8;

/** Text of an HTML fragment: tags dropped, entities decoded, white space collapsed. */
function htmlText(html) {
  const named = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) =>
      e[0] === "#" ? String.fromCodePoint(e[1].toLowerCase() === "x" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (named[e] ?? m),
    )
    .replace(/\s+/g, " ")
    .trim();
}

/** A LibreOffice help page as {title, sections}: its h1, then its h2/h3 headings over the paragraphs after them;
 * undefined without a title or with under 1,500 characters of text. Only the title, headings and paragraphs `keep`
 * accepts count. */
function helpDocument(file, keep = () => true) {
  const html = readFileSync(file, "utf8").replace(/<(script|style|head)\b[\s\S]*?<\/\1>/gi, "");
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html);
  const title = h1 && htmlText(h1[1]);
  if (!title || !keep(title)) return undefined;
  const sections = [];
  let current = [title, []];
  for (const [, tag, inner] of html.matchAll(/<(p|h2|h3)\b[^>]*>([\s\S]*?)<\/\1>/gi)) {
    const text = htmlText(inner);
    if (!text || !keep(text)) continue;
    if (tag.toLowerCase() === "p") current[1].push(text);
    else {
      if (current[1].length) sections.push(current);
      current = [text, []];
    }
  }
  if (current[1].length) sections.push(current);
  const size = sections.reduce((n, [, ps]) => n + ps.join(" ").length, 0);
  return size >= 1500 ? { title, sections } : undefined;
}

/** Files under `dir`, recursively, whose names end in `ext`, sorted. */
function filesUnder(dir, ext) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(ext))
    .map((f) => path.join(dir, f))
    .sort();
}

/** groff's text of a man page as {title, sections: [[heading, paragraphs]]}, paragraphs kept where `keep` says. */
function manDocument(file, keep) {
  const text = sh("sh", ["-c", `zcat '${file}' | groff -man -Tutf8 -Kutf8 2>/dev/null | col -bx`]);
  const sections = [];
  let current,
    lines = [];
  const flush = () => {
    const p = lines.join(" ").replace(/\s+/g, " ").trim();
    if (current && p.length && (p.match(/\p{L}/gu) ?? []).length > 30 && keep(p)) current[1].push(p);
    lines = [];
  };
  for (const line of text.split("\n").slice(1, -2)) {
    if (/^\S/.test(line)) {
      flush();
      current = [line.trim(), []];
      sections.push(current);
    } else if (!line.trim()) flush();
    else lines.push(line.trim());
  }
  flush();
  return { title: path.basename(file).replace(/\.\d\.gz$/, ""), sections: sections.filter(([, ps]) => ps.length) };
}

function build() {
  const texLook = [];
  const pkgs = path.join(dir, "pkgs");
  const tree = path.join(dir, "root");
  for (const d of [pkgs, path.join(dir, "img"), path.join(dir, "truth")]) mkdirSync(d, { recursive: true });
  const helpPackage = (lang) => `libreoffice-help-${lang}`;
  for (const pkg of new Set([
    ...PDF_PAGES.map((p) => p[0]),
    ...MAN_PAGES.map((m) => m[1]),
    ...HELP_LANGUAGES.map(([l]) => helpPackage(l)),
  ])) {
    if (!readdirSync(pkgs).some((f) => f.startsWith(`${pkg}_`))) sh("apt-get", ["download", pkg], { cwd: pkgs });
    const deb = readdirSync(pkgs).find((f) => f.startsWith(`${pkg}_`));
    sh("dpkg-deb", ["-x", path.join(pkgs, deb), tree]);
  }
  const save = (name, text, lang) => {
    writeFileSync(path.join(dir, "truth", `${name}.txt`), text.normalize("NFC").replace(/ı\u0301/g, "í"));
    writeFileSync(path.join(dir, "truth", `${name}.lang`), lang + "\n");
  };
  // `docs` written as DIR/corpus-KEY, `count` of them laid out by scripts/synth/generate.mjs (seed 7, or as
  // `look` says) as DIR/synth-KEY, and the first `pages` pages of each rasterised and saved as `name(document, page)`
  const layOut = (docs, lang, tess, key, pages, name, look = { count: DOCUMENTS, seed: 7, latex: 0, out: key }) => {
    const corpus = path.join(dir, `corpus-${key}`);
    mkdirSync(corpus, { recursive: true });
    writeFileSync(path.join(corpus, `${lang}.jsonl`), docs.map((d) => JSON.stringify({ split: "test", lang, ...d })).join("\n") + "\n");
    const out = path.join(dir, `synth-${look.out}`);
    sh(process.execPath, [
      path.join(root, "scripts/synth/generate.mjs"),
      ...["--corpus", corpus, "--out", out, "--split", "test", "--count", String(look.count), "--seed", String(look.seed)],
      ...["--latex", String(look.latex)],
    ]);
    for (let d = 0; d < look.count; d++) {
      const doc = path.join(out, `doc-${String(d).padStart(5, "0")}`);
      const laid = JSON.parse(readFileSync(`${doc}.json`, "utf8")).pages;
      for (let p = 1; p <= Math.min(pages, laid.length); p++) {
        sh("pdftoppm", [
          "-r",
          "150",
          "-f",
          String(p),
          "-l",
          String(p),
          "-singlefile",
          "-png",
          `${doc}.pdf`,
          path.join(dir, "img", name(d, p)),
        ]);
        save(name(d, p), laid[p - 1].markdown, tess);
      }
    }
  };
  for (const [, file, page, lang] of PDF_PAGES) {
    const pdf = path.join(tree, LILYPOND, file);
    const name = `${file.replace(/\.pdf$/, "")}-p${page}`;
    const at = ["-f", String(page), "-l", String(page)];
    sh("pdftoppm", ["-r", "150", ...at, "-singlefile", "-png", pdf, path.join(dir, "img", name)]);
    save(name, sh("pdftotext", [...at, pdf, "-"]), lang);
  }
  for (const [lang, pkg, tess, keep] of MAN_PAGES) {
    const man = path.join(tree, "usr/share/man", lang, "man1");
    const docs = readdirSync(man)
      .sort()
      .map((f) => manDocument(path.join(man, f), keep))
      .filter((d) => d.sections.reduce((n, [, ps]) => n + ps.join(" ").length, 0) >= 800);
    layOut(docs, lang, tess, lang, 2, (d, p) => `${lang}-d${d}-p${p}`);
    process.stderr.write(`lang-probe: ${pkg}: ${docs.length} pages of text\n`);
    if (TEX_LOOK.includes(lang)) texLook.push([docs, lang, tess, lang]);
  }
  for (const [lang, tess] of HELP_LANGUAGES) {
    const pkg = helpPackage(lang);
    const docs = filesUnder(path.join(tree, "usr/share/libreoffice/help", lang), ".html")
      .map((f) => helpDocument(f))
      .filter((d) => d !== undefined);
    // every 37th page, so that the pages come from all of the help's modules
    const picked = docs.filter((_, k) => k % 37 === 0);
    layOut(picked, lang, tess, `help-${lang}`, 1, (d) => `help-${lang}-d${d}`);
    process.stderr.write(`lang-probe: ${pkg}: ${docs.length} help pages, ${picked.length} in the corpus\n`);
    if (TEX_LOOK.includes(lang)) texLook.push([picked, lang, tess, `help-${lang}`]);
  }
  for (const [docs, lang, tess, key] of texLook)
    layOut(docs, lang, tess, key, 1, (d) => `tex-${key}-d${d}`, { count: TEX_DOCUMENTS, seed: 23, latex: 1, out: `tex-${key}` });
  // Russian as a Russian LaTeX document is: the help's Cyrillic paragraphs and headings alone (other help pages
  // than the corpus's), in the LaTeX faces
  const cyrillic = (t) => (t.match(/\p{Script=Cyrillic}/gu) ?? []).length > 0.8 * (t.match(/\p{L}/gu) ?? []).length;
  const russian = filesUnder(path.join(tree, "usr/share/libreoffice/help/ru"), ".html")
    .filter((_, k) => k % 37 === 18)
    .map((f) => helpDocument(f, cyrillic))
    .filter((d) => d !== undefined);
  layOut(russian, "ru", "rus", "help-ru-cyrillic", 1, (d) => `tex-ru-cyrillic-d${d}`, {
    count: TEX_DOCUMENTS,
    seed: 31,
    latex: 1,
    out: "tex-ru-cyrillic",
  });
  process.stderr.write(`lang-probe: libreoffice-help-ru: ${russian.length} help pages of Cyrillic text\n`);
}

function run() {
  const at = process.argv.indexOf("--bin");
  const bin = at > 0 ? path.resolve(process.argv[at + 1]) : path.join(root, "bin/ocr.js");
  const images = readdirSync(path.join(dir, "img"))
    .filter((f) => f.endsWith(".png"))
    .sort();
  const ours = path.join(dir, "ours");
  // (run in the images' folder: ocr parse mirrors a file under its working folder by its path from there, and
  // DIR/ours/NAME.md is where the scores are read)
  // --keep-headers: the truth keeps each page's running header and page number, as Tesseract's text does
  const keep = process.argv.includes("--keep-headers") ? ["--keep-headers"] : [];
  sh(process.execPath, [bin, "parse", "--threads", "1", ...keep, "-o", ours, ...images], {
    stdio: "inherit",
    cwd: path.join(dir, "img"),
  });
  mkdirSync(path.join(dir, "tesseract"), { recursive: true });
  const totals = new Map();
  const pct = (e, n) => `${((100 * e) / n).toFixed(2)} %`;
  for (const f of images) {
    const name = f.replace(/\.png$/, "");
    const truth = readFileSync(path.join(dir, "truth", `${name}.txt`), "utf8");
    const lang = readFileSync(path.join(dir, "truth", `${name}.lang`), "utf8").trim();
    const tf = path.join(dir, "tesseract", `${name}.txt`);
    if (!existsSync(tf))
      writeFileSync(
        tf,
        sh("tesseract", [path.join(dir, "img", f), "-", "-l", `${lang}+eng`, "--psm", "3"], {
          env: { ...process.env, OMP_THREAD_LIMIT: "1" },
        }),
      );
    const a = pageScores(readFileSync(path.join(ours, `${name}.md`), "utf8"), truth);
    const b = pageScores(readFileSync(tf, "utf8"), truth);
    const key = name.startsWith("tex-ru-cyrillic")
      ? `${lang} (LaTeX, Cyrillic)`
      : name.startsWith("tex-")
        ? `${lang} (LaTeX)`
        : name.startsWith("help-")
          ? `${lang} (help)`
          : lang;
    const t = totals.get(key) ?? { pages: 0, ref: 0, ours: 0, tess: 0, foreign: 0 };
    totals.set(key, {
      pages: t.pages + 1,
      ref: t.ref + a.refChars,
      ours: t.ours + a.errors,
      tess: t.tess + b.errors,
      foreign: t.foreign + a.foreign,
    });
    console.log(
      `${name.padEnd(20)} ours ${String(a.errors).padStart(4)} errors (${pct(a.errors, a.refChars)}) | tesseract ${String(b.errors).padStart(4)} (${pct(b.errors, b.refChars)})`,
    );
  }
  console.log("language  pages  chars | ours errors     CER | tesseract errors     CER | foreign letters (ours)");
  for (const [lang, t] of totals)
    console.log(
      `${lang.padEnd(10)}${String(t.pages).padStart(5)} ${String(t.ref).padStart(6)} | ${String(t.ours).padStart(11)} ${pct(t.ours, t.ref).padStart(7)} | ${String(t.tess).padStart(16)} ${pct(t.tess, t.ref).padStart(7)} | ${t.foreign}`,
    );
}

if (command === "build") build();
else run();
