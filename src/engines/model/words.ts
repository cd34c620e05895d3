// A language's words, for the merge's last look at a page's spelling (faithful.ts languageLetters): where the decoder
// misread a letter of a Cyrillic word ("ииформация" for "информация"), the one word of the language one letter from
// it is written, and where a Latin word's marks were missed ("funcao"), the one word spelled so but for its marks. The words are held as a minimal acyclic automaton (a language's million or three of forms share
// their beginnings and their endings: 0.6 MB for Russian's 1.4 million, 1.7 MB for Ukrainian's 3.3 million), read
// only when a page of the language comes, made from a hunspell dictionary by scripts/corpus/word-list.mjs.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { ModelFileError } from "../../model/errors.js";

const MAGIC = "OCRWORDA";
/**
 * header: magic (8 bytes), version, letters, root, edge bytes (u32 each); then the letters (u16 each), the edges.
 * Version 2 adds a u32 to the header, the bytes of the word counts that follow the edges (`withCounts`).
 */
const HEADER = 24;
const HEADER_COUNTED = 28;

/** The form a word is held and asked in: lower case, ё as е (texts write either). */
export function wordKey(word: string): string {
  return word.toLowerCase().replace(/ё/g, "е");
}

/** A state of the automaton while it is built: its edges by letter, and whether a word ends there. */
interface Building {
  final: boolean;
  edges: [string, Building][];
  /** its number once it is one of the register's (equal states share one) */
  id: number;
}

/**
 * A language's words, exactly: `has` is true for the words put in and no other. Held as the minimal automaton of
 * their keys (wordKey), each state's edges one after another, each edge its letter's number (a byte), then a number
 * in 7-bit groups: how far back its target state begins (0: a state without edges), times 4, plus 2 where a word
 * ends on it and 1 for a state's last edge. A state is written after every state it leads to.
 */
export class WordList {
  private readonly codes = new Map<string, number>();
  private constructor(
    private readonly edges: Uint8Array,
    /** the letters the words are spelled in, by number */
    readonly letters: string,
    private readonly root: number,
  ) {
    for (let i = 0; i < letters.length; i++) this.codes.set(letters[i]!, i);
  }

  /** The list of `words` (any case; ё as е). */
  static of(words: Iterable<string>): WordList {
    const data = WordList.build(words);
    return WordList.parse(data, "(built)");
  }

  /** The file of `words`: their keys' minimal automaton (Daciuk et al.'s incremental construction over sorted keys). */
  static build(words: Iterable<string>): Uint8Array {
    const keys = [...new Set([...words].map(wordKey))].filter((k) => k.length > 0).sort();
    const letters = [...new Set(keys.join(""))].sort().join("");
    if (letters.length > 256) throw new Error(`a word list spells its words in at most 256 letters, not ${letters.length}`);
    const register = new Map<string, Building>();
    let ids = 0;
    const state = (): Building => ({ final: false, edges: [], id: -1 });
    const root = state();
    const path: Building[] = [root];
    // the states of the path below `depth` are final: each is replaced by its equal in the register, or joins it
    const settle = (depth: number) => {
      for (let i = path.length - 1; i > depth; i--) {
        const child = path[i]!;
        const signature = `${child.final ? 1 : 0}${child.edges.map(([ch, s]) => ch + s.id).join(",")}`;
        let known = register.get(signature);
        if (!known) register.set(signature, (known = Object.assign(child, { id: ids++ })));
        const edges = path[i - 1]!.edges;
        edges[edges.length - 1]![1] = known;
      }
      path.length = depth + 1;
    };
    let previous = "";
    for (const key of keys) {
      let shared = 0;
      while (shared < key.length && key[shared] === previous[shared]) shared++;
      settle(shared);
      for (const ch of key.slice(shared)) {
        const next = state();
        path[path.length - 1]!.edges.push([ch, next]);
        path.push(next);
      }
      path[path.length - 1]!.final = true;
      previous = key;
    }
    settle(0);
    // the edges: each state after those it leads to (its first edge's target nearest), its first edge's offset kept
    const out: number[] = [];
    const at = new Map<Building, number>();
    const write = (s: Building) => {
      if (at.has(s) || s.edges.length === 0) return;
      for (let k = s.edges.length - 1; k >= 0; k--) write(s.edges[k]![1]);
      at.set(s, out.length);
      s.edges.forEach(([ch, target], k) => {
        out.push(letters.indexOf(ch));
        const back = target.edges.length ? out.length - at.get(target)! : 0;
        let v = back * 4 + (target.final ? 2 : 0) + (k === s.edges.length - 1 ? 1 : 0);
        for (; v >= 0x80; v = Math.floor(v / 128)) out.push((v & 0x7f) | 0x80);
        out.push(v);
      });
    };
    write(root);
    const data = new Uint8Array(HEADER + 2 * letters.length + out.length);
    const view = new DataView(data.buffer);
    data.set(Buffer.from(MAGIC, "latin1"), 0);
    view.setUint32(8, 1, true);
    view.setUint32(12, letters.length, true);
    view.setUint32(16, root.edges.length ? at.get(root)! : out.length, true);
    view.setUint32(20, out.length, true);
    for (let i = 0; i < letters.length; i++) view.setUint16(HEADER + 2 * i, letters.charCodeAt(i), true);
    data.set(out, HEADER + 2 * letters.length);
    return data;
  }

