// A page's language, told by its function words: which letters it writes (engines/model/faithful.ts) and whether its
// diacritics are read (vision/diacritics.ts) follow from it.

/** Function words of English, and of the other Latin-script languages the decoder writes accents for: words of two
 * letters or more ("a", "e", "i", "s", "v", "z" are words of several), none of them an English word ("to", "is",
 * "as", "do", "come", "van" are not counted for Polish, Czech, Hungarian, Portuguese or Italian), and Hungarian's
 * "de" ("but") neither: it is the Romance languages' "of", and made Portuguese pages no language's. A word of two
 * languages' lists counts for neither (SHARED): Portuguese's "que", "para", "por", "se" are Spanish words too, and a
 * Portuguese page counted 16 to Spanish's 11, no language's. Portuguese's "não" is also counted as the recogniser
 * reads it, "nao". */
const FUNCTION_WORDS: readonly [string, ReadonlySet<string>][] = Object.entries({
  en: "the of and to is that for with are this be from which by as an it not or can on at we have has was were these their its",
  fr: "le la les des et est une du dans que qui pour pas sur au aux ce cette sont avec par il elle nous vous ou mais",
  de: "der die das und ist nicht mit den von zu ein eine dem des sich auf für im werden wird auch oder bei",
  es: "el los las que en una del por con para es se al lo como más pero sus su",
  it: "il di che della per sono non con del gli le una si da nel alla delle dei questo anche",
  pt: "os que da em uma para com não nao dos das por mais se ao",
  pl: "na że się nie jest jak od po przez dla oraz",
  cs: "na se je že pro jako ale jsou jsme nebo",
  hu: "az és hogy nem egy meg ez csak mint",
  tr: "ve bir bu da için ile olan gibi daha çok",
}).map(([k, v]) => [k, new Set(v.split(" "))]);
const SHARED: ReadonlySet<string> = new Set(
  FUNCTION_WORDS.flatMap(([lang, words]) => [...words].filter((w) => FUNCTION_WORDS.some(([other, set]) => other !== lang && set.has(w)))),
);
/** A page's language: at least this many of its function words, and this many times
 * those of any other language (twice: a manual in Portuguese names its software's English terms, 41 to 19 words on
 * a LibreOffice help page; dev set and language probe pages otherwise as at three times). */
const LANGUAGE_WORDS = 4;
const LANGUAGE_LEAD = 2;

/** Letters only Turkish writes (of the languages here): a word holding one counts as a Turkish function word. A
 * Turkish manual's page names its software in English ("Tools", "with the"), and a page of short lines holds few of
 * Turkish's function words: LibreOffice help pages set as documents (tr 15 / en 9 function words) and a man page's
 * options were no language's, and kept the recogniser's "tuşlarl" for "tuşları". */
const TURKISH_ONLY = /[ğı]/u;

/** The page's language by its function words (FUNCTION_WORDS): at least LANGUAGE_WORDS of one language's and
 * LANGUAGE_LEAD times any other's, else none. */
export function pageLanguage(text: string): string | undefined {
  const counts = new Map<string, number>();
  for (const w of text.toLowerCase().split(/[^\p{L}]+/u)) {
    if (!SHARED.has(w)) for (const [lang, set] of FUNCTION_WORDS) if (set.has(w)) counts.set(lang, (counts.get(lang) ?? 0) + 1);
    if (TURKISH_ONLY.test(w)) counts.set("tr", (counts.get("tr") ?? 0) + 1);
  }
  const [first, second] = [...counts].sort((a, b) => b[1] - a[1]);
  return first && first[1] >= LANGUAGE_WORDS && first[1] >= LANGUAGE_LEAD * (second?.[1] ?? 0) ? first[0] : undefined;
}

/** A Cyrillic word of two letters or more. */
const CYRILLIC_WORD = /\p{Script=Cyrillic}{2,}/gu;
/** Each Cyrillic language a page's letters tell: the letters it writes often and its neighbours never, and letters
 * it never writes (Belarusian's ў and Macedonian's ѓ, ќ, ѕ for every one). Bulgarian writes none of its own. */
const CYRILLIC_LANGUAGES = [
  { lang: "ru", own: /[ыэЫЭ]/u, foreign: /[іїєґўјљњћђџѓќѕІЇЄҐЎЈЉЊЋЂЏЃЌЅ]/u },
  { lang: "uk", own: /[іїєґІЇЄҐ]/u, foreign: /[ыэъёўјљњћђџѓќѕЫЭЪЁЎЈЉЊЋЂЏЃЌЅ]/u },
  { lang: "sr", own: /[јљњћђџЈЉЊЋЂЏ]/u, foreign: /[ыэъёйщьюяіїєґўѓќѕЫЭЪЁЙЩЬЮЯІЇЄҐЎЃЌЅ]/u },
] as const;
export type CyrillicLanguage = (typeof CYRILLIC_LANGUAGES)[number]["lang"];
/** A page's Cyrillic is taken for a language from this many words… */
const CYRILLIC_WORDS = 8;
/** …with this share of them at most holding a letter the language does not write (the decoder's strays: "Јинейка"). */
const STRAY_SHARE = 0.05;

/**
 * The language of a page's Cyrillic words, where their letters tell it: of CYRILLIC_WORDS words or more, at least two
 * hold letters only the language writes (Russian's ы and э, Ukrainian's і, ї, є, ґ, Serbian's ј, љ, њ, ћ, ђ, џ) and
 * hardly any a letter it never writes. Undefined otherwise (Bulgarian, which writes no letter of its own), and for a
 * page without Cyrillic. A page of English with Russian in it (a Russian manual's menu names) is Russian here: only
 * its Cyrillic words are of it.
 */
export function cyrillicLanguage(text: string): CyrillicLanguage | undefined {
  const words = text.match(CYRILLIC_WORD) ?? [];
  if (words.length < CYRILLIC_WORDS) return undefined;
  for (const { lang, own, foreign } of CYRILLIC_LANGUAGES) {
    const mine = words.filter((w) => own.test(w)).length;
    const other = words.filter((w) => foreign.test(w)).length;
    if (mine >= 2 && other <= STRAY_SHARE * words.length) return lang;
  }
  return undefined;
}
