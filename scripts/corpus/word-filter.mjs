#!/usr/bin/env node
// A language's word filter for the bundle (src/engines/model/words.ts): every form of a hunspell dictionary — its
// stems with each suffix and prefix rule their flags name, as hunspell's own affix rules build them (hunspell-tools'
// unmunch leaves out forms such as Russian's "является", "используется") — put in a Bloom filter.
//
//   apt-get download hunspell-ru && dpkg-deb -x hunspell-ru_*.deb ROOT
//   npm run build
//   node scripts/corpus/word-filter.mjs ROOT/usr/share/hunspell/ru_RU models/default/words-ru.bin [--bits 24]
//
// Prints the forms and the share of made-up strings (each form with two letters swapped) the filter holds.
// hunspell-ru is no reserved package, and no page of the dev set or the language probe is made from it.
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

/** Writes the filter of the dictionary at `base` (.dic, .aff) to `out`; prints its size and made-up strings held. */
async function main(args) {
  const { WordFilter, wordKey } = await import("../../dist/engines/model/words.js");
  const [base, out] = args;
  const bits = args.includes("--bits") ? Number(args[args.indexOf("--bits") + 1]) : 24;
  if (!base || !out || !(bits >= 4 && bits <= 64)) {
    process.stderr.write("usage: node scripts/corpus/word-filter.mjs DICT_BASE OUT.bin [--bits N]   (DICT_BASE.dic, DICT_BASE.aff)\n");
    process.exit(2);
  }
  const aff = readFileSync(`${base}.aff`, "utf8");
  const keys = new Set([...forms(readFileSync(`${base}.dic`, "utf8"), affixRules(aff), flagReader(aff, `${base}.aff`))].map(wordKey));
  const filter = WordFilter.sized(keys.size, bits);
  for (const k of keys) filter.add(k);
  writeFileSync(out, filter.serialize());
  let made = 0,
    held = 0;
  for (const k of keys) {
    if (k.length < 5 || made >= 200_000) continue;
    const swapped = k[0] + k[2] + k[1] + k.slice(3);
    if (keys.has(swapped)) continue;
    made++;
    if (filter.has(swapped)) held++;
  }
  process.stdout.write(`${out}: ${keys.size} forms, ${bits} bits each; made-up strings held ${held} of ${made}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
