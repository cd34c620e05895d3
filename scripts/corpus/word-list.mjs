#!/usr/bin/env node
// A language's word list for the bundle (src/engines/model/words.ts): every form of a hunspell dictionary — its
// stems with each suffix and prefix rule their flags name, as hunspell's own affix rules build them (hunspell-tools'
// unmunch leaves out forms such as Russian's "является", "используется") — as a minimal automaton.
//
//   apt-get download hunspell-{ru,uk,sr,pt-pt,pt-br,es} && for f in hunspell-*.deb; do dpkg-deb -x $f ROOT; done
//   npm run build
//   node scripts/corpus/word-list.mjs ROOT/usr/share/hunspell/ru_RU models/default/words-ru.bin
//   node scripts/corpus/word-list.mjs ROOT/usr/share/hunspell/uk_UA models/default/words-uk.bin
//   node scripts/corpus/word-list.mjs ROOT/usr/share/hunspell/sr_RS models/default/words-sr.bin
//   node scripts/corpus/word-list.mjs ROOT/usr/share/hunspell/pt_PT ROOT/usr/share/hunspell/pt_BR models/default/words-pt.bin
//   node scripts/corpus/word-list.mjs ROOT/usr/share/hunspell/es_ES models/default/words-es.bin
//
// Prints the forms and the file's size. None of these packages is reserved, and no page of the dev set or the
// language probe is made from them.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The affix rules of a hunspell .aff: flag -> { prefix?, cross, entries: { strip, add, condition } }. */
export function affixRules(text) {
  const rules = new Map();
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== "SFX" && f[0] !== "PFX") continue;
    const flag = f[1];
    if (!rules.has(flag)) {
      rules.set(flag, { prefix: f[0] === "PFX", cross: f[2] === "Y", entries: [] });
      continue;
    }
    const [, , strip, add, condition = "."] = f;
    const prefix = f[0] === "PFX";
    rules.get(flag).entries.push({
      strip: strip === "0" ? "" : strip,
      add: add === "0" ? "" : add.split("/")[0],
      condition: new RegExp(prefix ? `^(?:${condition})` : `(?:${condition})$`, "u"),
    });
  }
  return rules;
}

/** Every form of the .dic's stems under `rules` (suffixes, then prefixes on the stem and on its cross-product suffixed
 * forms); `flagsOf` splits a stem's flags (single characters, or as the .aff's FLAG says: `flagReader`). */
export function forms(dic, rules, flagsOf = (flags) => [...flags]) {
  const all = new Set();
  for (const line of dic.split("\n").slice(1)) {
    const [word, flags = ""] = line.trim().split(/\s+/)[0]?.split("/") ?? [];
    if (!word) continue;
    all.add(word);
    const suffixed = [];
    const applied = flagsOf(flags)
      .map((flag) => rules.get(flag))
      .filter(Boolean);
    for (const rule of applied.filter((r) => !r.prefix))
      for (const e of rule.entries)
        if (word.endsWith(e.strip) && e.condition.test(word)) {
          const form = word.slice(0, word.length - e.strip.length) + e.add;
          all.add(form);
          if (rule.cross) suffixed.push(form);
        }
    for (const rule of applied.filter((r) => r.prefix))
      for (const e of rule.entries)
        for (const stem of rule.cross ? [word, ...suffixed] : [word])
          if (stem.startsWith(e.strip) && e.condition.test(stem)) all.add(e.add + stem.slice(e.strip.length));
  }
  return all;
}

/** How the .aff's stems write their flags: one character each (no FLAG line, or FLAG UTF-8), two (FLAG long), or
 * numbers between commas (FLAG num, as hunspell-sr). */
export function flagReader(aff, file) {
  const kind = /^FLAG\s+(\S+)/m.exec(aff)?.[1];
  if (kind === undefined || kind === "UTF-8") return (flags) => [...flags];
  if (kind === "long") return (flags) => flags.match(/../gu) ?? [];
  if (kind === "num") return (flags) => (flags ? flags.split(",") : []);
  throw new Error(`${file}: FLAG ${kind} is not one hunspell knows`);
}

/** Writes the list of the dictionaries at each `base` (.dic, .aff; their forms together) to the last argument;
 * prints its forms and bytes. */
async function main(args) {
  const { WordList, wordKey } = await import("../../dist/engines/model/words.js");
  const bases = args.slice(0, -1);
  const out = args.at(-1);
  if (bases.length === 0 || !out) {
    process.stderr.write("usage: node scripts/corpus/word-list.mjs DICT_BASE [DICT_BASE ...] OUT.bin   (DICT_BASE.dic, DICT_BASE.aff)\n");
    process.exit(2);
  }
  const keys = new Set();
  for (const base of bases) {
    const aff = readFileSync(`${base}.aff`, "utf8");
    for (const form of forms(readFileSync(`${base}.dic`, "utf8"), affixRules(aff), flagReader(aff, `${base}.aff`))) keys.add(wordKey(form));
  }
  const data = WordList.build(keys);
  writeFileSync(out, data);
  // (every form is read back from the file: the list holds them all)
  const list = WordList.parse(data, out);
  const lost = [...keys].filter((k) => !list.has(k)).length;
  if (lost) throw new Error(`${out}: ${lost} of ${keys.size} forms not read back`);
  process.stdout.write(
    `${out}: ${keys.size} forms in ${data.byteLength} bytes (${((8 * data.byteLength) / keys.size).toFixed(2)} bits a form), letters ${list.letters}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
