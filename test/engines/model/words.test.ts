// A language's word list (src/engines/model/words.ts), the word a misread word stands for, and a Russian page's
// words as the merge writes them (faithful.ts languageLetters).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { languageLetters } from "../../../src/engines/model/faithful.js";
import {
  ALTERNATIVE_MARGIN,
  COMMON_LEAD,
  commonFarWord,
  FAR_MIN_LETTERS,
  LOOK_ALIKE_LETTERS,
  lookAlikeWord,
  MIN_PART,
  nearestReading,
  nearestWord,
  ownLetterWord,
  PAGE_FORM_LETTERS,
  type PageWords,
  pageForm,
  readingForms,
  repairedWord,
  runnerUps,
  STEM_LETTERS,
  WordList,
  wordKey,
} from "../../../src/engines/model/words.js";
import { ModelFileError } from "../../../src/model/errors.js";
import { cyrillicLanguage } from "../../../src/vision/language.js";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { catalogueText, COUNT_MIN, countWords, fileText } from "../../../scripts/corpus/word-counts.mjs";
// @ts-expect-error plain JavaScript module of the corpus scripts
import { affixRules, forms } from "../../../scripts/corpus/word-list.mjs";

const WORDS = ["информация", "является", "документа", "документы", "файлов", "который", "можно", "страница", "вызов", "службы"];
/** A page's words as languageLetters gathers them: by wordKey, each as the page spells it. */
function pageWords(...ws: string[]): PageWords {
  return new Map(ws.map((w) => [wordKey(w), w.toLowerCase()] as const));
}
const dir = mkdtempSync(path.join(os.tmpdir(), "ocr-words-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("WordList", () => {
  it("holds its words in any case and ё as е, and no other", () => {
    const f = WordList.of(["ещё", ...WORDS]);
    for (const w of WORDS) expect(f.has(w)).toBe(true);
    expect(f.has("Информация")).toBe(true);
    expect(f.has("ИНФОРМАЦИЯ")).toBe(true);
    expect(f.has("еще")).toBe(true);
    // beginnings, endings and longer words of the list's are not its words
    for (const w of ["информаци", "информацияя", "документ", "ы", "", "вызовы", "English"]) expect(f.has(w), w).toBe(false);
    // many words sharing beginnings and endings (the automaton's states are shared): each held, each near miss not
    const forms = Array.from({ length: 5000 }, (_, i) => `слово${i}`);
    const big = WordList.of(forms);
    expect(forms.every((w) => big.has(w))).toBe(true);
    expect(Array.from({ length: 5000 }, (_, i) => `слава${i}`).some((w) => big.has(w))).toBe(false);
    expect(big.has("слово50000")).toBe(false);
    expect(big.has("слово")).toBe(false);
    expect(big.cyrillic).toBe("влос");
    expect(WordList.of([]).has("слово")).toBe(false);
  });

  it("reads back what it wrote, and names the file that is not one", () => {
    const file = path.join(dir, "words-ru.bin");
    writeFileSync(file, WordList.build(WORDS));
    const back = WordList.read(file);
    expect(WORDS.every((w) => back.has(w))).toBe(true);
    expect(back.has("инфорнация")).toBe(false);
    const bad = path.join(dir, "bad.bin");
    writeFileSync(bad, Buffer.from("OCRWORDS\u0001\u0000\u0000\u0000"));
    expect(() => WordList.read(bad)).toThrow(ModelFileError);
    expect(() => WordList.read(bad)).toThrow(/bad\.bin: not a word list/);
    const cut = path.join(dir, "cut.bin");
    writeFileSync(cut, WordList.build(WORDS).subarray(0, 40));
    expect(() => WordList.read(cut)).toThrow(/cut\.bin: word list header does not match its 40 bytes/);
    expect(() => WordList.read(path.join(dir, "none.bin"))).toThrow(/none\.bin: cannot read the word list/);
    // the same from the header alone, as a bundle is checked when it loads
    expect(() => WordList.check(file)).not.toThrow();
    expect(() => WordList.check(bad)).toThrow(/bad\.bin: not a word list/);
    expect(() => WordList.check(cut)).toThrow(/cut\.bin: word list header does not match its 40 bytes/);
    expect(() => WordList.check(path.join(dir, "none.bin"))).toThrow(/none\.bin: cannot read the word list/);
  });

  it("keeps how often texts write its words beside them, read back from the file and checked against its length", () => {
    const data = WordList.build(["ещё", ...WORDS]);
    const plain = WordList.parse(data, "plain.bin");
    expect(plain.counted).toBe(false);
    expect(plain.count("можно")).toBe(0);
    const counted = WordList.withCounts(
      data,
      new Map([
        ["можно", 120],
        ["файлов", 7],
        ["еще", 3],
      ]),
    );
    const file = path.join(dir, "counted.bin");
    writeFileSync(file, counted);
    expect(() => WordList.check(file)).not.toThrow();
    const back = WordList.read(file);
    expect(back.counted).toBe(true);
    expect(WORDS.every((w) => back.has(w))).toBe(true);
    expect(back.has("инфорнация")).toBe(false);
    // any case, ё as е; a word not counted, and no word of the list, 0
    expect([back.count("Можно"), back.count("ФАЙЛОВ"), back.count("ещё"), back.count("вызов"), back.count("слово")]).toEqual([
      120, 7, 3, 0, 0,
    ]);
    // counted again: the new counts replace the old, the words stay
    const again = WordList.parse(WordList.withCounts(counted, new Map([["вызов", 5]])), "again.bin");
    expect([again.count("вызов"), again.count("можно"), again.has("можно")]).toEqual([5, 0, true]);
    // only the list's words, and only counts
    expect(() => WordList.withCounts(data, new Map([["слово", 4]]))).toThrow(/cannot count "слово"/);
    expect(() => WordList.withCounts(data, new Map([["можно", 0]]))).toThrow(/cannot count "можно" 0 times/);
    // a file cut short, or counts that do not inflate, name the file
    const cut = path.join(dir, "counted-cut.bin");
    writeFileSync(cut, counted.subarray(0, counted.byteLength - 2));
    expect(() => WordList.check(cut)).toThrow(/counted-cut\.bin: word list header does not match/);
    const junk = counted.slice();
    junk.fill(0xff, junk.byteLength - new DataView(junk.buffer).getUint32(24, true));
    expect(() => WordList.parse(junk, "junk.bin").count("можно")).toThrow(/junk\.bin: the word list's counts do not read/);
  });

  it("answers no, not wrongly or endlessly, over edges that point outside the file", () => {
    const data = WordList.build(WORDS);
    // every edge byte flipped in turn: a word's walk ends inside the data or says no
    const start = data.byteLength - new DataView(data.buffer).getUint32(20, true);
    for (let i = start; i < data.byteLength; i += 7) {
      const broken = data.slice();
      broken[i] = broken[i]! ^ 0xff;
      const list = WordList.parse(broken, "broken.bin");
      for (const w of WORDS) expect(typeof list.has(w)).toBe("boolean");
    }
  });
});

describe("runnerUps", () => {
  const spell = (id: number) => ["а", "б", "в", "<td>", " ", "7", "<PAGE>"][id]!;
  // per token, its runner-ups as "id:margin" (RUNNER_UPS of them)
  const alternatives = (rows: string[][]) => ({
    tokens: Int32Array.from(rows.flat().map((r) => Number(r.split(":")[0]))),
    margins: Float32Array.from(rows.flat().map((r) => Number(r.split(":")[1]))),
  });
  const far = ALTERNATIVE_MARGIN + 1;
  it("keeps, by offset in the decoder's text, the letters ranked next to each token, ALTERNATIVE_MARGIN below it or less", () => {
    const into = new Map<number, string>();
    // "<td>" "а" " " "б": next to <td>, а (a space is no letter); to а, б then в (then a tag); to the space, а then б
    // (a digit is none); to б, nothing within the margin
    const alts = alternatives([
      ["4:1", "0:2", "-1:0"],
      ["1:0.5", "2:3", "3:3.5"],
      ["5:1", "0:2", "1:2"],
      [`2:${far}`, `0:${far}`, "-1:0"],
    ]);
    runnerUps([3, 0, 4, 1], "<td>а б", alts, spell, 10, into);
    expect([...into]).toEqual([
      [10, "а"],
      [14, "бв"],
      [15, "аб"],
    ]);
    // a runner-up at the margin counts, one beyond it ends the list; the stop token's stand after the text
    const at = new Map<number, string>();
    runnerUps(
      [1, 6],
      "б",
      alternatives([
        [`2:${ALTERNATIVE_MARGIN}`, `0:${far}`, "1:0"],
        ["0:0.1", "2:0.2", "-1:0"],
      ]),
      spell,
      0,
      at,
    );
    expect([...at]).toEqual([
      [0, "в"],
      [1, "ав"],
    ]);
    expect(ALTERNATIVE_MARGIN).toBe(6);
  });

  it("keeps nothing where the tokens spelled one by one are not the text", () => {
    const into = new Map<number, string>();
    runnerUps([0, 1], "аx", alternatives([["1:1"], ["0:1"]]), spell, 0, into);
    expect(into.size).toBe(0);
  });
});

describe("nearestWord", () => {
  const f = WordList.of(WORDS);
  it("writes the one word of the language one letter from a misread word", () => {
    expect(nearestWord("ииформация", f)).toBe("информация");
    expect(nearestWord("Ииформация", f)).toBe("Информация");
    expect(nearestWord("ИНФОРМАЦИЯ", f)).toBe("ИНФОРМАЦИЯ");
    expect(nearestWord("ИИФОРМАЦИЯ", f)).toBe("ИНФОРМАЦИЯ");
    expect(nearestWord("страннца", f)).toBe("страница");
    expect(nearestWord("являетоя", f)).toBe("является");
    expect(nearestWord("службь", f)).toBe("службы");
    // a hard sign or soft sign the decoder put in or left out
    expect(nearestWord("файльов", f)).toBe("файлов");
    // any letter misread, put in or left out
    expect(nearestWord("докунента", f)).toBe("документа");
    expect(nearestWord("управлени", WordList.of([...WORDS, "управления"]))).toBe("управления");
    expect(nearestWord("Даклее", WordList.of([...WORDS, "далее"]))).toBe("Далее");
  });

  it("keeps a word the language holds, a short word, a word of two readings and one two letters off", () => {
    expect(nearestWord("информация", f)).toBe("информация");
    expect(nearestWord("вызоз", f)).toBe("вызов");
    expect(nearestWord("мощно", WordList.of([...WORDS, "мощный"]))).toBe("можно");
    expect(nearestWord("можио", WordList.of([...WORDS, "можко"]))).toBe("можио"); // "можно" and "можко": two words, neither written
    expect(nearestWord("вызов", WordList.of([...WORDS, "вызовы"]))).toBe("вызов");
    expect(nearestWord("долументо", f)).toBe("долументо"); // two letters from "документа"
    expect(nearestWord("вызо", WordList.of(["вызов"]))).toBe("вызо");
    expect(nearestWord("inforn", f)).toBe("inforn");
    expect(nearestWord("мож", WordList.of(["мой"]))).toBe("мож");
  });

  it("writes a run the decoder wrote twice once, or two words it ran together apart, where one word comes of it", () => {
    const g = WordList.of([...WORDS, "шаблона", "заменяет", "этот", "столам", "импортировать", "трёхмерного", "изображения"]);
    expect(repairedWord("шабаблона", g)).toBe("шаблона");
    expect(repairedWord("заменяеняет", g)).toBe("заменяет");
    expect(repairedWord("импорттировать", g)).toBe("импортировать");
    // (the copy in the case of the letter before it stays)
    expect(repairedWord("ЭтОтот", g)).toBe("Этот");
    expect(repairedWord("стоОлам", g)).toBe("столам");
    expect(repairedWord("трёхмерногоизображения", g)).toBe("трёхмерного изображения");
    // щ written as the two letters its halves look like
    expect(repairedWord("врапцать", WordList.of(["вращать"]))).toBe("вращать");
    expect(repairedWord("ОБПЦИЕ", WordList.of(["общие"]))).toBe("ОБЩИЕ");
    expect(repairedWord("текушцих", WordList.of(["текущих"]))).toBe("текущих");
    expect(repairedWord("врапцать", WordList.of(["вращать", "врачать"]))).toBe("вращать"); // (ч is no half of щ)
    expect(repairedWord("кольцами", WordList.of(["кольщами"]))).toBe("кольцами"); // (no п or ш before the ц)
    // a word of the language, a short word, a Latin word, a word no run or split makes a word of: as it is
    expect(repairedWord("документа", g)).toBe("документа");
    expect(repairedWord("этот", g)).toBe("этот");
    expect(repairedWord("Ээтот", WordList.of(["этот"]))).toBe("Этот");
    expect(repairedWord("filefile", g)).toBe("filefile");
    expect(repairedWord("службаба", g)).toBe("службаба");
    expect(repairedWord("страниница", g)).toBe("страница");
    // two words of the language from one run each: neither; a part shorter than MIN_PART letters: no split
    expect(repairedWord("ааббвгде", WordList.of(["абвгде", "аабвгде", "аббвгде"]))).toBe("ааббвгде");
    expect(repairedWord("формать", WordList.of(["форм", "ать"]))).toBe("формать");
    expect(repairedWord("ПараметрыСервис", WordList.of(["параметры", "сервис"]))).toBe("ПараметрыСервис");
    expect(MIN_PART).toBe(5);
  });

  it("spells a Latin word of five letters or more as the one word of the language its look-alikes make", () => {
    const g = WordList.of([...WORDS, "многое", "текст", "туре"]);
    expect(lookAlikeWord("mhoroe", g)).toBe("многое");
    expect(lookAlikeWord("TeKCT", g)).toBe("Текст");
    expect(lookAlikeWord("TEKCT", g)).toBe("ТЕКСТ");
    // a shorter word ("type" spells "туре"), a word no look-alikes make a word of, one with a mark: as it is
    expect(lookAlikeWord("type", g)).toBe("type");
    expect(lookAlikeWord("Writer", g)).toBe("Writer");
    expect(lookAlikeWord("TeKCT1", g)).toBe("TeKCT1");
    expect(LOOK_ALIKE_LETTERS).toBe(5);
  });

  it("writes a word two letters from one the page writes as the page writes it, where one is", () => {
    const g = WordList.of([...WORDS, "сотрудничества", "щёлкните", "страницы", "странице"]);
    expect(pageForm("сотрунниячества", g, pageWords("сотрудничества", "службы"))).toBe("сотрудничества");
    // (as the page spells it, ё and all, in the word's capitals)
    expect(pageForm("Целкнте", g, pageWords("щёлкните"))).toBe("Щёлкните");
    expect(pageForm("ЦЕЛКНТЕ", g, pageWords("щёлкните"))).toBe("ЩЁЛКНИТЕ");
    // none two letters off, two of them, a word of the language, a short word, a word the page does not write: as it is
    expect(pageForm("систраницыы", g, pageWords("страницы"))).toBe("систраницыы");
    expect(pageForm("систраниц", g, pageWords("страницы", "странице"))).toBe("систраниц");
    expect(pageForm("страницы", g, pageWords("странице"))).toBe("страницы");
    expect(pageForm("сранцы", WordList.of([]), pageWords("страница"))).toBe("сранцы"); // three letters off
    expect(pageForm("тница", g, pageWords("страница"))).toBe("тница");
    expect(pageForm("сотрунниячества", g, pageWords())).toBe("сотрунниячества");
    expect(PAGE_FORM_LETTERS).toBe(6);
  });

  it("chooses among several words by the page's own: one it writes, else a form of one it writes", () => {
    const g = WordList.of([...WORDS, "факсов", "фарсов", "сцена", "сцены", "смена", "стена", "спецу"]);
    // two or three words one letter off, none written
    expect(nearestWord("файсов", g)).toBe("файсов");
    expect(nearestWord("файсов", g, pageWords("мастер"))).toBe("файсов");
    // the one the page writes elsewhere
    expect(nearestWord("файсов", g, pageWords("мастер", "факсов"))).toBe("факсов");
    expect(nearestWord("Файсов", g, pageWords("факсов"))).toBe("Факсов");
    // a form of one it writes ("сценами"): a beginning of STEM_LETTERS letters or more in common, one word sharing the longest
    expect(nearestWord("спена", g, pageWords("сценами"))).toBe("сцена");
    expect(nearestWord("спена", g, pageWords("сцепка"))).toBe("спена"); // "сце": too short a beginning
    // two written: neither
    expect(nearestWord("файсов", g, pageWords("факсов", "фарсов"))).toBe("файсов");
    // the one word one letter off is written whatever the page's words
    expect(nearestWord("службь", g, pageWords("служба"))).toBe("службы");
    expect(STEM_LETTERS).toBe(5);
  });

  it("chooses, where the page does not, the word its language's texts write COMMON_LEAD times as often as the others", () => {
    const words = ["удалить", "ужалить", "умалить", "уладить", "перемещение", "перемещения", "перемещении", "перемещен"];
    const uncounted = WordList.build(words);
    const counts = (entries: [string, number][]) => WordList.parse(WordList.withCounts(uncounted, new Map(entries)), "ru.bin");
    const g = counts([
      ["удалить", 411],
      ["перемещение", 198],
      ["перемещения", 138],
      ["перемещении", 33],
      ["уладить", 1],
    ]);
    const page = pageWords("кнопку", "нажмите");
    expect(nearestWord("улалить", g, page)).toBe("удалить");
    expect(nearestWord("Улалить", g, page)).toBe("Удалить");
    // forms of one word written about as often: none
    expect(nearestWord("перемещени", g, page)).toBe("перемещени");
    // without counts, or with a lead short of COMMON_LEAD, or with too few writings: none
    expect(nearestWord("улалить", WordList.parse(uncounted, "ru.bin"), page)).toBe("улалить");
    expect(
      nearestWord(
        "улалить",
        counts([
          ["удалить", 2 * COMMON_LEAD],
          ["уладить", 3],
        ]),
        page,
      ),
    ).toBe("улалить");
    expect(nearestWord("улалить", counts([["удалить", COMMON_LEAD - 1]]), page)).toBe("улалить");
    expect(nearestWord("улалить", counts([["удалить", COMMON_LEAD]]), page)).toBe("удалить");
    // the page's own words still come first
    expect(nearestWord("улалить", g, pageWords("уладить"))).toBe("уладить");
    expect(COMMON_LEAD).toBe(3);
  });

  it("chooses, where the page does not, the word whose letter the decoder ranked next to the one it wrote", () => {
    const words = ["вращения", "хранения", "удалить", "уладить", "перемещение", "перемещения"];
    const g = WordList.parse(
      WordList.withCounts(
        WordList.build(words),
        new Map([
          ["хранения", 104],
          ["вращения", 62],
          ["удалить", 411],
        ]),
      ),
      "ru.bin",
    );
    const page = pageWords("кнопку", "нажмите");
    // (per letter of the word, the letters ranked next to it: щ third at its н)
    const nearly = (word: string, at: number, letters: string) => Array.from(word, (_, i) => (i === at ? letters : undefined));
    expect(nearestWord("вранения", g, page)).toBe("вранения");
    expect(nearestWord("вранения", g, page, nearly("вранения", 3, "шщ"))).toBe("вращения");
    expect(nearestWord("Вранения", g, page, nearly("Вранения", 3, "шщ"))).toBe("Вращения");
    // of several so ranked, the one the texts write far more often, else none
    const h = WordList.parse(
      WordList.withCounts(
        WordList.build([...words, "вражения"]),
        new Map([
          ["вращения", 62],
          ["вражения", 2],
        ]),
      ),
      "ru.bin",
    );
    expect(nearestWord("вранения", h, page, nearly("вранения", 3, "жщ"))).toBe("вращения");
    expect(nearestWord("вранения", WordList.of([...words, "вражения"]), page, nearly("вранения", 3, "жщ"))).toBe("вранения");
    // the same letter ranked next at another place, or a letter no candidate has there: none
    expect(nearestWord("вранения", g, page, nearly("вранения", 2, "щ"))).toBe("вранения");
    expect(nearestWord("вранения", g, page, nearly("вранения", 3, "ш"))).toBe("вранения");
    // a letter put in ranked next to what the decoder wrote in its place (here, after the word), or a letter left out
    // where the one after it was ranked next to it
    const ends = (word: string, letters: string) => [...Array.from(word, () => undefined), letters];
    expect(nearestWord("перемещени", g, page, ends("перемещени", "я"))).toBe("перемещения");
    expect(nearestWord("перемещени", g, page, ends("перемещени", "щ"))).toBe("перемещени");
    expect(nearestWord("перемещени", g, page, nearly("перемещени", 9, "я"))).toBe("перемещени");
    const u = WordList.of(["удалить", "удалмить"]);
    expect(nearestWord("удаллить", u, page)).toBe("удаллить");
    expect(nearestWord("удаллить", u, page, nearly("удаллить", 4, "и"))).toBe("удалить");
    expect(nearestWord("удаллить", u, page, nearly("удаллить", 4, "м"))).toBe("удалмить");
    // the page's own words, and their stems, still come first; then the ranking, before the texts' counts
    expect(nearestWord("вранения", g, pageWords("хранения"), nearly("вранения", 3, "щ"))).toBe("хранения");
    expect(nearestWord("улалить", g, page)).toBe("удалить");
    expect(nearestWord("улалить", g, page, nearly("улалить", 3, "д"))).toBe("уладить");
    expect(nearestWord("улалить", WordList.of(words), page, nearly("улалить", 1, "жд"))).toBe("удалить");
  });

  it("writes a long word two letters from the one word its texts write there, or the one written far more often", () => {
    const forms = ["немедленное", "экспорт", "эксперт", "импорт", "предыдущей", "предыдущий", "вращения", "хранения"];
    const uncounted = WordList.build(forms);
    const g = WordList.parse(
      WordList.withCounts(
        uncounted,
        new Map([
          ["немедленное", 4],
          ["экспорт", 55],
          ["эксперт", 3],
          ["предыдущей", 64],
          ["предыдущий", 40],
        ]),
      ),
      "ru.bin",
    );
    expect(commonFarWord("немеенное", g)).toBe("немедленное");
    expect(commonFarWord("Немеенное", g)).toBe("Немедленное");
    // two words two letters off: the one written COMMON_LEAD times as often, else neither
    expect(commonFarWord("экстспорт", g)).toBe("экспорт");
    expect(commonFarWord("предыушая", g)).toBe("предыушая");
    // a word one letter off (nearestWord's), none within two, a word of the list, a short word, no counts: as it is
    expect(commonFarWord("экспорта", g)).toBe("экспорта");
    expect(commonFarWord("Тексинфо", g)).toBe("Тексинфо");
    expect(commonFarWord("экспорт", g)).toBe("экспорт");
    expect(commonFarWord("импоррт", g)).toBe("импоррт");
    expect(commonFarWord("немеенное", WordList.parse(uncounted, "ru.bin"))).toBe("немеенное");
    expect(FAR_MIN_LETTERS).toBe(7);
  });
});

describe("ownLetterWord", () => {
  it("writes a word holding a neighbouring language's letter as the one word of the page's language it stands for", () => {
    const ru = WordList.of(["двойными", "дворными", "службы", "файлов"]);
    const sr = WordList.of(["поље", "поља", "стање"]);
    // the one word, else the one the letter's twin spells: ї as й
    expect(ownLetterWord("службї", ru)).toBe("службы");
    expect(ownLetterWord("двоїными", ru)).toBe("двойными");
    expect(ownLetterWord("Двоїными", ru)).toBe("Двойными");
    // Serbian's љ written as the Russian pair ль, in capitals
    expect(ownLetterWord("ПОЛЬЕ", sr)).toBe("ПОЉЕ");
    // the language's own letters, two foreign letters, no word, or a Latin word: as it is
    expect(ownLetterWord("фаїлов", ru)).toBe("файлов");
    for (const w of ["файлов", "двоїнимї", "фаїлоя", "fajl"]) expect(ownLetterWord(w, ru)).toBe(w);
  });
});

describe("Ukrainian's and Serbian's lists", () => {
  const ukrainian = ["Це сторінка, яку можна відкрити, якщо вона є, що також може бути у вікні.\n"];
  const uk = WordList.of(["це", "сторінка", "яку", "можна", "відкрити", "якщо", "вона", "що", "також", "може", "бути", "вікні", "явились"]);
  const sr = WordList.of(["стање", "излазно", "поља"]);

  it("looks for a misread letter among the list's own letters", () => {
    expect(uk.cyrillic).toContain("і");
    // і put in, which Russian's alphabet lacks
    expect(nearestWord("сторнка", uk)).toBe("сторінка");
    expect(nearestWord("відкрнти", uk)).toBe("відкрити");
  });

  it("spells the recogniser's look-alikes of Serbian's letters, only in the list's letters", () => {
    // (њ read as b, the soft sign of its glyph)
    expect(lookAlikeWord("cTabe", sr)).toBe("стање");
    expect(readingForms("cTabe", undefined, sr.letters)).toContain("стање");
    expect(readingForms("cTabe", undefined, WordList.of(WORDS).letters).some((f) => /[љњ]/.test(f))).toBe(false);
    expect(nearestReading("стаље", "cTabe", sr)).toBe("стање");
    // (Г read as T, ш as the numeral Ⅲ: a heading's "АРГНТУМЕНТИ" over "APTYMEHTN", "щукає" over "ⅢyKae")
    const uk2 = WordList.of(["аргументи", "шукає", "щука"]);
    expect(nearestReading("АРГНТУМЕНТИ", "APTYMEHTN", uk2)).toBe("АРГУМЕНТИ");
    expect(nearestReading("щукає", "ⅢyKae", uk2)).toBe("шукає");
    // (Л read as N, Serbian's Ђ as T: a man page's capitals)
    expect(nearestReading("ПЕРЕКАЛ", "nEPEKNAA", WordList.of(["переклад"]))).toBe("ПЕРЕКЛАД");
    expect(nearestReading("ТАКОТЕ", "TAKOTE", WordList.of(["такође", "тако"]))).toBe("ТАКОЂЕ");
    // (й read as W in CMU's faces: "6a3OW" under "базод")
    expect(nearestReading("базод", "6a3OW", WordList.of(["базой", "базы"]))).toBe("базой");
  });

  it("leaves a part of a word written with an apostrophe as it is", () => {
    const lists = (lang: string) => (lang === "uk" ? uk : undefined);
    // ("явилися", the part of "з'явилися" after the apostrophe, is one letter from the list's "явились")
    const line = "Вони з'явилися у вікні.\n";
    expect(languageLetters([...ukrainian, line], lists)).toEqual([...ukrainian, line]);
    expect(languageLetters([...ukrainian, "Вони явилися у вікні.\n"], lists)[1]).toBe("Вони явились у вікні.\n");
  });

  it("writes a lone і right before a mark as the Latin letter on a Ukrainian page (no conjunction stands there)", () => {
    const lists = (lang: string) => (lang === "uk" ? uk : undefined);
    const page = (line: string) => languageLetters([...ukrainian, line], lists)[ukrainian.length];
    expect(page("Якщо вказано і, розмір буде рівним і.\n")).toBe("Якщо вказано i, розмір буде рівним i.\n");
    expect(page("і<пробіл> показати ще\n")).toBe("i<пробіл> показати ще\n");
    // the conjunction before a word, a word ending in і, і in code: as they are
    for (const line of ["Вони і ми.\n", "у вікні.\n", "```\nі,\n```\n"]) expect(page(line)).toBe(line);
  });
});

describe("a Latin language's list: its marks", () => {
  const pt = WordList.of([
    "os",
    "que",
    "uma",
    "para",
    "com",
    "dos",
    "por",
    "função",
    "extensão",
    "definições",
    "sábia",
    "sabiá",
    "arquivo",
    "látex",
  ]);
  const lists = (lang: string) => (lang === "pt" ? pt : undefined);
  const portuguese = "Os dados que uma pasta tem para os arquivos dos usuários, por exemplo, com nomes.\n";

  it("finds the list's words spelled with the same letters but for their marks", () => {
    expect(pt.spelledAlike("funcao", (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""))).toEqual(["função"]);
    expect(pt.spelledAlike("Extensäo", (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""))).toEqual(["extensão"]);
    expect(pt.spelledAlike("sabia", (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""), 5).sort()).toEqual(["sabiá", "sábia"]);
    expect(pt.spelledAlike("funcoes", (ch) => ch.normalize("NFD").replace(/\p{M}/gu, ""))).toEqual([]);
  });

  it("writes a Portuguese page's word with the marks of the one word of its list so spelled, in its capitals", () => {
    expect(languageLetters([portuguese, "A FUNCAO de Extensäo e definicôes.\n"], lists)).toEqual([
      portuguese,
      "A FUNÇÃO de Extensão e definições.\n",
    ]);
    // two spellings of the list (sábia, sabiá), a word of the list, TeX's logo (Spanish's "látex"), code: as written
    const kept = ["Ela sabia que o arquivo existe em LATEX.\n", "```\nfuncao()\n```\n"];
    expect(languageLetters([portuguese, ...kept], lists)).toEqual([portuguese, ...kept]);
    // a word read in two parts (a long line's): neither part is spelled as a word ("docu" is no "doçu")
    const parts = [" parte da docu", "mentação, por exemplo.\n"];
    const withParts = (lang: string) =>
      lang === "pt" ? WordList.of(["os", "que", "uma", "para", "com", "dos", "por", "doçu", "documentação"]) : undefined;
    expect(languageLetters([portuguese, ...parts], withParts)).toEqual([portuguese, ...parts]);
    expect(languageLetters([portuguese, " parte da docu.\n"], withParts)).toEqual([portuguese, " parte da doçu.\n"]);
    // a page whose function words name no language (Spanish's "una", "con", "es" beside Portuguese's) is the language
    // whose list holds most of its words
    const mixed = "Este documento tem procedimentos internos muito fortemente cruzados entre classes objetos detalhes básicos.\n";
    const both = (lang: string) =>
      lang === "pt"
        ? WordList.of([
            "este",
            "documento",
            "tem",
            "procedimentos",
            "internos",
            "muito",
            "fortemente",
            "cruzados",
            "entre",
            "classes",
            "objetos",
            "detalhes",
            "básicos",
            "função",
            "código",
            "fonte",
            "usadas",
            "dentro",
            "formatação",
            "produzido",
            "diretamente",
            "partir",
          ])
        : lang === "es"
          ? WordList.of(["este", "documento", "con", "una"])
          : undefined;
    const body = "Produzido diretamente partir formataçao codigo fonte usadas dentro funçao.\n";
    expect(languageLetters([mixed, mixed, body], both)[2]).toBe(
      "Produzido diretamente partir formatação código fonte usadas dentro função.\n",
    );
    // a page of another language (no list) keeps its words
    expect(languageLetters(["The function is called funcao here, and it is the one that we have.\n"], lists)).toEqual([
      "The function is called funcao here, and it is the one that we have.\n",
    ]);
  });
});

describe("languageLetters with a word list", () => {
  // (the list holds the page's other words, as the language's list does)
  const f = WordList.of([...WORDS, "которую", "открыть", "только", "также", "может", "вызове"]);
  const lists = (lang: string) => (lang === "ru" ? f : undefined);
  const russian = ["Это страница, которую можно открыть, если только она есть, что также может быть.\n", "Ииформация о вызове службь.\n"];
  it("writes a Russian page's misread words as the language spells them, in code its Cyrillic words only", () => {
    expect(languageLetters([...russian, "```\nииформация\n```\n"], lists)).toEqual([
      russian[0],
      "Информация о вызове службы.\n",
      "```\nинформация\n```\n",
    ]);
    // code's Latin words stay (no Cyrillic look-alikes spelled out, no capitals made small), as do the Cyrillic words
    // of a line with inline code
    const code = ["```\nmhoroe meSg ииформация\n```\n", "`mesg` ииформация\n"];
    expect(languageLetters([...russian, ...code], lists).slice(2)).toEqual(["```\nmhoroe meSg информация\n```\n", code[1]]);
  });

  it("in code, chooses among words one letter off by the letter the decoder ranked next", () => {
    const lists4 = (lang: string) => (lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "факсов", "фарсов"]) : undefined);
    const block = ["```\n", "Список файсов\n", "```\n"];
    const page = (near?: Map<number, string>) =>
      languageLetters([russian[0]!, ...block], lists4, [], [undefined, ...block], [undefined, undefined, near])[2];
    expect(page(new Map([[9, "к"]]))).toBe("Список факсов\n");
    expect(page()).toBe(block[1]);
  });

  it("spells a Latin word of look-alikes in Cyrillic beside Cyrillic words, not among Latin ones", () => {
    const lists4 = (lang: string) =>
      lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "только", "также", "может", "многое"]) : undefined;
    const lines = [russian[0]!, "Это mhoroe может.\n", "Copyright Alf mhoroe Bätz.\n", "## MHOROE\n"];
    expect(languageLetters(lines, lists4)).toEqual([russian[0], "Это многое может.\n", "Copyright Alf mhoroe Bätz.\n", "## МНОГОЕ\n"]);
  });

  it("leaves the parts of a word split between two lines as they are", () => {
    // ("служб" is one letter from the list's "службы": written so, the word would read "службыы")
    const parts = [russian[0]!, " Меню вызов служб", "ы.\n"];
    expect(languageLetters(parts, lists)).toEqual(parts);
    expect(languageLetters([russian[0]!, " Меню вызов служб.\n"], lists)).toEqual([russian[0], " Меню вызов службы.\n"]);
  });

  it("writes a word of the list read with two capitals or more before its small letters with its first capital only", () => {
    expect(languageLetters([russian[0]!, " Меню ВЫЗов СЛУжбы ФАЙлов.\n"], lists)).toEqual([russian[0], " Меню Вызов Службы Файлов.\n"]);
    // capitals throughout, one capital, and an abbreviation with an ending the list lacks: as they are
    const kept = [russian[0]!, " МЕНЮ ВЫЗОВ Службы СЕЛинукса.\n"];
    expect(languageLetters(kept, lists)).toEqual(kept);
  });

  it("writes a word split between two lines that the list lacks as a whole as its word, each line keeping its part", () => {
    // (the probe's "бреобразован" + "ные"; the second part keeps its letters, the first takes the rest)
    const parts = [russian[0]!, " Меню вызов фай", "лав.\n"];
    expect(languageLetters(parts, lists)).toEqual([russian[0], " Меню вызов фай", "лов.\n"]);
    expect(languageLetters([russian[0]!, " Меню вызов файлл", "ов.\n"], lists)).toEqual([russian[0], " Меню вызов файл", "ов.\n"]);
    // inside code, or a whole that is no single word: as they were
    const code = [russian[0]!, " `Меню вызов фай", "лав`\n"];
    expect(languageLetters(code, lists)).toEqual(code);
  });

  it("takes a word two letters off for a page word that another of its misreadings was repaired to", () => {
    // ("Ииформация" is one letter from the list's "информация", "Инфармацея" two: no page word spells it before the first is repaired)
    const lines = [russian[0]!, "Ииформация о вызове.\n", "Инфармацея о вызове.\n"];
    expect(languageLetters(lines, lists)).toEqual([russian[0], "Информация о вызове.\n", "Информация о вызове.\n"]);
    // where no misreading of it is repaired, the word two letters off stays
    expect(languageLetters([russian[0]!, "Инфармацея о вызове.\n"], lists)).toEqual([russian[0], "Инфармацея о вызове.\n"]);
  });

  it("drops a word the decoder began and began again, where the recogniser read fewer words", () => {
    const line = "С помощью значню значков можно открыть файлов.\n";
    const reading = "C IIOMOIIbIO 3HaYKOB MOXKHO OTKpbITb ΦaIIIOB.";
    const lists2 = (lang: string) =>
      lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "только", "также", "может", "помощью", "значков"]) : undefined;
    expect(languageLetters([russian[0]!, line], lists2, [undefined, reading])).toEqual([
      russian[0],
      "С помощью значков можно открыть файлов.\n",
    ]);
    // where the recogniser read as many words, or none of the line, both stay
    const as = "C IIOMOIIbIO 3HaYHIO 3HaYKOB MOXKHO OTKpbITb ΦaIIIOB.";
    expect(languageLetters([russian[0]!, line], lists2, [undefined, as])).toEqual([russian[0], line]);
    expect(languageLetters([russian[0]!, line], lists2)).toEqual([russian[0], line]);
  });

  it("takes the decoder's word back where the merge left letters of it out and made no word of it", () => {
    const lists3 = (lang: string) =>
      lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "найти", "использовать", "найди", "это", "этот"]) : undefined;
    // (the merge's line, and the decoder's Markdown for it)
    const merged = "<td>Найт</td> исьзоать можно.\n";
    const decoded = "<td>Найти</td> использовать можно.\n";
    expect(languageLetters([russian[0]!, merged], lists3, undefined, [undefined, decoded])).toEqual([
      russian[0],
      "<td>Найти</td> использовать можно.\n",
    ]);
    // a word of capitals stays in capitals; a first letter the merge left out comes back in the decoder's case
    expect(languageLetters([russian[0]!, "НАЙТ айти.\n"], lists3, undefined, [undefined, "НАЙТИ Найти.\n"])).toEqual([
      russian[0],
      "НАЙТИ Найти.\n",
    ]);
    // the decoder's word where it changed a letter (not only put one in), is no word of the language, or the merge's
    // word is one: the merge's stays
    for (const [line, own] of [
      ["Найт можно.\n", "Найди можно.\n"],
      ["Найт можно.\n", "Найтию можно.\n"],
      ["Это можно.\n", "Этот можно.\n"],
    ])
      expect(languageLetters([russian[0]!, line], lists3, undefined, [undefined, own])).toEqual([russian[0], line]);
    // without the decoder's lines, as before
    expect(languageLetters([russian[0]!, merged], lists3)).toEqual([russian[0], merged]);
  });

  it("leaves the parts of a hyphenated word as they are, and never looks at a part of a part", () => {
    // (before: "траница" of "Веб-страница" and "служб" of "службь-" were taken for words, a letter put in each)
    const page = [russian[0]!, "Веб-страница службь-информация.\n"];
    expect(languageLetters(page, lists)).toEqual(page);
  });

  it("chooses among the words one letter from a misread one by the page's own words", () => {
    const lists4 = (lang: string) => (lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "факсов", "фарсов"]) : undefined);
    const page = [russian[0]!, "Мастер факсов.\n", "Список файсов.\n"];
    expect(languageLetters(page, lists4)[2]).toBe("Список факсов.\n");
    // a page that does not write either: the word stays
    expect(languageLetters([russian[0]!, "Список файсов.\n"], lists4)[1]).toBe("Список файсов.\n");
  });

  it("chooses among them by the letter the decoder ranked next, where it wrote the word so itself", () => {
    const lists4 = (lang: string) => (lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "факсов", "фарсов"]) : undefined);
    const line = "Список файсов.\n";
    // (the decoder's line, and by offset in it the letters it ranked next: к at файсов's й)
    const page = (decoded: string, near: Map<number, string>) =>
      languageLetters([russian[0]!, line], lists4, [undefined, undefined], [undefined, decoded], [undefined, near])[1];
    expect(page(line, new Map([[9, "к"]]))).toBe("Список факсов.\n");
    expect(page(line, new Map([[9, "кр"]]))).toBe(line);
    expect(page(line, new Map([[9, "р"]]))).toBe("Список фарсов.\n");
    // (the decoder's Markdown around the line's words moves the offsets with it)
    expect(page(`## ${line}`, new Map([[12, "к"]]))).toBe("Список факсов.\n");
    // a letter ranked next at another letter, a word the decoder spelled otherwise, no ranking: the word stays
    expect(page(line, new Map([[10, "к"]]))).toBe(line);
    expect(page("Список файлов.\n", new Map([[9, "к"]]))).toBe(line);
    expect(languageLetters([russian[0]!, line], lists4, [undefined, undefined], [undefined, line])[1]).toBe(line);
  });

  it("gives a line the recogniser read nothing in the decoder's words where each is a word of the language", () => {
    const lists3 = (lang: string) => (lang === "ru" ? WordList.of([...WORDS, "которую", "открыть", "для"]) : undefined);
    const page = (line: string, reading: string, decoded: string) =>
      languageLetters([russian[0]!, line], lists3, [undefined, reading], [undefined, decoded])[1];
    expect(page("</td><td>", "", "</td><td>для")).toBe("</td><td>для");
    expect(page("</td><td> ", "", "</td><td>для можно")).toBe("</td><td>для можно");
    // a word the language lacks (a picture's "-l"), a Latin word, a line the recogniser read, or a line whose
    // structure is not the decoder's: the merge's line stays
    expect(page("</td><td>", "", "</td><td>дла")).toBe("</td><td>");
    expect(page("<td>-", "", "<td>-l")).toBe("<td>-");
    expect(page("</td><td>", "", "</td><td>of")).toBe("</td><td>");
    expect(page("</td><td>", "ANA", "</td><td>для")).toBe("</td><td>");
    expect(page("</td></tr><tr><td>", "", "</td><td>для")).toBe("</td></tr><tr><td>");
  });

  it("writes a key's 3 read as з after a Latin capital as the digit", () => {
    expect(languageLetters([russian[0]!, " нажмите Fз), можно FЗ.\n"], lists)).toEqual([russian[0], " нажмите F3), можно F3.\n"]);
    // a Cyrillic capital before it, or a longer word: as it is
    const kept = [russian[0]!, " нажмите Зз или Fзк.\n"];
    expect(languageLetters(kept, lists)).toEqual(kept);
  });

  it("writes a Latin word small where the recogniser read a capital shaped as its small letter and the decoder did not", () => {
    const page = (line: string, decoded: string) =>
      languageLetters([russian[0]!, line], lists, [undefined, undefined], [undefined, decoded])[1];
    // the Ukrainian man pages' "meSg", "bZmOre"
    expect(page(" программа meSg можно", " программа mesg можно")).toBe(" программа mesg можно");
    expect(page(" программа bZmOre можно", " программа bzmore можно")).toBe(" программа bzmore можно");
    // the decoder's capital too, a capital of another shape, or a word opening with a capital: as the merge wrote it
    expect(page(" вызов toString можно", " вызов toString можно")).toBe(" вызов toString можно");
    expect(page(" вызов meGg можно", " вызов megg можно")).toBe(" вызов meGg можно");
    expect(page(" вызов PostScript можно", " вызов postscript можно")).toBe(" вызов PostScript можно");
  });

  it("leaves a page of another language, and a bundle without the list, as they are", () => {
    const serbian = ["Ово је страница коју можете отворити ако она постоји.\n", "Ииформация о позиву.\n"];
    expect(languageLetters(serbian, lists)).toEqual(serbian);
    expect(languageLetters(russian, () => undefined)).toEqual(russian);
    expect(languageLetters(russian)).toEqual(russian);
  });
});

