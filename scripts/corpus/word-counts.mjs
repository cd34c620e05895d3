#!/usr/bin/env node
// How often a language's words are written (src/engines/model/words.ts `WordList.count`): every word of the list's
// script in the texts under the ROOT folders (HTML, man pages, plain text and fortune files, gzipped or not) that the
// list holds is counted, and the words written COUNT_MIN times or more are stored in the list's file beside its
// automaton. The merge's word passes choose by them among a misread word's neighbours ("улалить": удалить, ужалить,
// умалить, уладить).
//
//   cd DIR && apt-get download gimp-help-ru kicad-doc-ru manpages-ru manpages-ru-dev developers-reference-ru \
//     debian-faq-ru maint-guide-ru aptitude-doc-ru doublecmd-help-ru fortunes-ru ubuntu-packaging-guide-html-ru
//   for f in *.deb; do dpkg-deb -x $f ROOT; done
//   npm run build
//   node scripts/corpus/word-counts.mjs models/default/words-ru.bin ROOT
//
// (Ukrainian: gimp-help-uk doublecmd-help-uk debian-edu-doc-legacy-uk ubuntu-packaging-guide-html-uk
// libreoffice-l10n-uk, and firefox-esr-l10n-uk thunderbird-l10n-uk with their .xpi unzipped.) Prints the
// words counted, the words kept and the file's size. None of these packages is reserved for evaluation, and no page
// of the dev set or of the language probe is made from them (the probe's Russian is LibreOffice's help, its
// Ukrainian manpages-uk).
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { decode } from "../bench-real/unit-tests.mjs";

/** A word is kept where the texts write it this many times or more (fewer tell little, and cost room). */
export const COUNT_MIN = 3;

/** The translations of a gettext catalogue (.mo): its msgstr strings, a line each (undefined for a file that is not one). */
export function catalogueText(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 28) return undefined;
  const little = view.getUint32(0, true) === 0x950412de;
  if (!little && view.getUint32(0, false) !== 0x950412de) return undefined;
  const n = view.getUint32(8, little);
  const table = view.getUint32(16, little);
  const lines = [];
  for (let i = 0; i < n; i++) {
    const at = table + 8 * i;
    if (at + 8 > bytes.byteLength) return undefined;
    const [length, offset] = [view.getUint32(at, little), view.getUint32(at + 4, little)];
    if (offset + length > bytes.byteLength) return undefined;
    lines.push(
      Buffer.from(bytes.subarray(offset, offset + length))
        .toString("utf8")
        .replaceAll("\0", "\n"),
    );
  }
  return lines.join("\n");
}

/** The running text of a file's bytes, by its name: HTML without its tags, scripts and styles; a man page without its
 * macros' names and font escapes; a gettext catalogue's translations; anything else as it is (undefined for what is
 * not UTF-8 text). */
export function fileText(name, bytes) {
  if (name.endsWith(".mo")) return catalogueText(bytes);
  if (name.endsWith(".gz")) {
    try {
      bytes = gunzipSync(bytes);
    } catch {
      return undefined;
    }
    name = name.slice(0, -3);
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  if (text.includes("\0")) return undefined;
  if (/\.x?html?$/i.test(name)) return decode(text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " "));
  if (/\/man\d?\/|\.\d$/.test(name) || /^\.(TH|SH)\b/m.test(text))
    return text
      .replace(/^[.'][A-Za-z]{1,3}\b/gm, " ")
      .replace(/\\f(\[[^\]]*\]|\(..|.)/g, "")
      .replace(/\\(\(..|\[[^\]]*\]|.)/g, " ");
  return text;
}

/** The files under `root`, every folder down. */
function* filesUnder(root) {
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const file = path.join(root, entry.name);
    if (entry.isDirectory()) yield* filesUnder(file);
    else if (entry.isFile()) yield file;
  }
}

/** Counts of the words of `list` (its keys) in `texts`, in `script`. */
export function countWords(texts, list, wordKey, script) {
  const word = new RegExp(`\\p{Script=${script}}+`, "gu");
  const counts = new Map();
  for (const text of texts)
    for (const w of text.match(word) ?? []) {
      const key = wordKey(w);
      if (list.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  return counts;
}

async function main(args) {
  const [listFile, ...roots] = args;
  if (!listFile || roots.length === 0) {
    process.stderr.write("usage: node scripts/corpus/word-counts.mjs LIST.bin ROOT...\n");
    process.exit(2);
  }
  const { WordList, wordKey } = await import("../../dist/engines/model/words.js");
  const data = readFileSync(listFile);
  const list = WordList.parse(data, listFile);
  const script = /\p{Script=Cyrillic}/u.test(list.letters) ? "Cyrillic" : "Latin";
  const texts = [];
  let files = 0;
  for (const root of roots)
    for (const file of filesUnder(root)) {
      if (/\.(png|jpe?g|gif|svg|pdf|woff2?|ttf|eot|js|css|dat)$/i.test(file) || statSync(file).size > 1 << 26) continue;
      const text = fileText(file, readFileSync(file));
      if (text === undefined) continue;
      texts.push(text);
      files++;
    }
  const counts = countWords(texts, list, wordKey, script);
  const kept = new Map([...counts].filter(([, n]) => n >= COUNT_MIN));
  const out = WordList.withCounts(data, kept, listFile);
  writeFileSync(listFile, out);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const again = WordList.parse(out, listFile);
  for (const [key, n] of kept)
    if (again.count(key) !== n) throw new Error(`${listFile}: "${key}" reads back ${again.count(key)}, not ${n}`);
  process.stdout.write(
    `${listFile}: ${files} files, ${total} words of the list written (${counts.size} distinct), ${kept.size} kept (${COUNT_MIN}+ times); ${(out.byteLength / 1e6).toFixed(2)} MB (${data.byteLength} bytes before)\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