  /** A list as `build` wrote it; `file` names it in the error for a file that is not one. */
  static parse(data: Uint8Array, file: string): WordList {
    const { head, letters, root, bytes, counts } = WordList.header(data, data.byteLength, file);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const spelled = Array.from({ length: letters }, (_, i) => String.fromCharCode(view.getUint16(head + 2 * i, true))).join("");
    const start = head + 2 * letters;
    const list = new WordList(data.subarray(start, start + bytes), spelled, root);
    if (counts > 0) list.countData = { data: data.subarray(start + bytes, start + bytes + counts), file };
    return list;
  }

  /**
   * The file `data` (a list's, either version) with `counts` (word keys and how often texts write them) stored
   * beside its automaton: a raw deflate stream of lines "key count", the most written first. Only words the list
   * holds may be counted.
   */
  static withCounts(data: Uint8Array, counts: ReadonlyMap<string, number>, file = "(built)"): Uint8Array {
    const { head, letters, bytes } = WordList.header(data, data.byteLength, file);
    const list = WordList.parse(data, file);
    for (const [key, n] of counts)
      if (!list.has(key) || key !== wordKey(key) || !Number.isInteger(n) || n < 1)
        throw new Error(`${file}: cannot count "${key}" ${n} times (not a word of the list, or not a count)`);
    const text = [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([key, n]) => `${key} ${n}\n`)
      .join("");
    const packed = text ? deflateRawSync(Buffer.from(text, "utf8"), { level: 9 }) : new Uint8Array(0);
    const body = data.subarray(head, head + 2 * letters + bytes);
    const out = new Uint8Array(HEADER_COUNTED + body.byteLength + packed.byteLength);
    out.set(data.subarray(0, HEADER), 0);
    const view = new DataView(out.buffer);
    view.setUint32(8, 2, true);
    view.setUint32(24, packed.byteLength, true);
    out.set(body, HEADER_COUNTED);
    out.set(packed, HEADER_COUNTED + body.byteLength);
    return out;
  }

  /** How often the texts the list was counted in write `word` (any case; ё as е): 0 for a word they write fewer than
   * scripts/corpus/word-counts.mjs's COUNT_MIN times, and for every word of a list without counts. */
  count(word: string): number {
    return this.countsRead().get(wordKey(word)) ?? 0;
  }

  /** The counted words (keys) and their counts, the most written first: empty for a list without counts. */
  get countedWords(): ReadonlyMap<string, number> {
    return this.countsRead();
  }

  private countsRead(): Map<string, number> {
    if (!this.counts) {
      this.counts = new Map();
      if (this.countData) {
        let text: string;
        try {
          text = inflateRawSync(this.countData.data).toString("utf8");
        } catch (err) {
          throw new ModelFileError(this.countData.file, `the word list's counts do not read (${(err as Error).message})`, { cause: err });
        }
        for (const line of text.split("\n")) {
          const space = line.lastIndexOf(" ");
          if (space > 0) this.counts.set(line.slice(0, space), Number(line.slice(space + 1)));
        }
      }
    }
    return this.counts;
  }

  /** Whether the list holds counts (`count`). */
  get counted(): boolean {
    return this.countData !== undefined;
  }

  private countData?: { data: Uint8Array; file: string };
  private counts?: Map<string, number>;

  static read(file: string): WordList {
    let data: Uint8Array;
    try {
      data = readFileSync(file);
    } catch (err) {
      throw new ModelFileError(file, `cannot read the word list (${(err as Error).message})`, { cause: err });
    }
    return WordList.parse(data, file);
  }