describe("nearestReading (the word the recogniser's look-alikes spell)", () => {
  const f = WordList.of([...WORDS, "библиографии", "объекта", "объект", "щёлкните", "остаются", "паза", "назад"]);
  it("spells a reading's glyphs as the Cyrillic letters each is read for, pairs of glyphs as one", () => {
    expect(readingForms("OCTaIOTCA")).toContain("остаются");
    expect(readingForms("06beKTa")).toContain("объекта");
    expect(readingForms("HaXKMHTe")).toContain("нажмите");
    // (л read with a dot before its halves, я as a percent sign: CMU Serif at 150 DPI)
    expect(readingForms("MHOrOyrO.JIbHHKH")).toContain("многоугольники");
    expect(readingForms("cOcTO%HHH")).toContain("состоянии");
    // a character no Cyrillic letter is read as spells nothing
    expect(readingForms("Of?ice")).toEqual([]);
    // н and с the recogniser read once where the two ran together
    expect(readingForms("Bbi6paHbin")).toContain("выбранный");
    // beside the decoder's word, only spellings whose every beginning is near one of it: a reading of many
    // ambiguous glyphs stays in bounds
    const all = readingForms("HHHHHHH");
    const near = readingForms("HHHHHHH", "инипнип");
    expect(all.length).toBeGreaterThan(1000);
    expect(near.length).toBeLessThan(all.length / 5);
    expect(near).toContain("инипнип");
    expect(near).not.toContain("ннннннн");
  });

  it("writes the word the reading spells where the decoder's is no word, two letters off at most, in its capitals", () => {
    // (the language probe's Russian in LaTeX faces: words two letters off, which nearestWord leaves)
    expect(nearestReading("библиографи", "6n6nnorpaΦnn", f)).toBe("библиографии");
    expect(nearestReading("Обыекта", "06beKTa", f)).toBe("Объекта");
    expect(nearestReading("осталотся", "OCTaIOTCA", f)).toBe("остаются");
    expect(nearestReading("шёлкните", "wenKHNTe", f)).toBe("щёлкните");
    expect(nearestReading("Выбраный", "Bbi6paHbin", WordList.of(["выбранный"]))).toBe("Выбранный");
  });

  it("leaves a word the language holds, a short one, one whose reading spells no word, or a word too far from it", () => {
    expect(nearestReading("объект", "o6beKTa", f)).toBeUndefined();
    expect(nearestReading("обы", "o6b", f)).toBeUndefined();
    expect(nearestReading("обыект", "xxxx", f)).toBeUndefined();
    expect(nearestReading("документик", "06beKTa", f)).toBeUndefined();
  });

  it("is used on a Russian page where the line's words pair with its reading's, not on a word the reading hyphenates", () => {
    const g = WordList.of([...WORDS, "которую", "открыть", "только", "также", "может", "объекта", "свойства", "объект"]);
    const lists = (lang: string) => (lang === "ru" ? g : undefined);
    const first = "Это страница, которую можно открыть, если только она есть, что также может быть.\n";
    const lines = [first, "Свойства обыекда и обыекда\n"];
    const readings = [undefined, "CBOnCTBa 06beKTa H 06beK-"];
    // (the second, whose reading is half of it, is the page's word two letters from it once the first is repaired)
    expect(languageLetters(lines, lists, readings)).toEqual([first, "Свойства объекта и объекта\n"]);
    expect(languageLetters([first, "Свойства обыекда\n"], lists, [undefined, "CBOnCTBa 06beK-"])).toEqual([first, "Свойства обыекда\n"]);
    // without the reading, nearestWord alone: "обыекда" is two letters from "объекта"
    expect(languageLetters(lines, lists)).toEqual(lines);
    // where the two hold different counts of words, a word pairs through the characters' alignment when its letters
    // lie in one word of the reading that no other word's do: not two words the reading ran together
    expect(languageLetters([first, "Свойства обыекда и другое\n"], lists, [undefined, "CBOnCTBa 06beKTa"])).toEqual([
      first,
      "Свойства объекта и другое\n",
    ]);
    expect(languageLetters(lines, lists, [undefined, "CBOnCTBa06beKTa H 06beK-"])).toEqual(lines);
    // (a word the recogniser read with a mark inside, ".JI" for л, is one word of the reading)
    const h = WordList.of([...WORDS, "которую", "открыть", "только", "также", "может", "многоугольники", "объекта"]);
    expect(languageLetters([first, "мнгоуголеники объекта\n"], () => h, [undefined, "MHOrOyrO.JIbHHKH 06beKTa"])).toEqual([
      first,
      "многоугольники объекта\n",
    ]);
  });
});

