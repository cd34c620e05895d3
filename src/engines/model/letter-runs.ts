// Letter-run caps for line views: the decoder of a line-unit model may not write an ASCII letter more times in
// a row than the recogniser read that letter repeated anywhere in the line. The recogniser sees doubled letters
// (CTC emits a blank between them); the small decoder, copying slot by slot, loses count on a run of identical
// slots and writes "fleeet" for the recogniser's "fleet". A letter the recogniser did not read in the line at
// all may appear at most `unseen` times in a row (the decoder's corrections stay possible).
// Also the tokens of a line's script ban (faithful.ts bannedScript decides the script): ids the engine never generates.
import type { Tokenizer } from "../../model/tokenizer.js";
import { type Script, scriptOf } from "./faithful.js";

const ASCII_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The longest run of each character in `text`. */
export function longestRuns(text: string): Map<string, number> {
  const runs = new Map<string, number>();
  const chars = Array.from(text);
  for (let i = 0, run = 0; i < chars.length; i++) {
    run = i > 0 && chars[i] === chars[i - 1] ? run + 1 : 1;
    if (run > (runs.get(chars[i]!) ?? 0)) runs.set(chars[i]!, run);
  }
  return runs;
}

/** Token id -> run cap for every ASCII letter the tokenizer has as one token, from the recogniser's reading. */
export function letterRunCaps(recognised: string, tokenizer: Tokenizer, unseen = 2): Map<number, number> {
  const seen = longestRuns(recognised);
  const caps = new Map<number, number>();
  for (const letter of ASCII_LETTERS) {
    const id = tokenizer.tokenId(letter);
    if (id !== undefined) caps.set(id, seen.get(letter) ?? unseen);
  }
  return caps;
}

const scriptCache = new WeakMap<Tokenizer, Map<Script, number[]>>();

/**
 * The ids of every token whose text has a letter of `script` (as the tokenizer decodes it alone, so byte-level
 * pieces of a letter are not counted); markup tokens (<table>, <PAGE>, special tokens) are never among them.
 */
export function scriptTokens(tokenizer: Tokenizer, script: Script): number[] {
  let byScript = scriptCache.get(tokenizer);
  if (!byScript) scriptCache.set(tokenizer, (byScript = new Map()));
  let ids = byScript.get(script);
  if (!ids) {
    ids = tokenizer.ids().filter((id) => {
      const text = tokenizer.decode([id]);
      return !/^<[^<>]*>$/.test(text) && Array.from(text).some((ch) => scriptOf(ch) === script);
    });
    byScript.set(script, ids);
  }
  return ids;
}

/**
 * What a line whose script `script` is banned may not write: that script's letters, and a backtick the recogniser
 * did not read (a code fence is what the decoder opens when its first letter is taken from it: "```" before
 * "Існує кілька плагінів" on a Ukrainian page, and the lines after it read as code).
 */
export function scriptBan(tokenizer: Tokenizer, script: Script, recognised: string): number[] {
  const tick = tokenizer.tokenId("`");
  return [...scriptTokens(tokenizer, script), ...(tick !== undefined && !recognised.includes("`") ? [tick] : [])];
}
