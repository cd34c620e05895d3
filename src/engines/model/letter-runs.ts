// Letter-run caps for line views: the decoder of a line-unit model may not write an ASCII letter more times in
// a row than the recogniser read that letter repeated anywhere in the line. The recogniser sees doubled letters
// (CTC emits a blank between them); the small decoder, copying slot by slot, loses count on a run of identical
// slots and writes "fleeet" for the recogniser's "fleet". A letter the recogniser did not read in the line at
// all may appear at most `unseen` times in a row (the decoder's corrections stay possible).
import type { Tokenizer } from "../../model/tokenizer.js";

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