  /** Throws the ModelFileError `read` would, from the file's header and length alone (a bundle's check at load). */
  static check(file: string): void {
    let head: Uint8Array, bytes: number;
    try {
      const fd = openSync(file, "r");
      try {
        bytes = fstatSync(fd).size;
        head = new Uint8Array(HEADER_COUNTED);
        head = head.subarray(0, readSync(fd, head, 0, HEADER_COUNTED, 0));
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw new ModelFileError(file, `cannot read the word list (${(err as Error).message})`, { cause: err });
    }
    WordList.header(head, bytes, file);
  }

  /** The header of a list file of `bytes` bytes whose first bytes are `data`, checked against its length. */
  private static header(
    data: Uint8Array,
    bytes: number,
    file: string,
  ): { head: number; letters: number; root: number; bytes: number; counts: number } {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const magic = Buffer.from(data.subarray(0, 8)).toString("latin1");
    const version = data.byteLength >= HEADER ? view.getUint32(8, true) : 0;
    const head = version === 2 ? HEADER_COUNTED : HEADER;
    if (data.byteLength < head || magic !== MAGIC || (version !== 1 && version !== 2))
      throw new ModelFileError(file, `not a word list (expected ${MAGIC} version 1 or 2)`);
    const letters = view.getUint32(12, true);
    const root = view.getUint32(16, true);
    const edges = view.getUint32(20, true);
    const counts = version === 2 ? view.getUint32(24, true) : 0;
    if (letters > 256 || root > edges || bytes !== head + 2 * letters + edges + counts)
      throw new ModelFileError(file, `word list header does not match its ${bytes} bytes`);
    return { head, letters, root, bytes: edges, counts };
  }

  /** The Cyrillic letters of `letters` (the alphabet a misread letter is looked for in: words.ts nearestWord). */
  get cyrillic(): string {
    return (this.cyrillicLetters ??= [...this.letters].filter((ch) => /\p{Script=Cyrillic}/u.test(ch)).join(""));
  }
  private cyrillicLetters?: string;

  /**
   * The list's words (small letters) as long as `word` whose every letter is `word`'s letter there, or another of the
   * same base letter under `fold` ("funcao", "funçao" -> "função"): at most `limit` of them, in the list's order.
   */
  spelledAlike(word: string, fold: (ch: string) => string, limit = 2): string[] {
    const key = wordKey(word);
    const want = Array.from(key, fold);
    const folded = Array.from(this.letters, fold);
    const found: string[] = [];
    const edge = this.edge;
    const walk = (state: number, i: number, prefix: string, final: boolean): void => {
      if (found.length >= limit) return;
      if (i === want.length) {
        if (final) found.push(prefix);
        return;
      }
      for (let p = state; this.readEdge(p); ) {
        // (copied out of the record: the walk below reads other edges into it)
        const { letter, target, final: ends, last, next } = edge;
        if (letter >= folded.length) return;
        if (folded[letter] === want[i]) walk(target, i + 1, prefix + this.letters[letter], ends);
        if (last) return;
        p = next;
      }
    };
    if (want.length > 0) walk(this.root, 0, "", false);
    return found;
  }

  /** Whether `word` (any case; ё as е) is one of the list's. */
  has(word: string): boolean {
    const key = wordKey(word);
    const edge = this.edge;
    let state = this.root,
      final = false;
    for (let i = 0; i < key.length; i++) {
      const code = this.codes.get(key[i]!);
      if (code === undefined) return false;
      // the state's edges, in the order of their letters' numbers
      for (let p = state; ; p = edge.next) {
        if (!this.readEdge(p) || edge.letter > code) return false;
        if (edge.letter === code) break;
        if (edge.last) return false;
      }
      [state, final] = [edge.target, edge.final];
    }
    return key.length > 0 && final;
  }

  /** The edge `readEdge` read last (one record, rewritten by each read: no object per edge on the lookups' path). */
  private readonly edge = { letter: 0, target: 0, final: false, last: false, next: 0 };

  /**
   * Reads the edge at byte `p` into `edge`: its letter's number, its target state (the end of the edges for a state
   * without edges), whether a word ends on it, whether it is its state's last, and where the next edge begins.
   * False where `p` or the target lies outside the edges (a file cut short or damaged).
   */
  private readEdge(p: number): boolean {
    const e = this.edges;
    if (p < 0 || p >= e.length) return false;
    const letter = e[p++]!;
    const here = p;
    let v = 0,
      scale = 1;
    while (p < e.length && e[p]! & 0x80) {
      v += (e[p++]! & 0x7f) * scale;
      scale *= 128;
    }
    if (p >= e.length) return false;
    v += e[p++]! * scale;
    const back = Math.floor(v / 4);
    const target = back === 0 ? e.length : here - back;
    if (target < 0) return false;
    const edge = this.edge;
    edge.letter = letter;
    edge.target = target;
    edge.final = (v & 2) !== 0;
    edge.last = (v & 1) !== 0;
    edge.next = p;
    return true;
  }
}

/** A word is looked at from this many letters: the shorter, the more words of the language lie one letter apart
 * (the probe's Russian pages: words of four letters as well, one error more). */
export const NEAREST_MIN_LETTERS = 5;
const CYRILLIC_WORD = /^\p{Script=Cyrillic}+$/u;

/**
 * `word` as the language writes it: itself where `words` holds it or it is not a Cyrillic word of
 * NEAREST_MIN_LETTERS letters or more; else the one word of `words` one letter from it (a letter changed, put in or
 * left out: the decoder's misreadings in TeX's faces are of any letter, "спена" for "сцена", "управлени" for
 * "управления", "Даклее" for "Далее"), where there is exactly one. A letter put in keeps the case around it.
 * Where several are, the page's own words (`page`) choose: the one the page writes elsewhere
 * ("файсов" is "факсов" on a page about faxes, not "фарсов" or "файлов"), else the one that shares the longest
 * beginning, STEM_LETTERS letters or more, with a word the page writes (a form of it: "спена" is "сцена" on a page
 * that writes "сцены"), else the one the decoder nearly wrote (`nearly`, per letter of `word`: the letters it ranked next
 * there, runnerUps; "вранения" is "вращения", not "хранения", where щ was ranked next to its н; of several so ranked,
 * the one the language's texts write far more often, mostWritten), else the one those texts write far more often than
 * the others.
 */
export function nearestWord(word: string, words: WordList, page?: PageWords, nearly?: readonly (string | undefined)[]): string {
  if (word.length < NEAREST_MIN_LETTERS || !CYRILLIC_WORD.test(word) || words.has(word)) return word;
  const found = new Map<string, string>();
  const upper = word === word.toUpperCase();
  const alphabet = words.cyrillic;
  // (without the page's words, a second word ends the search: no word is written)
  const tryWord = (candidate: string) => {
    if ((page || found.size < 2) && words.has(candidate)) found.set(wordKey(candidate), candidate);
  };
  for (let i = 0; i < word.length; i++) {
    const capital = word[i] !== word[i]!.toLowerCase();
    for (const ch of alphabet) tryWord(word.slice(0, i) + (capital ? ch.toUpperCase() : ch) + word.slice(i + 1));
    tryWord(word.slice(0, i) + word.slice(i + 1));
  }
  for (let i = 0; i <= word.length; i++)
    for (const ch of alphabet) tryWord(word.slice(0, i) + (upper ? ch.toUpperCase() : ch) + word.slice(i));
  if (found.size === 1) return [...found.values()][0]!;
  if (!page || found.size === 0) return word;
  const written = [...found.keys()].filter((key) => page.has(key));
  if (written.length === 1) return found.get(written[0]!)!;
  const stem = (key: string) => {
    let best = 0;
    for (const v of page.keys()) {
      let k = 0;
      while (k < key.length && key[k] === v[k]) k++;
      best = Math.max(best, k);
    }
    return best;
  };
  const stems = new Map([...found.keys()].map((key) => [key, stem(key)]));
  const longest = Math.max(...stems.values());
  const nearest = [...stems].filter(([, k]) => k === longest);
  if (longest >= STEM_LETTERS && nearest.length === 1) return found.get(nearest[0]![0])!;
  // (of several the decoder ranked next, the one its texts write far more often)
  const ranked = nearly ? [...found.keys()].filter((key) => nearlyWritten(wordKey(word), key, nearly)) : [];
  const chosen = ranked.length === 1 ? ranked[0] : mostWritten(ranked, words);
  if (chosen !== undefined) return found.get(chosen)!;
  const common = mostWritten([...found.keys()], words);
  return common === undefined ? word : found.get(common)!;
}

/**
 * `key` (a word's key) is `word`'s (its key) one letter off as the decoder nearly wrote it (`nearly`: per letter of the
 * word, and for what follows it, the letters it ranked next to what it wrote there): a letter changed for one ranked
 * next to it, a letter put in that was ranked next to what it wrote in its place ("функци" + "и" ranked next to the
 * space after it), or a letter left out where the letter after it was ranked next to it (the decoder wrote one letter
 * too early).
 */
function nearlyWritten(word: string, key: string, nearly: readonly (string | undefined)[]): boolean {
  const ranked = (i: number, ch: string | undefined) => ch !== undefined && wordKey(nearly[i] ?? "").includes(ch);
  if (key.length === word.length) {
    let at = -1;
    for (let i = 0; i < key.length; i++)
      if (key[i] !== word[i]) {
        if (at >= 0) return false;
        at = i;
      }
    return at >= 0 && ranked(at, key[at]);
  }
  if (key.length === word.length + 1) {
    for (let i = 0; i <= word.length; i++)
      if (key.slice(0, i) === word.slice(0, i) && key.slice(i + 1) === word.slice(i) && ranked(i, key[i])) return true;
    return false;
  }
  if (key.length === word.length - 1)
    for (let i = 0; i < key.length; i++)
      if (key.slice(0, i) === word.slice(0, i) && key.slice(i) === word.slice(i + 1) && ranked(i, word[i + 1])) return true;
  return false;
}

/**
 * Of `keys` (words of `words`), the one its texts write COMMON_LEAD times as often as any other and COMMON_LEAD times
 * or more (WordList.count): a misread word's likeliest neighbour where the page does not tell ("улалить" is "удалить",
 * written 411 times in the Russian texts counted, not "ужалить", "умалить" or "уладить", never). Undefined where none
 * leads so, as among a word's own forms ("перемещени": перемещение 198, перемещения 138, перемещении 33).
 */
function mostWritten(keys: readonly string[], words: WordList): string | undefined {
  if (!words.counted) return undefined;
  const [first, second] = keys.map((key) => [key, words.count(key)] as const).sort((a, b) => b[1] - a[1]);
  return first && first[1] >= COMMON_LEAD * Math.max(1, second?.[1] ?? 0) ? first[0] : undefined;
}

/** A word is taken for a misread neighbour's where its texts write it this many times as often as any other
 * neighbour's (mostWritten). */
export const COMMON_LEAD = 3;

/**
 * A Cyrillic word of FAR_MIN_LETTERS letters or more that `words` lacks, as the word its language's texts write two
 * letters from it (words.ts counts: a letter changed, put in or left out, twice): the one such word, or the one written
 * COMMON_LEAD times as often as any other, in `word`'s capitals ("немеенное", "экстспорт", "предыушей" for
 * "немедленное", "экспорт", "предыдущей": the decoder's misreadings two letters off, which no word one letter off
 * spells); a word one letter from one of them is left to nearestWord. `word` itself where none is, or the list has no
 * counts.
 */
export function commonFarWord(word: string, words: WordList): string {
  if (word.length < FAR_MIN_LETTERS || !words.counted || !CYRILLIC_WORD.test(word) || words.has(word)) return word;
  const key = wordKey(word);
  const near: string[] = [];
  for (const form of words.countedWords.keys()) {
    if (Math.abs(form.length - key.length) > FAR_DISTANCE) continue;
    const d = distance(form, key, FAR_DISTANCE + 1);
    // (a word one letter off is nearestWord's to choose, or to leave)
    if (d < FAR_DISTANCE) return word;
    if (d === FAR_DISTANCE) near.push(form);
  }
  if (near.length === 0) return word;
  const common = near.length === 1 ? near[0] : mostWritten(near, words);
  return common === undefined ? word : inCaseOf(word, common);
}

/**
 * A Cyrillic word holding a letter its list's language never writes (a Russian page's "двоїными", a Serbian page's
 * "ПОЛЬЕ": the decoder's letters of a neighbouring language), as the one word of the list that a letter of the
 * language in that letter's place, or no letter, makes of it: the one such word, else the one its twin spells
 * (FOREIGN_TWINS: ї as й, і as и, є as е; ль and нь as Serbian's љ and њ). `word` itself where neither is (the
 * one-letter pass, nearestWord, chooses then), or the word has more than one such letter.
 */
export function ownLetterWord(word: string, words: WordList): string {
  if (!CYRILLIC_WORD.test(word)) return word;
  const key = wordKey(word);
  const foreign = [...key].flatMap((ch, i) => (NEIGHBOUR_LETTERS.includes(ch) && !words.letters.includes(ch) ? [i] : []));
  if (foreign.length !== 1) return word;
  const at = foreign[0]!;
  const spelled = (ch: string) => key.slice(0, at) + ch + key.slice(at + 1);
  const found = new Set([...words.cyrillic, ""].map(spelled).filter((form) => words.has(form)));
  const twins = [...(FOREIGN_TWINS[key[at]!] ?? "")].filter((ch) => words.letters.includes(ch)).map(spelled);
  // (a soft sign after л or н: Serbian writes the pair as one letter)
  if (key[at] === "ь" && at > 0 && /[лн]/.test(key[at - 1]!)) {
    const one = key.slice(0, at - 1) + (key[at - 1] === "л" ? "љ" : "њ") + key.slice(at + 1);
    if (words.has(one)) {
      found.add(one);
      twins.unshift(one);
    }
  }
  const forms = [...found];
  const chosen = forms.length === 1 ? forms[0] : twins.find((t) => found.has(t));
  return chosen === undefined ? word : inCaseOf(word, chosen);
}

/** The Cyrillic letters some of the languages write and others never (Russian's ы э ъ ё, Ukrainian's і ї є ґ,
 * Serbian's ј љ њ ћ ђ џ, Belarusian's ў, Macedonian's ѓ ќ ѕ, and й щ ь ю я, which Serbian never writes). */
const NEIGHBOUR_LETTERS = "ыэъёіїєґјљњћђџўѓќѕйщьюя";

/** The letter of a Cyrillic language a neighbour's letter stands for, where the decoder wrote the neighbour's
 * (ownLetterWord): the letters their marks or shapes make alike. */
const FOREIGN_TWINS: Record<string, string> = { ї: "йиі", і: "иі", є: "еэ", ў: "уй", ґ: "г", ј: "й", ы: "и", э: "е", ъ: "ь", й: "ј" };

/** The fewest letters of a word looked for two letters off among the counted words (commonFarWord): shorter words lie
 * two letters from too many. */
export const FAR_MIN_LETTERS = 7;
const FAR_DISTANCE = 2;

/**
 * A Cyrillic word of NEAREST_MIN_LETTERS letters or more that `words` lacks, as the decoder's ways of losing its
 * place in a word leave it: a letter or a run of two or three written twice ("импорттировать", "шабаблона",
 * "заменяеняет", "ЭтОтот" for "импортировать", "шаблона", "заменяет", "Этот": the run written once), or щ written as
 * "пц" or "шц" (TeX's щ is a ш with a tail: "врапцать", "текупцих" for "вращать", "текущих"), else two words
 * run together ("трёхмерногоизображения": the two words, a space between, each of MIN_PART letters or more, the
 * second not a capital's). Only where exactly one such word, or else one such pair, is in `words`; else `word` itself.
 */
export function repairedWord(word: string, words: WordList): string {
  if (word.length < NEAREST_MIN_LETTERS || !CYRILLIC_WORD.test(word) || words.has(word)) return word;
  const once = new Map<string, string>();
  const lower = wordKey(word);
  const cased = (ch: string) => ch !== ch.toLowerCase();
  for (let size = 1; size <= 3; size++)
    for (let i = 0; i + 2 * size <= word.length; i++)
      if (lower.slice(i, i + size) === lower.slice(i + size, i + 2 * size)) {
        // (the copy in the case of the letter before it stays, the first where the run opens the word: "стоОлам" is
        // "столам", "ЭтОтот" "Этот", "Ээтот" "Этот")
        const keepFirst = i === 0 || cased(word[i]!) === cased(word[i - 1]!);
        const shorter = keepFirst ? word.slice(0, i + size) + word.slice(i + 2 * size) : word.slice(0, i) + word.slice(i + size);
        if (words.has(shorter)) once.set(wordKey(shorter), shorter);
      }
  // (щ written as the two letters its halves look like: "Обпцие", "врапцать" for "Общие", "вращать")
  for (const m of word.matchAll(/[пш]ц/giu)) {
    const whole = word.slice(0, m.index) + (m[0][0] === m[0][0]!.toLowerCase() ? "щ" : "Щ") + word.slice(m.index + 2);
    if (words.has(whole)) once.set(wordKey(whole), whole);
  }
  if (once.size > 0) return once.size === 1 ? [...once.values()][0]! : word;
  const split = new Map<string, string>();
  for (let i = MIN_PART; i + MIN_PART <= word.length; i++) {
    const [a, b] = [word.slice(0, i), word.slice(i)];
    // (a capital inside the word is how it is written: "ПараметрыСервис", a menu's path run together on the page)
    if (b[0] === b[0]!.toLowerCase() && words.has(a) && words.has(b)) split.set(`${wordKey(a)} ${wordKey(b)}`, `${a} ${b}`);
  }
  return split.size === 1 ? [...split.values()][0]! : word;
}

/** The least letters of each word of two the decoder ran together (repairedWord): shorter words split off a misread
 * one too often ("Отк роте", "форм ать", "управ лени"). */
export const MIN_PART = 5;

/** The words of the language a page writes, by wordKey, each as the page spells it (small letters, ё where it has
 * one): languageLetters' choice among near words (nearestWord, pageForm). */
export type PageWords = ReadonlyMap<string, string>;

/**
 * A Cyrillic word of PAGE_FORM_LETTERS letters or more that `words` lacks, as the page writes it elsewhere: the one
 * word of the page's own (`page`) two letters from it ("сотрунниячества",
 * "систраницы", "целкнте" on a page that writes "сотрудничества", "страницы", "щёлкните"), in `word`'s capitals; else
 * `word` itself. The decoder's misreadings of a word the page uses again are seldom the same twice.
 */
export function pageForm(word: string, words: WordList, page: PageWords): string {
  if (word.length < PAGE_FORM_LETTERS || !CYRILLIC_WORD.test(word) || words.has(word)) return word;
  const key = wordKey(word);
  const near = [...page].filter(([k]) => Math.abs(k.length - key.length) <= 2 && distance(k, key) === 2);
  return near.length === 1 ? inCaseOf(word, near[0]![1]) : word;
}

/** A word is looked for among the page's own two letters off from this many letters (pageForm; shorter words lie two
 * letters from too many others). */
export const PAGE_FORM_LETTERS = 6;

/** A word and a word the page writes share a beginning of this many letters or more: forms of one word (nearestWord). */
export const STEM_LETTERS = 5;

/**
 * The Cyrillic letters a recogniser without Cyrillic reads, in some face, as each of its characters or pairs of them
 * (a capital where its small letter reads otherwise: B в, b ь): the look-alikes of faithful.ts (CYRILLIC_LOOKS,
 * READ_ALSO, READ_AS_LATIN_ONLY, READ_IN_TWO) and those of TeX's faces (Computer Modern's и and н as H, д and п as I,
 * л as JI or .JI, ы as bI, ю as IO, ж as XK or *; CMU Sans's й as n, ф as cp, д as μ or n, я as 9 or %; the recogniser's
 * CJK guesses 中 for ф, 山 and 叫 for щ; Г as T or 「, ш as the numeral Ⅲ, п as ∩, и and й as W, Л as N, Serbian's
 * Ђ as T); Ukrainian's і, ї, є as i, ï,
 * e, and Serbian's ј as j, ћ as h, љ and њ as b (their soft sign), jb and hb (the Serbian and Ukrainian man pages of
 * the language probe). Other characters are looked up small.
 */
const READS: Record<string, string> = {
  A: "адя",
  a: "ая",
  B: "в",
  b: "ьъбљњ",
  c: "с",
  e: "еёє",
  H: "нип",
  h: "нћ",
  k: "к",
  m: "ми",
  N: "ийл",
  n: "плийд",
  o: "о",
  p: "р",
  t: "т",
  T: "тгђ",
  y: "у",
  v: "у",
  x: "хж",
  "3": "зэ",
  "6": "б",
  "0": "о",
  "4": "ч",
  "9": "я",
  u: "ицч",
  i: "дпилі",
  r: "г",
  w: "шщ",
  W: "шщий",
  j: "лдј",
  l: "ц",
  φ: "ф",
  μ: "д",
  "*": "ж",
  "%": "я",
  中: "ф",
  山: "щ",
  Ⅲ: "шщ",
  "∩": "п",
  "「": "г",
  叫: "щ",
  ï: "ї",
  ".j": "л",
  ".i": "л",
  ".ji": "л",
  ji: "л",
  jb: "љ",
  hb: "њ",
  bi: "ы",
  bl: "ы",
  b1: "ы",
  io: "ю",
  i0: "ю",
  ii: "п",
  xk: "ж",
  ">k": "ж",
  cp: "ф",
  iii: "ш",
};
/** Letters Russian doubles often (-нн- of adjectives, "класс"), which the recogniser reads once where the two
 * glyphs' CTC steps run together ("Bbi6paHbin" for "выбранный"): a glyph read as one stands for the pair too. */
const DOUBLED = "нс";
/** Forms of a reading are spelled out up to this many (a word's readings multiply by each ambiguous glyph). */
const READING_FORMS = 4096;

/** The Cyrillic spellings a recogniser's reading of a word stands for, glyph by glyph through READS (none where a
 * character is no look-alike of any); given `near`, only those whose every beginning lies within READING_DISTANCE
 * letters of a beginning of `near` (small letters, ё as е), which keeps a reading of many ambiguous glyphs in bounds;
 * given `alphabet` (a word list's letters), only spellings in its letters (ё as е). */
export function readingForms(reading: string, near?: string, alphabet?: string): string[] {
  const r = Array.from(reading);
  const target = near === undefined ? undefined : wordKey(near);
  // each spelling so far, with its row of edit distances to the beginnings of `target` (the last row of the table)
  type Partial = { form: string; row?: number[] };
  const step = (row: number[], ch: string): number[] => {
    const next = [row[0]! + 1];
    for (let j = 1; j < row.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (ch === target![j - 1] ? 0 : 1));
    return next;
  };
  const at: Partial[][] = Array.from({ length: r.length + 1 }, () => []);
  at[0] = [{ form: "", row: target === undefined ? undefined : Array.from({ length: target.length + 1 }, (_, j) => j) }];
  for (let p = 0; p < r.length; p++) {
    if (!at[p]!.length) continue;
    for (const n of [1, 2, 3]) {
      if (p + n > r.length) continue;
      const glyphs = r.slice(p, p + n).join("");
      const letters = READS[glyphs] ?? READS[glyphs.toLowerCase()];
      if (!letters) continue;
      for (const { form, row } of at[p]!)
        for (const l of letters)
          if (alphabet === undefined || alphabet.includes(wordKey(l)))
            for (const spelled of DOUBLED.includes(l) ? [l, l + l] : [l]) {
              let next = row;
              if (next) {
                for (const ch of spelled) next = step(next, ch === "ё" ? "е" : ch);
                if (Math.min(...next!) > READING_DISTANCE) continue;
              }
              if (at[p + n]!.length < READING_FORMS) at[p + n]!.push({ form: form + spelled, row: next });
            }
    }
  }
  return at[r.length]!.map((x) => x.form);
}

/**
 * A word of Latin letters on a page of the language, as the one word of `words` its letters spell as look-alikes
 * (readingForms): the decoder copies the recogniser's look-alikes now and then ("mhoroe", "TeKCT" for "многое",
 * "Текст"), in its capitals. Only words of LOOK_ALIKE_LETTERS letters or more: the English words of
 * a Russian help page spell Russian ones at four ("type" "туре", "open" "орел", "menu" "мели" or "меди"), none at five
 * on the probe's pages.
 */
export function lookAlikeWord(word: string, words: WordList): string {
  if (word.length < LOOK_ALIKE_LETTERS || !/^[A-Za-z]+$/.test(word)) return word;
  // (ё and е spell one word: the spelling with е, as print mostly has it)
  const found = new Map<string, string>();
  for (const form of readingForms(word, undefined, words.letters))
    if (words.has(form) && !found.has(wordKey(form))) found.set(wordKey(form), form.replace(/ё/g, "е"));
  return found.size === 1 ? inCaseOf(word, [...found.values()][0]!) : word;
}

/** The least letters of a Latin word spelled as the language's look-alikes (lookAlikeWord). */
export const LOOK_ALIKE_LETTERS = 5;

/** A reading is taken where its word is at most this many letters from the decoder's (the two readings agree but for
 * the letters the decoder misread). */
export const READING_DISTANCE = 2;

/**
 * The word of `words` that the recogniser's reading of the decoder's `word` spells (readingForms), where `word` is a
 * Cyrillic word of NEAREST_MIN_LETTERS letters or more that the language lacks (shorter ones read as other words:
 * "Наза" as "Паза" for "Назад"): the one form (by wordKey) nearest `word`, at most
 * READING_DISTANCE letters from it, in `word`'s capitals ("6n6nnorpaΦnn" under the decoder's "библиографи": its
 * reading's "библиографии"). Undefined where none is, or two are as near.
 */
export function nearestReading(word: string, reading: string, words: WordList): string | undefined {
  if (word.length < NEAREST_MIN_LETTERS || !CYRILLIC_WORD.test(word) || words.has(word)) return undefined;
  const lower = wordKey(word);
  let best: string | undefined,
    bestKey = "",
    bestDistance = READING_DISTANCE + 1,
    bestExact = Number.POSITIVE_INFINITY,
    tie = false;
  for (const form of new Set(readingForms(reading, word, words.letters))) {
    if (form.length < NEAREST_MIN_LETTERS || Math.abs(form.length - lower.length) > READING_DISTANCE) continue;
    // (most forms are no word: the list's walk before the distance)
    if (!words.has(form)) continue;
    const key = wordKey(form);
    const d = distance(key, lower);
    if (d > bestDistance) continue;
    // (ё and е spell one word: of its spellings, the one nearest the decoder's, ё where it wrote ё)
    const exact = distance(form, word.toLowerCase());
    if (d === bestDistance && key !== bestKey) tie = true;
    else if (d < bestDistance || exact < bestExact)
      [best, bestKey, bestDistance, bestExact, tie] = [form, key, d, exact, d < bestDistance ? false : tie];
  }
  if (best === undefined || tie) return undefined;
  return inCaseOf(word, best);
}

/** `form` (small letters) in `word`'s capitals: all capitals where `word` is, else a capital first where its is. */
function inCaseOf(word: string, form: string): string {
  if (word.length > 1 && word === word.toUpperCase()) return form.toUpperCase();
  return word[0] !== word[0]!.toLowerCase() ? form[0]!.toUpperCase() + form.slice(1) : form;
}

/** Levenshtein distance of two strings (UTF-16 units: Cyrillic letters are one each); any distance of `bound` or more
 * may come back as `bound` (the rows stop once every cell reaches it). */
function distance(a: string, b: string, bound = Number.POSITIVE_INFINITY): number {
  if (rows[0].length <= b.length) rows = [new Uint16Array(2 * b.length + 2), new Uint16Array(2 * b.length + 2)];
  let [prev, cur] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let least = i;
    const ch = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ch === b.charCodeAt(j - 1) ? 0 : 1));
      cur[j] = v;
      if (v < least) least = v;
    }
    if (least >= bound) return bound;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