describe("cyrillicLanguage", () => {
  it("is Russian where the Cyrillic words write ы or э and none of the neighbours' letters, English around them or not", () => {
    const russian = "Это страница, которую можно открыть, если только она есть, что также может быть.";
    expect(cyrillicLanguage(russian)).toBe("ru");
    expect(cyrillicLanguage(`Choose Tools - Options. ${russian} The dialog opens.`)).toBe("ru");
    // a stray Ј among forty words
    expect(cyrillicLanguage(`${russian} Јинейка ${russian} ${russian} ${russian}`)).toBe("ru");
  });

  it("is Ukrainian or Serbian where their own letters are written, and no language for Bulgarian, a few words or none", () => {
    const serbian = "Ово је страница коју можете отворити ако она постоји, или било која друга страница.";
    const ukrainian = "Це сторінка, яку можна відкрити, якщо вона є, що також може бути у вікні.";
    expect(cyrillicLanguage(serbian)).toBe("sr");
    expect(cyrillicLanguage(ukrainian)).toBe("uk");
    expect(cyrillicLanguage(`Run ls -l first. ${ukrainian}`)).toBe("uk");
    // Russian's ы in a Ukrainian page's words, more than a stray: no language's
    expect(cyrillicLanguage(`${ukrainian} Это страница, которую можно открыть.`)).toBeUndefined();
    // Serbian's letters with letters Serbian never writes (я, щ): no language's
    expect(cyrillicLanguage(`${serbian} Это щиты ящика ящик`)).toBeUndefined();
    expect(cyrillicLanguage("Това е страница, която можете да отворите, ако тя съществува в документа.")).toBeUndefined();
    expect(cyrillicLanguage("Меню Вызов службы")).toBeUndefined();
    expect(cyrillicLanguage("The quick brown fox jumps over the lazy dog again and again and again.")).toBeUndefined();
  });
});

