// A language's words, for the merge's last look at a page's spelling (faithful.ts languageLetters): where the decoder
// misread a letter of a Cyrillic word ("ииформация" for "информация"), the one word of the language one letter from
// it is written. The words are held as a Bloom filter (a few megabytes for a language's
// million and a half forms, read only when a page of the language comes), made from a hunspell dictionary by
// scripts/corpus/word-filter.mjs.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { ModelFileError } from "../../model/errors.js";

const MAGIC = "OCRWORDS";
/** header: magic (8 bytes), version, hashes, bit count (u32 each) */
const HEADER = 20;

/** 32-bit FNV-1a of a string's UTF-16 units from `seed`, then a final avalanche (murmur3's fmix32). */
function hash(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The form a word is held and asked in: lower case, ё as е (texts write either). */
export function wordKey(word: string): string {
  return word.toLowerCase().replace(/ё/g, "е");
}

/** A set of words as a Bloom filter: `has` is never false for a word put in, and true for another word at a rate set
 * by the bits per word (scripts/corpus/word-filter.mjs: 1 in about 200,000 at the shipped 24 bits and 17 hashes, 1 in
 * about 5,000 at 18 and 12). */
export class WordFilter {
  private constructor(
    private readonly bits: Uint8Array,
    private readonly size: number,
    private readonly hashes: number,
  ) {}

  /** An empty filter sized for `count` words at `bitsPerWord` bits each. */
  static sized(count: number, bitsPerWord: number): WordFilter {
    const size = Math.max(64, Math.ceil((count * bitsPerWord) / 8) * 8);
    const hashes = Math.max(1, Math.round(bitsPerWord * Math.LN2));
    return new WordFilter(new Uint8Array(size / 8), size, hashes);
  }

  /** A filter as `serialize` wrote it; `file` names it in the error for a file that is not one. */
  static parse(data: Uint8Array, file: string): WordFilter {
    const { hashes, size } = WordFilter.header(data, data.byteLength, file);
    return new WordFilter(data.subarray(HEADER), size, hashes);
  }

  static read(file: string): WordFilter {
    let data: Uint8Array;
    try {
      data = readFileSync(file);
    } catch (err) {
      throw new ModelFileError(file, `cannot read the word filter (${(err as Error).message})`, { cause: err });
    }
    return WordFilter.parse(data, file);
  }

  /** Throws the ModelFileError `read` would, from the file's header and length alone (a bundle's check at load). */
  static check(file: string): void {
    let head: Uint8Array, bytes: number;
    try {
      const fd = openSync(file, "r");
      try {
        bytes = fstatSync(fd).size;
        head = new Uint8Array(HEADER);
        head = head.subarray(0, readSync(fd, head, 0, HEADER, 0));
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw new ModelFileError(file, `cannot read the word filter (${(err as Error).message})`, { cause: err });
    }
    WordFilter.header(head, bytes, file);
  }

  /** The header of a filter file of `bytes` bytes whose first bytes are `data`, checked against its length. */
  private static header(data: Uint8Array, bytes: number, file: string): { hashes: number; size: number } {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const magic = Buffer.from(data.subarray(0, 8)).toString("latin1");
    if (data.byteLength < HEADER || magic !== MAGIC || view.getUint32(8, true) !== 1)
      throw new ModelFileError(file, `not a word filter (expected ${MAGIC} version 1)`);
    const hashes = view.getUint32(12, true);
    const size = view.getUint32(16, true);
    if (hashes < 1 || hashes > 32 || size % 8 !== 0 || bytes !== HEADER + size / 8)
      throw new ModelFileError(file, `word filter header does not match its ${bytes} bytes`);
    return { hashes, size };
  }

  add(word: string): void {
    this.probe(wordKey(word), (bit) => {
      this.bits[bit >>> 3]! |= 1 << (bit & 7);
      return true;
    });
  }

  has(word: string): boolean {
    return this.probe(wordKey(word), (bit) => (this.bits[bit >>> 3]! & (1 << (bit & 7))) !== 0);
  }

  serialize(): Uint8Array {
    const out = new Uint8Array(HEADER + this.bits.byteLength);
    out.set(Buffer.from(MAGIC, "latin1"), 0);
    const view = new DataView(out.buffer);
    view.setUint32(8, 1, true);
    view.setUint32(12, this.hashes, true);
    view.setUint32(16, this.size, true);
    out.set(this.bits, HEADER);
    return out;
  }

  /** Calls `at` with each of the key's bits (double hashing) while it returns true; whether all did. */
  private probe(key: string, at: (bit: number) => boolean): boolean {
    const a = hash(key, 0);
    const b = hash(key, 0x9e3779b9) | 1;
    for (let i = 0; i < this.hashes; i++) if (!at(((a + Math.imul(i, b)) >>> 0) % this.size)) return false;
    return true;
  }
}

/** A word is looked at from this many letters: the shorter, the more words of the language lie one letter apart
 * (the probe's Russian pages: words of four letters as well, one error more). */
export const NEAREST_MIN_LETTERS = 5;
const CYRILLIC_WORD = /^\p{Script=Cyrillic}+$/u;
const ALPHABET = "абвгдежзийклмнопрстуфхцчшщъыьэюя";

/**
 * `word` as the language writes it: itself where `words` holds it or it is not a Cyrillic word of
 * NEAREST_MIN_LETTERS letters or more; else the one word of `words` one letter from it (a letter changed, put in or
 * left out: the decoder's misreadings in TeX's faces are of any letter, "спена" for "сцена", "управлени" for
 * "управления", "Даклее" for "Далее"), where there is exactly one. A letter put in keeps the case around it.
 */
export function nearestWord(word: string, words: WordFilter): string {
  if (word.length < NEAREST_MIN_LETTERS || !CYRILLIC_WORD.test(word) || words.has(word)) return word;
  const found = new Map<string, string>();
  const upper = word === word.toUpperCase();
  const tryWord = (candidate: string) => {
    if (found.size < 2 && words.has(candidate)) found.set(wordKey(candidate), candidate);
  };
  for (let i = 0; i < word.length; i++) {
    const capital = word[i] !== word[i]!.toLowerCase();
    for (const ch of ALPHABET) tryWord(word.slice(0, i) + (capital ? ch.toUpperCase() : ch) + word.slice(i + 1));
    tryWord(word.slice(0, i) + word.slice(i + 1));
  }
  for (let i = 0; i <= word.length; i++)
    for (const ch of ALPHABET) tryWord(word.slice(0, i) + (upper ? ch.toUpperCase() : ch) + word.slice(i));
  return found.size === 1 ? [...found.values()][0]! : word;
}