/** distance's two rows, grown for longer words as they come. */
let rows: [Uint16Array, Uint16Array] = [new Uint16Array(64), new Uint16Array(64)];

/** A letter the decoder ranked this many logits or fewer below the one it wrote is one it nearly wrote
 * (nearestWord). */
export const ALTERNATIVE_MARGIN = 6;

/**
 * Into `into`, by offset in the decoder's text (`offset`: where `text`, the text of `tokens`, begins in it), the letters
 * the decoder ranked next to each token it wrote, ALTERNATIVE_MARGIN logits below it or less, best first (`alternatives`:
 * the generate call's runner-ups, the same number for each token; `spell` spells a token); a last token beyond the
 * text (the stop token the call ended on) at the text's end. Nothing where the tokens, spelled one by one, are not
 * `text`.
 */
export function runnerUps(
  tokens: readonly number[],
  text: string,
  alternatives: { tokens: Int32Array; margins: Float32Array },
  spell: (id: number) => string,
  offset: number,
  into: Map<number, string>,
): void {
  const pieces = tokens.map(spell);
  // (the call's stop token, where it ended on one, spells nothing of the text: it stands after it)
  if (pieces.join("") !== text && pieces.slice(0, -1).join("") !== text) return;
  const per = tokens.length ? Math.floor(alternatives.tokens.length / tokens.length) : 0;
  let at = offset;
  pieces.forEach((piece, i) => {
    let near = "";
    for (let k = 0; k < per; k++) {
      const id = alternatives.tokens[i * per + k]!;
      if (id < 0 || alternatives.margins[i * per + k]! > ALTERNATIVE_MARGIN) break;
      const letter = spell(id);
      if (letter.length === 1 && /\p{L}/u.test(letter)) near += letter;
    }
    if (near) into.set(at, near);
    at += piece.length;
  });
}