describe("word-counts.mjs", () => {
  it("reads the running text of HTML, man pages and gettext catalogues, and counts the list's words in it", () => {
    const html = Buffer.from(
      "<html><style>p { color: red }</style><p>Нажмите&nbsp;<b>Удалить</b> &#1080; ещё</p><script>var удалить;</script></html>",
    );
    expect(fileText("a/b.html", html).replace(/\s+/g, " ").trim()).toBe("Нажмите Удалить и ещё");
    const man = Buffer.from(".TH LS 1\n.SH ОПИСАНИЕ\n\\fBls\\fR выводит \\(em список\n.B файлов\n");
    expect(fileText("usr/share/man/ru/man1/ls.1", man).replace(/\s+/g, " ").trim()).toBe("LS 1 ОПИСАНИЕ ls выводит список файлов");
    expect(fileText("x.bin", Buffer.from([0xff, 0xfe, 0x00]))).toBeUndefined();
    // a .mo: magic, revision, strings, the originals' table, the translations' table
    const strings = ["", "Удалить файл"];
    const bodies = strings.map((t) => Buffer.from(t, "utf8"));
    const header = Buffer.alloc(28);
    header.writeUInt32LE(0x950412de, 0);
    header.writeUInt32LE(1, 8);
    header.writeUInt32LE(28, 12);
    header.writeUInt32LE(36, 16);
    const table = Buffer.alloc(16);
    table.writeUInt32LE(0, 0);
    table.writeUInt32LE(44, 4);
    table.writeUInt32LE(bodies[1]!.length, 8);
    table.writeUInt32LE(44, 12);
    const mo = Buffer.concat([header, table, bodies[1]!]);
    expect(catalogueText(mo)).toBe("Удалить файл");
    expect(fileText("uk/LC_MESSAGES/a.mo", mo)).toBe("Удалить файл");
    expect(catalogueText(Buffer.from("not a catalogue at all, no"))).toBeUndefined();
    const list = WordList.of(["удалить", "файл", "ещё"]);
    const counts = countWords(["Удалить файл. Удалить ЕЩЕ, Файлы", "удалить"], list, wordKey, "Cyrillic");
    expect([...counts].sort()).toEqual([
      ["еще", 1],
      ["удалить", 3],
      ["файл", 1],
    ]);
    expect(COUNT_MIN).toBe(3);
  });
});

describe("word-list.mjs", () => {
  it("makes every form hunspell's rules make, the reflexive forms and prefixes across suffixes", () => {
    const rules = affixRules(
      [
        "SET UTF-8",
        "SFX L Y 2",
        "SFX L   ться  ется   ться",
        "SFX L   ть    ет     [^с]ть",
        "PFX P Y 1",
        "PFX P   0     по     .",
        "SFX N N 1",
        "SFX N   0     а      [^ь]",
      ].join("\n"),
    );
    const all = forms("3\nявляться/LP\nделать/L\nдом/N\n", rules);
    expect([...all].sort()).toEqual(["делает", "делать", "дом", "дома", "является", "являться", "появляется", "появляться"].sort());
  });
});
