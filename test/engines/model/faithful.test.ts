// The merge of a line's decoder Markdown with the recogniser's glyph evidence (src/engines/model/faithful.ts).
import { describe, expect, it } from "vitest";
import {
  align,
  bannedScript,
  baseOf,
  cyrillicLook,
  englishPage,
  faithfulLine,
  joinHyphenated,
  verticalLine,
  markdownUnits,
  mergeLine,
  mergeLineTagged,
  oneScript,
  numberGap,
  letterSpacing,
  pageScripts,
  texLogos,
  texPage,
  fallbackReading,
  languageLetters,
  typographicApostrophes,
  closingQuotes,
  copyrightSigns,
  emailAddresses,
  unsureAngles,
  scriptOf,
  FAITHFUL_DEFAULTS,
  type LineEvidence,
} from "../../../src/engines/model/faithful.js";
import { DIACRITICS } from "../../../src/vision/diacritics.js";
import { pageLanguage } from "../../../src/vision/language.js";

/** The diacritics model's classes by name, as LineEvidence.diacritics holds them. */
const D = (names: string[]) => names.map((n) => DIACRITICS.indexOf(n as (typeof DIACRITICS)[number]));

/** The recogniser's reading with every slot at `peak`, or the peaks given per character. */
const ev = (text: string, peak: number | number[] = 1): LineEvidence => ({
  text,
  peaks: Array.from(text, (_, i) => (Array.isArray(peak) ? peak[i]! : peak)),
});
/** The recogniser's reading, sure, with the blank CTC steps before each character. */
const gapped = (text: string, gaps: number[]): LineEvidence => ({ ...ev(text), gaps });
const latin = { cyrillic: false };
const cyrillic = { cyrillic: true };

describe("mergeLine", () => {
  it("undoes the decoder's substitutions and drops its letters inserted inside a sure run (the README's demo page)", () => {
    expect(mergeLine(" Docling bugundles PDF document conversion to", ev("Docling bundles PDF document conversion to"), latin)).toBe(
      " Docling bundles PDF document conversion to",
    );
    expect(mergeLine(" JSON and Markdown in an egasy self contained", ev("JSON and Markdown in an easy self contained"), latin)).toBe(
      " JSON and Markdown in an easy self contained",
    );
    expect(mergeLine(" Thecorem 1 holds for bundlcs", ev("Theorem 1 holds for bundles"), latin)).toBe(" Theorem 1 holds for bundles");
  });

  it("keeps the letters of a ligature the recogniser read as its f (fi, fl, ffi: one glyph)", () => {
    expect(mergeLine(" Process the file with LaTeX", ev("Process the fle with LaTeX"), latin)).toBe(" Process the file with LaTeX");
    expect(mergeLine(" the first office reflex", ev("the frst ofce refex"), latin)).toBe(" the first office reflex");
    // an inserted letter after any other letter still goes
    expect(mergeLine(" bundlies", ev("bundles"), latin)).toBe(" bundles");
  });

  it("keeps the decoder's capital C, O, S, V, W, X or Z opening a word where the recogniser read it small", () => {
    // (the language probe's German help pages, in a typewriter face: "Wenn", "Optionsfeld" read "wenn", "optionsfeld")
    expect(mergeLine(" Wenn das Optionsfeld markiert ist", ev("wenn das optionsfeld markiert ist"), latin)).toBe(
      " Wenn das Optionsfeld markiert ist",
    );
    // not inside a word, not a letter whose small form has its own shape, and not a capital the decoder wrote small
    expect(mergeLine(" LibreOffice", ev("Libreoffice"), latin)).toBe(" Libreoffice");
    expect(mergeLine(" Das ist", ev("das ist"), latin)).toBe(" das ist");
    expect(mergeLine(" wenn", ev("Wenn"), latin)).toBe(" Wenn");
  });

  it("keeps the recogniser's case of a letter cased by size where its glyph's height shows that case", () => {
    // cd-showexpl's "\SX@width": the S read at 0.54, 1.45 x-heights tall; the decoder's "sX"
    const text = "\\SX@width";
    const unsureS = (heights: number[]) => ({
      ...ev(
        text,
        Array.from(text, (c) => (c === "S" ? 0.54 : 1)),
      ),
      heights,
    });
    const tall = [1.6, 1.45, 1.41, 1.41, 1, 1, 1.4, 1.25, 1.4];
    expect(mergeLine(" \\sX@width", unsureS(tall), latin)).toBe(" \\SX@width");
    // a small letter at the x-height the same way ("ox" for the decoder's "oX")
    expect(mergeLine(" box", { ...ev("box", [1, 1, 0.5]), heights: [1.4, 1, 1.02] }, latin)).toBe(" box");
    // not where the height is between the two, unmeasured, or shows the decoder's case; nor another letter
    expect(mergeLine(" \\sX@width", unsureS(tall.map((h, i) => (i === 1 ? 1.15 : h))), latin)).toBe(" \\sX@width");
    expect(mergeLine(" \\sX@width", unsureS(tall.map((h, i) => (i === 1 ? NaN : h))), latin)).toBe(" \\sX@width");
    expect(mergeLine(" \\sX@width", unsureS(tall.map((h, i) => (i === 1 ? 1 : h))), latin)).toBe(" \\sX@width");
    expect(mergeLine(" \\5X@width", unsureS(tall), latin)).toBe(" \\5X@width");
    // in TeX code, where both read the other case, the height decides ("\Sx@vsep" read by both, its x as tall as
    // the S)
    expect(mergeLine(" \\Sx@vsep", { ...ev("\\Sx@vsep"), heights: [1.6, 1.45, 1.41, 1.41, 1, 1, 1, 1] }, latin)).toBe(" \\SX@vsep");
    // …but not in prose, where the two readers' agreement stands ("Other" measured short)
    expect(mergeLine(" Other", { ...ev("Other"), heights: [1.02, 1.4, 1.4, 1, 1] }, latin)).toBe(" Other");
    // …nor after a letter that may overhang it, beside a digit, or in a word of small capitals, whose other capitals
    // stand under a capital's height
    expect(mergeLine(" \\foo", { ...ev("\\foo"), heights: [1.6, 1.4, 1.45, 1] }, latin)).toBe(" \\foo");
    expect(mergeLine(" \\a1o", { ...ev("\\a1o"), heights: [1.6, 1, 1.4, 1.45] }, latin)).toBe(" \\a1o");
    const smallCaps = { ...ev("\\sc CLASS"), heights: [1.6, 1, 1, NaN, 1.45, 1.05, 1.04, 1.03, 1.04] };
    expect(mergeLine(" \\sc CLASS", smallCaps, latin)).toBe(" \\sc CLASS");
    // …nor on a Cyrillic page, whose c, o, x are look-alikes
    expect(mergeLine(" \\Сx", { ...ev("\\Cx"), heights: [1.6, 1.45, 1.41] }, cyrillic)).toBe(" \\Сx");
  });

  it("cuts a mark the decoder repeated beyond the recogniser's sure run of it, and keeps a doubled one", () => {
    expect(mergeLine(" \\ClassWarning{leaflet}{####1.}", ev("\\ClassWarning{leaflet}{#1.}"), latin)).toBe(" \\ClassWarning{leaflet}{#1.}");
    // …though the letter before the run is unsure
    const peaks = Array.from("\\Warning{leaflet}{#1.}", (c, i) => (i === 17 ? 0.6 : 1));
    expect(mergeLine(" \\Warning{leaflet}{####1.}", ev("\\Warning{leaflet}{#1.}", peaks), latin)).toBe(" \\Warning{leaflet}{#1.}");
    // the recogniser reads a doubled mark once: "--" stays
    expect(mergeLine(" pages 3--5 and", ev("pages 3-5 and"), latin)).toBe(" pages 3--5 and");
    // ...not a mark whose two glyphs stand apart, which it would have read twice
    expect(mergeLine(" Thanks!!", ev("Thanks!"), latin)).toBe(" Thanks!");
    expect(mergeLine(" \\newcommand**\\sx@pos{}}", ev("\\newcommand*\\sx@pos{}"), latin)).toBe(" \\newcommand*\\sx@pos{}");
  });

  it("spells the LaTeX logo the recogniser reads as IATEX or ATEX as LATEX, and leaves other words alone", () => {
    expect(mergeLine(" Process it with LATEX to see", ev("Process it with IATEX to see"), latin)).toBe(" Process it with LATEX to see");
    expect(mergeLine(" the ATEX team, IATEX’s and (IATEX2e)", ev("the ATEX team, IATEX’s and (IATEX2e)"), latin)).toBe(
      " the LATEX team, LATEX’s and (LATEX2e)",
    );
    expect(mergeLine(" makra IATEXowe", ev("makra IATEXowe"), latin)).toBe(" makra LATEXowe");
    // …or as LTeX, its A lost (sc-ieee-p5)
    expect(mergeLine(" the vast majority of LTeX users, LTEX2e", ev("the vast majority of LTeX users, LTEX2e"), latin)).toBe(
      " the vast majority of LATEX users, LATEX2e",
    );
    // …and as ITEX, the L read as I as well (nl-ltnews09's "ITEX Project Team")
    expect(mergeLine(" the ITEX Project Team, ITeXa, ITEXu", ev("the ITEX Project Team, ITeXa, ITEXu"), latin)).toBe(
      " the LATEX Project Team, LATEXa, LATEXu",
    );
    // (its restored A tagged as restored, one tag a character)
    const tagged = mergeLineTagged(" LTeX", ev("LTeX"), latin);
    expect([tagged.text, tagged.tags.length, tagged.tags[2], tagged.restored]).toEqual([" LATEX", 6, "x", 1]);
    // a control sequence, a word with more letters before it, an upper-case word running on, are not the logo
    expect(mergeLine(" \\ATEX, DATEX, ATEXT and PLATEX", ev("\\ATEX, DATEX, ATEXT and PLATEX"), latin)).toBe(
      " \\ATEX, DATEX, ATEXT and PLATEX",
    );
    expect(mergeLine(" \\LTeX, XLTeX, LTEXT", ev("\\LTeX, XLTeX, LTEXT"), latin)).toBe(" \\LTeX, XLTeX, LTEXT");
  });

  it("keeps the decoder's o where the recogniser read an accented o as 6 or ?, with the mark read on its glyph", () => {
    // Hungarian "való", "felhasználó", "lehetőségeit": the recogniser's sure 6 and ? inside words
    expect(mergeLine(" való és felhasználó", ev("val6 és felhasznál6"), latin)).toBe(" való és felhasználó");
    expect(mergeLine(" lehetöségeit", ev("lehet?ségeit"), latin)).toBe(" lehetöségeit");
    // …with the double acute read on the ?'s glyph: ő
    const marks = D(Array.from("lehet?ségeit", (c) => (c === "?" ? "double-acute" : c === "é" ? "acute" : "none")));
    const lehet = { ...ev("lehet?ségeit"), diacritics: marks, diacriticPeaks: Array.from("lehet?ségeit", () => 0.95) };
    expect(mergeLine(" lehetöségeit", lehet, latin)).toBe(" lehetőségeit");
    // …and where the decoder wrote nothing for it, the 6 it restores is the o of the mark read there
    const read = "z przyjaci6lmi";
    const acute = {
      ...ev(read),
      diacritics: D(Array.from(read, (c) => (c === "6" ? "acute" : "none"))),
      diacriticPeaks: Array.from(read, () => 0.95),
    };
    expect(mergeLine(" z przyjaci", acute, latin)).toBe(" z przyjaciólmi");
    // (read "none", it stays a 6)
    expect(mergeLine(" z przyjaci", { ...acute, diacritics: D(Array.from(read, () => "none")) }, latin)).toBe(" z przyjaci6lmi");
    // a number, a question, and a 6 or ? the decoder wrote as such stay
    expect(mergeLine(" IL6 and x86 or 1996", ev("IL6 and x86 or 1996"), latin)).toBe(" IL6 and x86 or 1996");
    expect(mergeLine(" IL0 is what?", ev("IL6 is what?"), latin)).toBe(" IL6 is what?");
    expect(mergeLine(" IL6 is whato", ev("IL6 is what?"), latin)).toBe(" IL6 is whato");
  });

  it("writes a dotless i and a stroke read less surely than other marks (Turkish ı, Polish ł at 0.75)", () => {
    const yazili = {
      ...ev("yazili"),
      diacritics: D(["none", "none", "none", "dotless", "none", "dotless"]),
      diacriticPeaks: [1, 1, 1, 0.78, 1, 0.6],
    };
    expect(mergeLine(" yazili", yazili, latin)).toBe(" yazıli");
    // another mark at 0.78 is not sure
    const cte = { ...ev("cte"), diacritics: D(["caron", "none", "none"]), diacriticPeaks: [0.78, 1, 1] };
    expect(mergeLine(" cte", cte, latin)).toBe(" cte");
    // ł at 0.78, which neither reader writes; not at 0.6
    const byl = { ...ev("byla sila"), diacritics: D(["none", "none", "stroke", "none", "none", "none", "none", "stroke", "none"]) };
    expect(mergeLine(" byla sila", { ...byl, diacriticPeaks: [1, 1, 0.78, 1, 1, 1, 1, 0.6, 1] }, latin)).toBe(" była sila");
  });

  it("writes ł where a stroke is read sure on the recogniser's l and the decoder wrote the t or i it looks like", () => {
    // a typewriter face's ł: "zaktadek", "zak\\adek" for "zakładek" (the recogniser's l unsure, its stroke sure)
    const read = "zakladek Lodz";
    const marks = D(Array.from(read, (c, j) => (j === 3 || j === 9 ? "stroke" : "none")));
    const zak = {
      ...ev(read),
      peaks: Array.from(read, (_, j) => (j === 3 ? 0.27 : 0.99)),
      diacritics: marks,
      diacriticPeaks: Array.from(read, () => 0.99),
    };
    expect(mergeLine(" zaktadek Todz", zak, latin)).toBe(" zakładek Łodz");
    expect(mergeLine(" zak\\adek Lodz", zak, latin)).toBe(" zakładek Łodz");
    // a decoder's letter of another shape stays, as does the t where the stroke is not sure
    expect(mergeLine(" zakradek Lodz", zak, latin)).toBe(" zakradek Łodz");
    expect(mergeLine(" zaktadek Lodz", { ...zak, diacriticPeaks: Array.from(read, (_, j) => (j === 3 ? 0.5 : 0.99)) }, latin)).toBe(
      " zaktadek Łodz",
    );
  });

  it("writes ç where a cedilla is read sure on the recogniser's c and the decoder wrote the q, g or bracket it looks like", () => {
    // a Turkish man page's "süreq", "<ıktıya" for "süreç", "çıktıya" (the recogniser's c unsure there)
    const read = "surec ciktiya";
    const marks = D(Array.from(read, (c, j) => (j === 4 || j === 6 ? "cedilla" : c === "u" ? "diaeresis" : "none")));
    const ev2 = {
      ...ev(read),
      peaks: Array.from(read, (_, j) => (j === 4 || j === 6 ? 0.5 : 0.99)),
      diacritics: marks,
      diacriticPeaks: Array.from(read, () => 0.99),
    };
    expect(mergeLine(" süreq <iktiya", ev2, latin)).toBe(" süreç çiktiya");
    expect(mergeLine(" süreg (iktiya", ev2, latin)).toBe(" süreç çiktiya");
    // a decoder's letter of another shape stays
    expect(mergeLine(" sürex xiktiya", ev2, latin)).toBe(" sürex xiktiya");
  });

  it("composes letters with the diacritics read on their glyphs, where sure and on the slot's own letter", () => {
    // "čte" read as "cte" by the recogniser, "ête" by the decoder: the caron read on the c's glyph makes it č
    const cte = { ...ev("cte"), diacritics: D(["caron", "none", "none"]), diacriticPeaks: [0.97, 0.99, 0.99] };
    expect(mergeLine(" ête", cte, latin)).toBe(" čte");
    // the decoder's accent where the glyph shows none goes; an unsure reading changes nothing
    const nic = { ...ev("nic"), diacritics: D(["none", "none", "none"]), diacriticPeaks: [0.99, 0.99, 0.99] };
    expect(mergeLine(" níc", nic, latin)).toBe(" nic");
    expect(mergeLine(" níc", { ...nic, diacriticPeaks: [0.99, 0.6, 0.99] }, latin)).toBe(" níc");
    expect(mergeLine(" nìc", { ...nic, diacritics: D(["none", "acute", "none"]) }, latin)).toBe(" níc");
    // the decoder's accented letter and a letter the recogniser saw nothing of, before the letter it read there
    // ("stejnême" for "stejne" on a Czech scan): one glyph, which takes the caron read on it; "ée" side by side stays
    const n = (t: string) => Array.from(t, () => "none");
    const stejne = { ...ev("stejne"), diacritics: D([...n("stejn"), "caron"]), diacriticPeaks: Array.from("stejne", () => 0.99) };
    expect(mergeLine(" stejnême", stejne, latin)).toBe(" stejně");
    expect(mergeLine(" détaillées", ev("detailles"), latin)).toBe(" détaillées");
    // a letter restored from the recogniser takes its diacritic too; a letter of another base keeps its own
    const zlut = { ...ev("zlut"), diacritics: D(["caron", "none", "none", "caron"]), diacriticPeaks: [0.99, 0.99, 0.99, 0.99] };
    expect(mergeLine(" zlt", zlut, latin)).toBe(" žluť");
    expect(mergeLine(" glut", { ...zlut, peaks: [0.3, 1, 1, 1] }, latin)).toBe(" gluť");
    // no diacritics read on the page: nothing changes
    expect(mergeLine(" ête", ev("cte"), latin)).toBe(" cte");
  });

  it("drops the decoder's accents on letters the recogniser read bare on an English page (issue 18)", () => {
    const english = { cyrillic: false, english: true };
    // tb-pmc4840965, tb-pmc5897438, fm-funsd-0338: accents no glyph shows
    expect(mergeLine(" Adenocarcinomá with mucinous", ev("Adenocarcinoma with mucinous"), english)).toBe(" Adenocarcinoma with mucinous");
    expect(mergeLine(" Col3a1 antisénse", ev("Col3a1 antisense", 0.6), english)).toBe(" Col3a1 antisense");
    // of either case: the recogniser's capital, weakly read, over the decoder's small accented letter
    const pass = "\\PassOptions";
    expect(
      mergeLine(
        " \\Passöptions",
        ev(
          pass,
          Array.from(pass, (c) => (c === "O" ? 0.48 : 1)),
        ),
        english,
      ),
    ).toBe(" \\PassOptions");
    // a French page keeps them: the recogniser cannot read é
    expect(mergeLine(" la société", ev("la societe"), latin)).toBe(" la société");
    // where the diacritics model read the page, its readings decide
    const cafe = { ...ev("cafe"), diacritics: D(["none", "none", "none", "acute"]), diacriticPeaks: [0.99, 0.99, 0.99, 0.99] };
    expect(mergeLine(" café", cafe, english)).toBe(" café");
    // the price: a name's or a loanword's own accent goes too, where the diacritics model did not read the page
    expect(mergeLine(" Zürich", ev("Zurich"), english)).toBe(" Zurich");
    expect(mergeLine(" naïve", ev("naive"), english)).toBe(" naive");
  });

  it("tells an English page by its function words, a table's few included", () => {
    expect(englishPage("The results of the trial are shown in the table, which is for the reader to check.")).toBe(true);
    expect(
      englishPage(
        "Variable Hazard ratio Type of surgery Depth of tumor invasion Adenocarcinoma with mucinous features Grade of differentiation",
      ),
    ).toBe(true);
    expect(
      englishPage("Je soussigné déclare qu'il m'est dû par la société la somme de 31,45 pour les dépenses énoncées dans le tableau"),
    ).toBe(false);
    expect(englishPage("Die Ergebnisse der Studie sind in der Tabelle, die für den Leser ist, und nicht mit dem Text")).toBe(false);
    expect(englishPage("Il risultato della prova è per il lettore, che non ha delle tabelle con il testo del capitolo")).toBe(false);
    // too few words to tell
    expect(englishPage("Primer name Primer sequence Tnfrsf12a sense of")).toBe(false);
    // a page is English for the merge only without Cyrillic words among its English (cy-audacity-p16 quotes a name,
    // "Alf Tonny Bätz", in a Ukrainian manual the recogniser reads as look-alikes)
    const prose = ev("The document is written by Alf Tonny Batz and it is released under the GPL for the reader");
    expect(pageScripts([prose])).toMatchObject({ cyrillic: false, mixed: false, english: true });
    const quoting = [prose, ev("ni3Hi KapTy ma6yTb xo4eTe 3a6yB nepeKa3")];
    expect(pageScripts(quoting)).toMatchObject({ cyrillic: false, mixed: true, english: false });
    // English words where another language's function words are as many as a third of them
    expect(englishPage("the of and to is, le la les des et")).toBe(false);
  });

  it("keeps the decoder's ü, ß and „ over what the recogniser reads for them, sure (i, f, a comma)", () => {
    expect(mergeLine(" außerdem müssen wir", ev("auBerdem missen wir"), latin)).toBe(" außerdem müssen wir");
    expect(mergeLine(" die Größe „Maß“", ev('die Grofe ,MaB"'), latin)).toBe(" die Größe „Maß“");
    // a letter the recogniser reads sure as another one stays the recogniser's
    expect(mergeLine(" mössen", ev("missen"), latin)).toBe(" missen");
  });

  it("keeps the decoder's bracket where the recogniser's other kind would leave the line's brackets unpaired", () => {
    expect(mergeLine(" \\renewenvironment{document}%", ev("\\renewenvironment[document}%"), latin)).toBe(" \\renewenvironment{document}%");
    // where the decoder's own brackets do not pair, the recogniser's sure reading is taken
    expect(mergeLine(" \\newcommand{\\x}[1}", ev("\\newcommand{\\x}[1]"), latin)).toBe(" \\newcommand{\\x}[1]");
  });

  it("drops a letter the recogniser cannot read written right after its own base letter (the letter twice)", () => {
    expect(mergeLine(" Az ebben definiíalt parancsok", ev("Az ebben definialt parancsok"), latin)).toBe(" Az ebben definialt parancsok");
    // alone, where the recogniser read its base, it stays (the recogniser lacks the accent)
    expect(mergeLine(" Az ebben definiált parancsok", ev("Az ebben definialt parancsok"), latin)).toBe(" Az ebben definiált parancsok");
    // before its base it is the word's own letter, the pair read as one: French "ée" stays
    expect(mergeLine(" les sections détaillées", ev("les sections detailles"), latin)).toBe(" les sections détaillées");
    // a Cyrillic letter written twice where the recogniser read one look-alike stays twice ("зоопарк")
    expect(mergeLine(" зоопарк", ev("зoпарк"), cyrillic)).toBe(" зоопарк");
  });

  it("writes a capital I among capitals where a sans face's I was read as an l, the recogniser's or the decoder's", () => {
    // (the probe's LibreOffice help: "(APl)"; the dev form fm-funsd-0069: "DIVISlON")
    expect(mergeLine(" the API function", ev("the APl function"), latin)).toBe(" the API function");
    expect(mergeLine(" DIVISlON: Seattle", ev("DIVISloN: Seattle", [1, 1, 1, 1, 1, 0.6, 0.6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), latin)).toBe(
      " DIVISION: Seattle",
    );
    // a word of one other letter, or of small letters, keeps its l
    expect(mergeLine(" Il libro e El gato", ev("Il libro e El gato"), latin)).toBe(" Il libro e El gato");
    expect(mergeLine(" the lib and XMLlib", ev("the lib and XMLlib"), latin)).toBe(" the lib and XMLlib");
    // a name in small capitals, read small by the recogniser (vision/letter-case.ts smallCaps) and as capitals by
    // the decoder, is written as read: its l's stand among the small letters written
    expect(mergeLine(" written by David CARLISLE.", ev("written by David Carlisle."), latin)).toBe(" written by David Carlisle.");
  });

  it("aligns both glyphs the recogniser reads for one Cyrillic letter with it (ы as bI in Computer Modern)", () => {
    // (the language probe's Russian in LaTeX faces: its second glyph was aligned with a letter or a space of the
    // decoder's, whose look-alike then went back as a letter of its own, or took the space's place)
    expect(mergeLine(" одновременный доступ", ev("OIHOBpeMeHHHIN IOCTyII"), cyrillic)).toBe(" одновременный доступ");
    expect(mergeLine(" Параметры Сервис", ev("HIapaMeTpbICepBHC"), cyrillic)).toBe(" Параметры Сервис");
  });

  it("keeps the decoder's character where the recogniser read two spaces (a glyph it could not read)", () => {
    const read = "an unmatched  or 3, or a %";
    const peaks = Array.from(read, (c) => (c === "3" ? 0.4 : 1));
    expect(mergeLine(" an unmatched { or y, or a %", ev(read, peaks), latin)).toBe(" an unmatched { or y, or a %");
    // one space stays evidence: the decoder's letter over a sure single space goes
    expect(mergeLine(" two wordsxjoined", ev("two words joined"), latin)).toBe(" two words joined");
    // (the decoder's letters inserted there are still dropped inside a sure run: "table pable depicts")
    expect(mergeLine(" table pable depicts", ev("table  depicts"), latin)).toMatch(/^ table \S depicts$/);
  });

  it("puts back a section number the decoder left off a heading, with one space", () => {
    expect(mergeLine("\n\n## Improved verbatim commands", ev("3  Improved verbatim commands"), latin)).toBe(
      "\n\n## 3 Improved verbatim commands",
    );
    expect(mergeLine("\n\nWriting banners", ev(" 2.1  Writing banners"), latin)).toBe("\n\n2.1 Writing banners");
    // a number the decoder wrote stays as it is; an unsure one is not put back; nor is one before a non-letter
    expect(mergeLine("\n\n### 4.1.1 Comments", ev("4.1.1  Comments"), latin)).toBe("\n\n### 4.1.1 Comments");
    expect(mergeLine("\n\nUsage", ev("1  Usage", [0.3, 1, 1, 1, 1, 1, 1, 1]), latin)).toBe("\n\nUsage");
    expect(mergeLine("\n\n(see below)", ev("7 (see below)"), latin)).toBe("\n\n(see below)");
    // nor a number the line before was (detected as a box of its own, already written there)
    expect(mergeLine(" Improved verbatim commands", { ...ev("3  Improved verbatim commands"), previous: "3" }, latin)).toBe(
      " Improved verbatim commands",
    );
  });

  it("restores the words the decoder dropped whole with their spaces, and no unsure space the decoder left out alone", () => {
    expect(mergeLine("\n\nAdenocarcinoums/", ev("Adenocarcinoma with mucinous features"), latin)).toBe(
      "\n\nAdenocarcinoma with mucinous features",
    );
    expect(mergeLine(" a bookcase here", ev("a book case here", [1, 1, 1, 1, 1, 1, 0.8, 1, 1, 1, 1, 1, 1, 1, 1, 1]), latin)).toBe(
      " a bookcase here",
    );
  });

  it("reads an l the readers took for 1 opening a control sequence or a file extension, and no other 1", () => {
    expect(mergeLine(" through the \\1stset and", ev("through the \\1stset and"), latin)).toBe(" through the \\lstset and");
    expect(mergeLine(" 2 \\box_new:N\\1__sets_box", ev("2 \\box_new:N\\1__sets_box"), latin)).toBe(" 2 \\box_new:N\\l__sets_box");
    expect(mergeLine(" a magyar.1df and magyar .1df", ev("a magyar.1df and magyar .1df"), latin)).toBe(" a magyar.ldf and magyar .ldf");
    // a package's name, a number, a backreference before a digit, a decimal before a unit
    for (const t of [" \\usepackage{type1ec}", " 8.5in x 11in", " \\1\\2", " 0.1pt", " v1.1rc"])
      expect(mergeLine(t, ev(t.slice(1)), latin)).toBe(t);
  });

  it("writes LaTeX documentation's meta-variables in angle brackets where a line shows one read half as a parenthesis", () => {
    const line = " \\norm*[<size>]<subscr)}<arg>} works as \\norm";
    // (the "{" before each of the last two, lost with the angle bracket, comes back: texBraces)
    expect(mergeLine(line, ev(line.slice(1)), latin)).toBe(" \\norm*[⟨size⟩]{⟨subscr⟩}{⟨arg⟩} works as \\norm");
    const two = " \\scalprod[(size>]{(name)}{arg 1}";
    expect(mergeLine(two, ev(two.slice(1)), latin)).toBe(" \\scalprod[⟨size⟩]{(name)}{arg 1}");
    // typewriter code's own "<" and ">", a table's tags, prose without TeX, and parentheses stay
    for (const t of [" \\ref{<label>} will print", "<table><tr><td>\\ref{(a>}</td></tr></table>", " if (x) then <b)", " \\foo (bar) baz"])
      expect(mergeLine(t, ev(t.replace(/<\/?(table|tr|td)>/g, "").trimStart()), latin)).toBe(t);
  });

  it("writes a word between brackets the recogniser read unsure as a meta-variable, on a page of TeX documentation", () => {
    const tex = { cyrillic: false, tex: true };
    // (mt-functan-p4: "(subscr)", its brackets read 0.76 and 0.98; the decoder copied the parentheses)
    const line = " that (subscr) is not one of the macro";
    const peaks = Array.from(line.slice(1), (c, i) => (i === 5 ? 0.76 : c === ")" ? 0.98 : 1));
    expect(mergeLine(line, ev(line.slice(1), peaks), tex)).toBe(" that ⟨subscr⟩ is not one of the macro");
    // the decoder's "<" with the recogniser's unsure ")", in prose without a control word
    const prose = " in <expansion). The macros";
    const proseRead = "in (expansion). The macros";
    const prosePeaks = Array.from(proseRead, (c) => (c === "(" ? 0.7 : 1));
    expect(mergeLine(prose, ev(proseRead, prosePeaks), tex)).toBe(" in ⟨expansion⟩. The macros");
    // sure parentheses stay; so does a word of one or two letters ("(n)", "(ii)": a formula's, a list's), and any
    // bracket on a page that is not TeX documentation (a scan's noise makes brackets unsure)
    expect(mergeLine(" see (for the size) here", ev("see (for the size) here"), tex)).toBe(" see (for the size) here");
    expect(mergeLine(" case (ii) and (n)", ev("case (ii) and (n)", 0.6), tex)).toBe(" case (ii) and (n)");
    expect(mergeLine(line, ev(line.slice(1), peaks), latin)).toBe(line);
    expect(unsureAngles("a (size) b", [1, 1, 0.8, 1, 1, 1, 1, 1, 1, 1])).toEqual(new Set(["size"]));
  });

  it("gives a meta-variable right after an argument the opening brace its closing one shows", () => {
    // (mt-functan-p4: cmtt's "{" before a ⟨ is lost by both readers)
    const line = " \\scalprod*[<size)]<subscr>}<arg 1>}";
    expect(mergeLine(line, ev(line.slice(1)), latin)).toBe(" \\scalprod*[⟨size⟩]{⟨subscr⟩}{⟨arg 1⟩}");
    // a meta-variable inside a group, or one whose brace the line shows, takes none
    const inside = " \\foo{<size)} and \\bar{<arg>}";
    expect(mergeLine(inside, ev(inside.slice(1)), latin)).toBe(" \\foo{⟨size⟩} and \\bar{⟨arg⟩}");
  });

  it("makes a page's apostrophes inside words of the kind it writes elsewhere, outside code", () => {
    // (la-dun19-p3: "l’article" and "d'une" on one page, both set ’)
    const page = ["\n\nÀ l'occasion du stage", " paru dans l’article", "\n\n```\n\\def \\printpr'x", " it's", "```", " d'une macro"];
    expect(typographicApostrophes(page)).toEqual([
      "\n\nÀ l’occasion du stage",
      " paru dans l’article",
      "\n\n```\n\\def \\printpr'x",
      " it's",
      "```",
      " d’une macro",
    ]);
    // a control word, inline code, a quote's marks: theirs stay
    expect(typographicApostrophes([" l’a", " \\def\\don't", " `it's`", " 'quoted' word"])).toEqual([
      " l’a",
      " \\def\\don't",
      " `it's`",
      " 'quoted' word",
    ]);
    // a page that never writes ’ inside a word (a typewritten form) keeps its straight ones
    expect(typographicApostrophes([" O'Brien's form", " ‘quoted’"])).toEqual([" O'Brien's form", " ‘quoted’"]);
  });

  it("closes a quote opened by “ with ”, across lines, and leaves „…“, ”…” and code as written", () => {
    // (mc-ieee-p4: "These “Nimbus“ fonts"; mc-acm-p2: "the “Libertine“ typeface")
    expect(closingQuotes([" These “Nimbus“ fonts,", " the “real” Adobe", " a “Libertine“."])).toEqual([
      " These “Nimbus” fonts,",
      " the “real” Adobe",
      " a “Libertine”.",
    ]);
    // a quote running over a line break closes on the next line; one at a line's end closes too
    expect(closingQuotes([" he said “two", " lines“ and “end“"])).toEqual([" he said “two", " lines” and “end”"]);
    // German and Czech close „ with “; a page that writes ”…” keeps it; code keeps its marks
    // (fences as the decoder writes them: opening a line's text, closing before a blank line)
    const kept = [" „Übersicht“ und „zwei", " Zeilen“ hier", " as ”you” say", " `a “b“`", "\n\n```\n“x“ y", " “z“", "\n```"];
    expect(closingQuotes(kept)).toEqual(kept);
    // …and text after a block's closing fence on the same line is outside it
    expect(closingQuotes(["\n\n```\n“x“ y", "\n```\n\nThe “end“"])).toEqual(["\n\n```\n“x“ y", "\n```\n\nThe “end”"]);
    // a stray closing fence the decoder opens a page with opens no block: the page's quotes are read
    expect(closingQuotes(["```\n\n## 3 TERMS", " These “Nimbus“ fonts"])).toEqual(["```\n\n## 3 TERMS", " These “Nimbus” fonts"]);
  });

  it("closes a quote opened by „ as the page's language does, whatever the decoder wrote there", () => {
    // (a Serbian man page's „%f". and „double”;, a Hungarian help page's „Beszúrás")
    const serbian = [' Користи се са „%f". Ово је за „double”; и то је све што се види у овом тексту на страни.'];
    expect(closingQuotes(serbian)).toEqual([" Користи се са „%f“. Ово је за „double“; и то је све што се види у овом тексту на страни."]);
    const hungarian = [' Válassza a „Beszúrás" menüt, és a „Kép“ parancsot, ha nem az és egy is van.'];
    expect(closingQuotes(hungarian)).toEqual([" Válassza a „Beszúrás” menüt, és a „Kép” parancsot, ha nem az és egy is van."]);
    // a page no language names: the mark its own „ quotes close with, where they close with one kind
    expect(closingQuotes([' x „a“ y „b" z'])).toEqual([" x „a“ y „b“ z"]);
    expect(closingQuotes([' x „a“ y „b” z „c" w'])).toEqual([' x „a“ y „b” z „c" w']);
    // a straight quote no „ opened, or one that opens, stays
    expect(closingQuotes([' Користи се са "%f". Ово је за то и то је све што се види у овом тексту на страни.'])).toEqual([
      ' Користи се са "%f". Ово је за то и то је све што се види у овом тексту на страни.',
    ]);
  });

  it("writes © for an @ standing alone before a year or a name, and leaves addresses, handles and code", () => {
    // (a Turkish man page's "KOLUKISA @ 2022", a form's footer "2018/11/20, @ Robert Sebille")
    expect(copyrightSigns([" Yalçın KOLUKISA @ 2022 Nilgün", " V 1.0, 2018/11/20, @ Robert Sebille", "@ 1999 Free"])).toEqual([
      " Yalçın KOLUKISA © 2022 Nilgün",
      " V 1.0, 2018/11/20, © Robert Sebille",
      "© 1999 Free",
    ]);
    const kept = [" mail user@domain.tld now", " ask @Robert", " a @ b", " x @ ABC", "\n\n```\n@ 2020 Foo", " `@ 2021`"];
    expect(copyrightSigns(kept)).toEqual(kept);
  });

  it("joins an e-mail address read with a space beside its @ or the @ twice, and leaves the rest", () => {
    // fm-membertable's column of addresses: the recogniser sets a space after the wide "@", the decoder doubles it
    expect(emailAddresses([" rolf@ meine-uni.de", " andy @ meine-uni.de", " clara@@ meine-uni.de", " Mail: j.doe @Example.org."])).toEqual([
      " rolf@meine-uni.de",
      " andy@meine-uni.de",
      " clara@meine-uni.de",
      " Mail: j.doe@Example.org.",
    ]);
    // in code (the decoder fences a table's rows too) where the domain ends in a country's letters or a common one
    expect(
      emailAddresses(["\n\n```\n106872", " Braun, Andy", " andy @ meine-uni.de", "\n```\n\nx = 1", " send to root @ example.com"]),
    ).toEqual(["\n\n```\n106872", " Braun, Andy", " andy@meine-uni.de", "\n```\n\nx = 1", " send to root@example.com"]);
    const kept = [
      " mail user@domain.tld now",
      " KOLUKISA @ 2022",
      " a @ b",
      " 3 apples @ 2.50 each",
      "\n\n```\ny = x @ self.weight",
      " `a @ b.T`",
    ];
    expect(emailAddresses(kept)).toEqual(kept);
  });

  it("reads a fenced block of prose as prose: a man page's indented paragraph, its section heading", () => {
    const turkish = " Bu bir özgür yazılımdır ve bir için ile olan gibi bu da";
    const paragraph = [
      "\n\n```\n@ 2004, 2006 Yalç1n KOLUKISA @ 2022 Nilgün",
      " Yasaların izin verdiği ölçüde HiÇBiR GARANTi",
      " https://github.com/TLBP/manpages-tr/issues adresinde bulunmak\n```",
    ];
    expect(languageLetters(copyrightSigns([turkish, ...paragraph, "\n\n```\niLGiLi BELGELER\n```"]))).toEqual([
      turkish,
      "\n\n```\n© 2004, 2006 Yalçın KOLUKISA © 2022 Nilgün",
      " Yasaların izin verdiği ölçüde HİÇBİR GARANTİ",
      " https://github.com/TLBP/manpages-tr/issues adresinde bulunmak\n```",
      "\n\n```\nİLGİLİ BELGELER\n```",
    ]);
    // a block of code stays as written: marks of code, or words that are not words of letters
    const code = [
      "\n\n```\nnice [SEÇENEK] [KOMUT [ARG]...]\n```",
      "\n\n```\n@ 2020 katsayI $x\n```",
      "\n\n```\nls -l @ 2020 /tmp ~/bin\n```",
    ];
    expect(languageLetters(copyrightSigns([turkish, ...code]))).toEqual([turkish, ...code]);
  });

  it("writes an Italian page's è for the decoder's ê, outside code, and leaves other languages' pages alone", () => {
    const page = [
      "\n\nIl pacchetto LayAureo ê nato per mettere a disposizione una classe che non ê più",
      " di una pubblicazione non ê semplice e molto spesso si fa con il pacchetto della classe",
      "\n\n```\n\\def\\ê{x} ê",
      "```",
      " Ê vero che sono questo anche per le regole",
    ];
    expect(pageLanguage(page.join(" "))).toBe("it");
    expect(languageLetters(page)).toEqual([
      "\n\nIl pacchetto LayAureo è nato per mettere a disposizione una classe che non è più",
      " di una pubblicazione non è semplice e molto spesso si fa con il pacchetto della classe",
      "\n\n```\n\\def\\ê{x} ê",
      "```",
      " È vero che sono questo anche per le regole",
    ]);
    // French writes ê: a French page keeps it
    const french = [" La fenêtre est une des pages que nous avons dans le texte pour les tests et la même"];
    expect(pageLanguage(french[0]!)).toBe("fr");
    expect(languageLetters(french)).toEqual(french);
    // a French page's "í", a letter French never writes, is its "î" ("boíte", "apparaít")
    expect(languageLetters([`${french[0]} la boíte n'apparaít pas`])).toEqual([`${french[0]} la boîte n'apparaît pas`]);
  });

  it("writes a page's letters of its language's alphabet for those it never writes (Hungarian, Spanish, Czech)", () => {
    const hungarian = [" Ezältal garantâlható, hogy az elsô lépés és nem csak egy mint ez", " a fâjl meg a könyvtär"];
    expect(pageLanguage(hungarian.join(" "))).toBe("hu");
    expect(languageLetters(hungarian)).toEqual([
      " Ezáltal garantálható, hogy az első lépés és nem csak egy mint ez",
      " a fájl meg a könyvtár",
    ]);
    const spanish = [" El uso de los paquetes con su composiciòn por lo que se describen en una secciôn del libro"];
    expect(languageLetters(spanish)).toEqual([
      " El uso de los paquetes con su composición por lo que se describen en una sección del libro",
    ]);
    // "de" is Portuguese, Spanish, French and Italian for "of", so it is no sign of Hungarian ("but"): a Portuguese
    // page full of it is Portuguese, its "ä" the "ã" it writes (web.pt-p54 of the language probe was "no language")
    const portuguese = [" O manual de notação de música e os exemplos de partituras para uma orquestra de câmara com os"];
    expect(pageLanguage(portuguese[0]!)).toBe("pt");
    expect(languageLetters([...portuguese, " A notaçäo"])).toEqual([...portuguese, " A notação"]);
    const czech = [" Na se je že pro jako ale mêsto a písmo jsou"];
    expect(languageLetters(czech)).toEqual([" Na se je že pro jako ale město a písmo jsou"]);
    // Polish "się" and "są" read bare ("sie", "sa": no Polish words); not inside words or code-like tokens
    expect(languageLetters([" Nie jest że się na dla oraz: pakiet sie nie ładuje, opcje sa dwie, siew, sa_b, sa-b"])).toEqual([
      " Nie jest że się na dla oraz: pakiet się nie ładuje, opcje są dwie, siew, sa_b, sa-b",
    ]);
    // and every word the language writes only with ą or ę (polish-marked.ts), its capitals kept; a word that is one
    // bare too ("sama" beside "samą", "ja" beside "ją") and a path's or code's word stay
    expect(languageLetters([" Nie jest że się na dla: Moga byc wiecej odstepy MIEDZY, sama ja, /usr/moga, moga_x"])).toEqual([
      " Nie jest że się na dla: Mogą byc więcej odstępy MIĘDZY, sama ja, /usr/moga, moga_x",
    ]);
    // …and a word with ł the decoder wrote with a t or an l for it, where the language does not write that spelling
    // ("wedtug", "stowa", "cate"); "lub", "tak", "list" are words as they stand
    expect(languageLetters([" Nie jest że się na dla: wedtug, Stowa cate zostalo lub tak list"])).toEqual([
      " Nie jest że się na dla: według, Słowa całe zostało lub tak list",
    ]);
    expect(languageLetters([" Na se je že pro jako ale souborü dokumentù serverû"])).toEqual([
      " Na se je že pro jako ale souborů dokumentů serverů",
    ]);
    // a German page keeps the French marks it quotes, and a page of no language is left alone
    const german = [" Der Bärenreiter und die Straße ist nicht mit den Häusern, à la carte, Café, Rhône"];
    expect(languageLetters(german)).toEqual(german);
    // …its "ö" written "ó" is its own; and every word German writes only with ä, ö or ü (german-marked.ts) that came
    // out bare is so written, its capitals kept; "wurde" and "drucken", words bare too, and a path's word stay
    expect(languageLetters([" Der die das und ist nicht mit: Móchten Sie fur die ausgewahlten Zeichen wurde drucken /usr/fur"])).toEqual([
      " Der die das und ist nicht mit: Möchten Sie für die ausgewählten Zeichen wurde drucken /usr/fur",
    ]);
    expect(languageLetters([" Bärenreiter â ô"])).toEqual([" Bärenreiter â ô"]);
    // words of two languages' lists count for neither: a Portuguese page with many "que", "para", "por", "se"
    expect(pageLanguage(" que para por se que para por se que para os dos com uma nao em")).toBe("pt");
    expect(pageLanguage(" que para por se que para por se que para el los del")).toBeUndefined();
    // a page of its language with English terms in it, twice as many of its words as of English's
    expect(pageLanguage(" os em uma com os dos em os the is to of")).toBe("pt");
    expect(pageLanguage(" os em uma com os the is to of an")).toBeUndefined();
    // a Portuguese page's nasal endings are written with their tilde; the preposition "ao" stays
    expect(languageLetters([" A funcao de os dos com uma nao em combinaçâo padráo seräo tabulaçôes opcoes ao aos DEFINICAO"])).toEqual([
      " A função de os dos com uma não em combinação padrão serão tabulações opções ao aos DEFINIÇÃO",
    ]);
  });

  it("writes a Turkish page's dotless ı read as 1 or I after small letters, and İ inside a word of capitals", () => {
    const page = [
      " Bu bir dosya ve için ile olan dosyay1 ve katsayI gibi Yalç1n",
      " HiÇBIR GARANTi YOKTUR, HíÇBIR da; KiB, MiB, x1 ve md5 ile 12 dosya",
    ];
    expect(pageLanguage(page.join(" "))).toBe("tr");
    expect(languageLetters(page)).toEqual([
      " Bu bir dosya ve için ile olan dosyayı ve katsayı gibi Yalçın",
      " HİÇBIR GARANTİ YOKTUR, HİÇBIR da; KiB, MiB, x1 ve md5 ile 12 dosya",
    ]);
    // …and a last ı read as an l after a consonant, where the word's last vowel is a or ı; not a loan's or an
    // acronym's l ("perl", "html", "kontrol")
    expect(languageLetters([" Bu bir dosya ve için ile tuşlarl Bazl adl perl html kontrol"])).toEqual([
      " Bu bir dosya ve için ile tuşları Bazı adı perl html kontrol",
    ]);
    // a Turkish page naming its software in English is Turkish by the words only Turkish spells (ğ, ı)
    const manual =
      " Bazı klavye tuşlarl ve kısayol tuşlarını sisteminiz tarafından kullanılıyor olabilir; değiştirmeyi deneyin, Araçlar with the Tools";
    expect(pageLanguage(manual.replace(/ğ|ı/g, "i"))).toBeUndefined();
    expect(pageLanguage(manual)).toBe("tr");
    expect(languageLetters([manual])[0]).toContain(" tuşları ");
    // the same words on an English page stay
    const english = [" The file dosyay1 and HiÇBIR with the KiB of the data that is for this"];
    expect(languageLetters(english)).toEqual(english);
  });

  it("spells the TeX logo as set, TEX, outside code; names built on it and code keep TeX", () => {
    const page = [
      " se TeX naučil, TeXu a TeX-rendszeren",
      " MiKTeX, TeXLive, BibTeX, LaTeX",
      "\n\n```\nTeX = {code};",
      " TeX in code",
      "\n```\n\nTeX after code",
      " \\TeX and TeX",
    ];
    // (text after a block's closing fence is outside it)
    expect(texLogos(page)).toEqual([" se TEX naučil, TEXu a TEX-rendszeren", ...page.slice(1, 4), "\n```\n\nTEX after code", page[5]]);
    expect(texLogos([" \\foo `TeX`", " plain text"])).toEqual([" \\foo `TeX`", " plain text"]);
  });

  it("takes a page for TeX documentation where three of its lines hold a control word", () => {
    expect(texPage(["\\norm* The command", "use \\newnorm here", "plain prose"])).toBe(false);
    expect(texPage(["\\norm* The command", "use \\newnorm here", "and \\scalprod", "plain prose"])).toBe(true);
    expect(pageScripts([ev("\\norm* and \\newnorm and \\scalprod"), ev("\\a \\bb"), ev("\\cc"), ev("\\dd")]).tex).toBe(true);
    expect(pageScripts([ev("The quick brown fox jumps over the lazy dog")]).tex).toBe(false);
  });

  it("reads a typewriter O the readers took for 0 inside a word, and keeps the decoder's { over the recogniser's f", () => {
    expect(mergeLine(" 22 \\Declare0ption{twoside}\\0ptionNotUsed", ev("22 \\Declare0ption{twoside}\\0ptionNotUsed"), latin)).toBe(
      " 22 \\DeclareOption{twoside}\\OptionNotUsed",
    );
    // the decoder's { stands before a control sequence, or where its braces pair up; not where they would not
    expect(
      mergeLine(" 60 \\Declare0ption{nofoldcorr}{\\foldcorrfalse}", ev("60 \\Declare0ption{nofoldcorr}f\\foldcorrfalse}"), latin),
    ).toBe(" 60 \\DeclareOption{nofoldcorr}{\\foldcorrfalse}");
    expect(mergeLine(" \\math0p{expression}", ev("\\math0pfexpression}"), latin)).toBe(" \\mathOp{expression}");
    // "@" is a letter in a macro's name
    expect(mergeLine(" \\lstKV@0ptArg", ev("\\lstKV@0ptArg"), latin)).toBe(" \\lstKV@OptArg");
    expect(mergeLine(" \\Sx@r{rame{}", ev("\\Sx@rframe{}"), latin)).toBe(" \\Sx@rframe{}");
    // numbers, hex and a digit after one letter stay digits; an f the decoder agrees with stays f
    expect(mergeLine(" 0x0a v0.2 A0 10pt 2010s \\def\\x", ev("0x0a v0.2 A0 10pt 2010s \\def\\x"), latin)).toBe(
      " 0x0a v0.2 A0 10pt 2010s \\def\\x",
    );
  });

  it("gives TeX code back the opening braces both readers lost, where a closing one has no group", () => {
    // a "{" lost between "}" and a control sequence, or after a \\def's parameters; "\\fi}" closes an earlier line's group
    expect(mergeLine(" 22 \\DeclareOption{twoside}\\OptionNotUsed}", ev("22 \\DeclareOption{twoside}\\OptionNotUsed}"), latin)).toBe(
      " 22 \\DeclareOption{twoside}{\\OptionNotUsed}",
    );
    expect(mergeLine(" \\def\\LL@rotate@I#1#1}%", ev("\\def\\LL@rotate@I#1#1}%"), latin)).toBe(" \\def\\LL@rotate@I#1{#1}%");
    expect(mergeLine(" \\fi}", ev("\\fi}"), latin)).toBe(" \\fi}");
    expect(mergeLine(" \\expandafter{\\the\\toks@}}", ev("\\expandafter{\\the\\toks@}}"), latin)).toBe(" \\expandafter{\\the\\toks@}}");
    // a delimited parameter text ("#2!") gets no brace: where the body starts is unknown
    expect(mergeLine(" 5 \\def\\t#1#2!\\def\\s{#2}}\\t", ev("5 \\def\\t#1#2!\\def\\s{#2}}\\t"), latin)).toBe(
      " 5 \\def\\t#1#2!\\def\\s{#2}}\\t",
    );
    // a group a bracket opens and a brace closes was a brace; a long control word's final f before another, too
    expect(mergeLine(" \\ClassError[leaflet}{#1}%", ev("\\ClassError[leaflet}{#1}%"), latin)).toBe(" \\ClassError{leaflet}{#1}%");
    expect(mergeLine(" \\PassOptionsToPackagef\\CurrentOption}", ev("\\PassOptionsToPackagef\\CurrentOption}"), latin)).toBe(
      " \\PassOptionsToPackage{\\CurrentOption}",
    );
    expect(mergeLine(" \\newcommand[1]{x} see [2]", ev("\\newcommand[1]{x} see [2]"), latin)).toBe(" \\newcommand[1]{x} see [2]");
    // prose with a brace is no TeX line
    expect(mergeLine(" the } sign", ev("the } sign"), latin)).toBe(" the } sign");
  });

  it("keeps the recogniser's % that ends a line of TeX code, and no other mark past the decoder's last", () => {
    expect(mergeLine(" \\ClassWarningNoLine{leaflet}{#2}}", ev("\\ClassWarningNoLine{leaflet}{#2}}%"), latin)).toBe(
      " \\ClassWarningNoLine{leaflet}{#2}}%",
    );
    expect(mergeLine(" 100 percent", ev("100 percent%"), latin)).toBe(" 100 percent");
    expect(mergeLine(" \\relax done", ev("\\relax done."), latin)).toBe(" \\relax done");
  });

  it("takes the recogniser's weak brace over the decoder's mark, and its zero as an O, in TeX code", () => {
    const peaks = (text: string, weak: number) => Array.from(text, (_, i) => (i === weak ? 0.4 : 1));
    const r1 = "23 \\DeclareOption{twocolumn}";
    expect(mergeLine(" 23 \\DeclareOption=twocolumn}", ev(r1, peaks(r1, r1.indexOf("{"))), latin)).toBe(" 23 \\DeclareOption{twocolumn}");
    // not in prose: the decoder's mark stays over a weak reading
    const r2 = "a {b} c";
    expect(mergeLine(" a =b} c", ev(r2, peaks(r2, 2)), latin)).toBe(" a =b} c");
    const r3 = "82 \\Process0ptions\\relax";
    expect(mergeLine(" 82 \\Processoptions\\relax", ev(r3, peaks(r3, r3.indexOf("0"))), latin)).toBe(" 82 \\ProcessOptions\\relax");
  });

  it("closes the gap a typewriter cell leaves between a control word or a bracket and an opening bracket", () => {
    expect(mergeLine(" 17 \\newcommand\\LL@debug@info [1] {%", ev("17 \\newcommand\\LL@debug@info [1] {%"), latin)).toBe(
      " 17 \\newcommand\\LL@debug@info[1]{%",
    );
    // prose keeps its spaces: a word before a brace, a line without TeX
    expect(mergeLine(" (except {, } and \\par)", ev("(except {, } and \\par)"), latin)).toBe(" (except {, } and \\par)");
    expect(mergeLine(" see [1] {and} more", ev("see [1] {and} more"), latin)).toBe(" see [1] {and} more");
    // the tags (where each unit came from) stay one per unit of the text
    const tagged = mergeLineTagged(" \\cmd [1] {x}", ev("\\cmd [1] {x}"), latin);
    expect(tagged.text).toBe(" \\cmd[1]{x}");
    expect(tagged.tags).toHaveLength(tagged.text.length);
  });

  it("puts back a space the recogniser read surely where the decoder ran two words together", () => {
    expect(mergeLine(" (i)First item", ev("(i) First item"), latin)).toBe(" (i) First item");
    expect(mergeLine(" $x$in a note", ev("$x$ in a note"), latin)).toBe(" $x$ in a note");
    // not one it read unsurely
    expect(mergeLine(" (i)First item", ev("(i) First item", [1, 1, 1, 0.6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), latin)).toBe(" (i)First item");
  });

  it("restores a sure letter the decoder dropped inside a word", () => {
    expect(mergeLine(" self contaned package", ev("self contained package"), latin)).toBe(" self contained package");
  });

  it("copies numbers digit for digit where the recogniser is sure", () => {
    expect(mergeLine(" in 20024 we had", ev("in 2002 we had"), latin)).toBe(" in 2002 we had");
    expect(mergeLine("<tr><td>3.32T</td><td>3.32T</td>", ev("3.71T 3.32T"), latin)).toBe("<tr><td>3.71T</td><td>3.32T</td>");
    // a sure digit the decoder left off the end of a number is restored before the cell closes
    expect(mergeLine("</td><td>0.96</td>", ev("0.969"), latin)).toBe("</td><td>0.969</td>");
  });

  it("drops a digit the decoder doubled inside a sure number (numbers are copied digit for digit)", () => {
    expect(mergeLine(" zhruba 100 000 řádků", ev("zhruba 10 000 radku"), latin)).toBe(" zhruba 10 000 řádků");
    expect(mergeLine(" 1777 (73.140%)", ev("1777 (73.140%)"), latin)).toBe(" 1777 (73.140%)");
    expect(mergeLine(" 1777 (73.140%)", ev("177 (73.140%)"), latin)).toBe(" 177 (73.140%)");
    // a doubled letter the recogniser read once still stays the decoder's
    expect(mergeLine(" a book", ev("a bok"), latin)).toBe(" a book");
  });

  it("takes a line's gap between two digits of a number from its digits where they are set apart", () => {
    expect(numberGap("82200067", [1, 2, 3, 2, 2, 2, 3, 2])).toBe(3);
    // set tight, or too few pairs to tell, or no gaps: NUMBER_GAP
    expect(numberGap("156270", [1, 1, 1, 5, 0, 1])).toBe(2);
    expect(numberGap("a 12 b", [0, 3, 3, 3, 3, 3])).toBe(2);
    expect(numberGap("82200067", undefined)).toBe(2);
  });

  it("drops an accented letter the decoder put between two sure characters the recogniser read side by side", () => {
    // tb-pmc5897438: "ILö6 sense" for the recogniser's sure "IL6 sense", its L and 6 two blank steps apart where its
    // characters have one between them (the median): no room for a glyph
    expect(mergeLine("\n\nILö6 sense", gapped("IL6 sense", [1, 1, 2, 1, 1, 1, 2, 2, 2]), latin)).toBe("\n\nIL6 sense");
    expect(mergeLine("\n\nILö6 sense", gapped("IL6 sense", [0, 0, 1, 0, 1, 0, 0, 0, 0]), latin)).toBe("\n\nIL6 sense");
    // where blank steps there leave room for a glyph it could not read, the letter stays ("Gr" "ße": its ö)
    expect(mergeLine(" Größe", gapped("Grße", [0, 0, 3, 0]), latin)).toBe(" Größe");
    // an accent on a letter it read goes on the letter
    expect(mergeLine(" café", gapped("cafe", [0, 1, 0, 1]), latin)).toBe(" café");
    // a Cyrillic letter the decoder added to a word the recogniser read as look-alikes, side by side
    expect(mergeLine(" конивертера", gapped("KOHBepTepa", [0, 1, 1, 1, 1, 1, 1, 1, 1, 1]), cyrillic)).toBe(" конвертера");
    expect(mergeLine(" конивертера", gapped("KOHBepTepa", [0, 1, 1, 4, 1, 1, 1, 1, 1, 1]), cyrillic)).toBe(" конивертера");
  });

  it("sets a Cyrillic letter's case from its glyph's height", () => {
    // the recogniser's "M" for м and М alike: the glyph's height over the line's x-height tells them apart
    const heights = (h: number[]) => ({ ...ev("Mactep KOHBepTepa"), heights: h });
    const small = [1, 1, 1, 1, 1, 1, Number.NaN, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
    expect(mergeLine(" мастер конвертера", heights([1.27, ...small.slice(1)]), cyrillic)).toBe(" Мастер конвертера");
    expect(mergeLine(" Мастер КонВертера", heights(small), cyrillic)).toBe(" мастер конвертера");
    // between the two heights, unmeasured, or on a page without Cyrillic: as the decoder wrote it
    expect(mergeLine(" мастер конвертера", heights([1.12, ...small.slice(1)]), cyrillic)).toBe(" мастер конвертера");
    expect(mergeLine(" Мастер", { ...ev("Mactep"), heights: [Number.NaN, 1, 1, 1, 1, 1] }, cyrillic)).toBe(" Мастер");
    // a slot read as another letter than the look-alike of the decoder's holds another glyph (the alignment's pair)
    expect(mergeLine(" и ПРВИ", { ...ev("O ПPBИ", [0.8, 1, 1, 1, 1, 1]), heights: [1.3, Number.NaN, 1.3, 1.3, 1.3, 1.3] }, cyrillic)).toBe(
      " и ПРВИ",
    );
    // a word's unmeasured letter takes the case its measured letters agree on: all capitals, or small past the first
    const caps = { ...ev("nOCJEAHИ"), heights: [1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3] };
    expect(mergeLine(" последни", caps, cyrillic)).toBe(" ПОСЛЕДНИ");
    expect(mergeLine(" СЛово", { ...ev("CJOBO"), heights: [1.3, 1, 1, 1, 1] }, cyrillic)).toBe(" Слово");
    // ф and Ф rise alike: the descender tells them apart
    const file = (depth: number) => ({ ...ev("Φain"), heights: [1.25, 1, 1, 1], depths: [depth, 0, 0, 0] });
    expect([
      mergeLine(" файл", file(0), cyrillic),
      mergeLine(" Файл", file(0.3), cyrillic),
      mergeLine(" файл", file(0.12), cyrillic),
    ]).toEqual([" Файл", " файл", " файл"]);
    // (Latin letters keep theirs)
    expect(mergeLine(" LibreOffice", { ...ev("LibreOffice"), heights: Array(11).fill(1) }, cyrillic)).toBe(" LibreOffice");
  });

  it("writes the Cyrillic letter whose one look-alike the recogniser read sure", () => {
    // the decoder's н where the recogniser read a sure B: в
    expect(mergeLine(" Коннертер", ev("KOHBepTep"), cyrillic)).toBe(" Конвертер");
    expect(mergeLine(" Коннертер", ev("KOHBepTep", [1, 1, 1, 0.8, 1, 1, 1, 1, 1]), cyrillic)).toBe(" Коннертер");
    // not where the read letter is the look-alike of the decoder's, of either case, or stands for two letters (A: а, д)
    expect(mergeLine(" Изборни", ev("N36opnn"), cyrillic)).toBe(" Изборни");
    expect(mergeLine(" диапазон", ev("AMana3OH"), cyrillic)).toBe(" диапазон");
    expect(mergeLine(" покумент", ev("AokyMeHT"), cyrillic)).toBe(" покумент");
    // nor where it may be part of a letter the recogniser reads as two (ж as ">K<")
    expect(mergeLine(" можете", ev("Mo>K<eTe"), cyrillic)).toBe(" можете");
    // a letter the decoder dropped inside a word, read sure, goes back
    expect(mergeLine(" отображется", ev("OT06paxaeTCA"), cyrillic)).toBe(" отображается");
    expect(mergeLine(" КОНЕРТЕР", ev("KOHBEPTEP"), cyrillic)).toBe(" КОНВЕРТЕР");
    // …but not the second half of a letter read as two (ы "bl", ю "IO")
    expect(mergeLine(" выбор", ev("Bbl6op"), cyrillic)).toBe(" выбор");
    expect(mergeLine(" союз", ev("cIOO3"), cyrillic)).toBe(" союз");
  });

  it("puts no mark and no unseen space between two digits the recogniser read side by side in a sure number", () => {
    // a mark the decoder inserted inside a sure number ("8.12’2%"), a space after its decimal comma ("525, 17")
    expect(mergeLine(" 32 (8.129’2%)", ev("32 (8.122%)"), latin)).toBe(" 32 (8.122%)");
    expect(mergeLine(" 525, 17", ev("525,17"), latin)).toBe(" 525,17");
    // …also after a grouping mark the recogniser read unsure (a comma or a point: which, it cannot tell) set tight
    // between sure digits (scanned "$91,922.76", its comma at 0.64, 0-1 blank steps either side)
    const money = { ...gapped("$91,922.76", [1, 1, 0, 0, 0, 1, 1, 0, 0, 1]), peaks: [1, 1, 1, 0.64, 1, 1, 1, 1, 1, 1] };
    expect(mergeLine(" $91, 922.76", money, latin)).toBe(" $91,922.76");
    // …but not where the recogniser saw a word's gap after it (a list, "3, 154"), nor without gaps
    const list = { ...gapped("3,154", [1, 0, 4, 1, 1]), peaks: [1, 0.64, 1, 1, 1] };
    expect(mergeLine(" 3, 154", list, latin)).toBe(" 3, 154");
    expect(mergeLine(" 3, 154", ev("3,154", [1, 0.64, 1, 1, 1]), latin)).toBe(" 3, 154");
    // a hyphen read faintly between sure digits stays the number's: not a digit of the decoder's, not dropped, and
    // no digit of the decoder's comes beside it
    const faint = (text: string, at: number, p = 0.64) =>
      ev(
        text,
        Array.from(text, (_, i) => (i === at ? p : 1)),
      );
    expect(mergeLine(" (323) 22931143", faint("(323) 229-1143", 9), latin)).toBe(" (323) 229-1143");
    expect(mergeLine(" (889) 4287678", faint("(889) 428-7678", 9), latin)).toBe(" (889) 428-7678");
    expect(mergeLine(" (890) 8315-5045", faint("(890) 831-5045", 9, 0.47), latin)).toBe(" (890) 831-5045");
    // (the same for a comma read unsure, set tight: the decoder's digit beside it goes)
    const comma = { ...gapped("$59,009.89", [1, 1, 0, 0, 0, 1, 1, 0, 0, 1]), peaks: [1, 1, 1, 0.6, 1, 1, 1, 1, 1, 1] };
    expect(mergeLine(" $59, 2009.89", comma, latin)).toBe(" $59,009.89");
    // (and a percent sign read faintly after a sure digit: not the decoder's 9 in its place)
    expect(mergeLine(" 77.6589", faint("77.658%", 6, 0.6), latin)).toBe(" 77.658%");
    expect(mergeLine(" 77.6589", faint("77.658%", 6, 0.2), latin)).toBe(" 77.6589");
    // (…or a closing bracket: "(7080" for its "(708)", the bracket at 0.61)
    expect(mergeLine(" (7080 325-5992", faint("(708) 325-5992", 4, 0.61), latin)).toBe(" (708) 325-5992");
    // (a glyph read as a hyphen below the floor, or beside a letter, is the decoder's to read)
    expect(mergeLine(" (323) 22931143", faint("(323) 229-1143", 9, 0.2), latin)).toBe(" (323) 22931143");
    expect(mergeLine(" ab3c", faint("ab-c", 2), latin)).toBe(" ab3c");
    // a space between two digits goes where the recogniser saw no gap there (0-2 blank steps inside a number)...
    expect(mergeLine(" 69 (17936 390)", gapped("69 (17.513%)", [1, 1, 1, 0, 0, 1, 1, 0, 2, 1, 1, 2]), latin)).toBe(" 69 (17.513%)");
    // ...and stays where it saw one: table cells run together ("156270", 5 blank steps before the 2), or unknown
    expect(mergeLine(" 156 270", gapped("156270", [1, 1, 1, 5, 0, 1]), latin)).toBe(" 156 270");
    expect(mergeLine(" 156 270", ev("156270"), latin)).toBe(" 156 270");
    // a number whose digits are set apart (a document number stamped on a form: 2-3 blank steps between its digits,
    // read turned upright) has no space at 3 steps; in a number set tight, 3 steps stay a space
    expect(mergeLine(" 82 200067", gapped("82200067", [1, 2, 3, 2, 2, 2, 3, 2]), latin)).toBe(" 82200067");
    expect(mergeLine(" 1 000,40", gapped("1000,40", [0, 3, 0, 1, 0, 1, 0]), latin)).toBe(" 1 000,40");
    // a sure digit the decoder dropped before a number's point it kept is restored ("0.1723.223")
    expect(mergeLine("</td></tr></table>\n\n10723.222", ev("0.1723.223"), latin)).toBe("</td></tr></table>\n\n0.1723.223");
  });

  it("drops a space the recogniser saw no gap for beside a mark set tight, and keeps word spaces", () => {
    // one blank step before every character but those at `wide` (4)
    const tight = (text: string, wide: number[] = []) =>
      gapped(
        text,
        Array.from(text, (_, i) => (wide.includes(i) ? 4 : 1)),
      );
    // TeX code: commas and control words set tight
    expect(mergeLine(" \\tcbset{breakable, colback=red}", tight("\\tcbset{breakable,colback=red}"), latin)).toBe(
      " \\tcbset{breakable,colback=red}",
    );
    expect(mergeLine(" \\providecommand \\If", tight("\\providecommand\\If"), latin)).toBe(" \\providecommand\\If");
    // prose: inside brackets and quotes, before a dot
    expect(mergeLine(" article [ 3, 15], the “ acmart” class .", tight("article [3, 15], the “acmart” class."), latin)).toBe(
      " article [3, 15], the “acmart” class.",
    );
    // a space between letters, after a comma in prose, or over a gap stays; and none is dropped without gaps
    expect(mergeLine(" will use lab, use", tight("willuse lab,use"), latin)).toBe(" will use lab, use");
    expect(mergeLine(" \\let\\a \\b", tight("\\let\\a\\b", [6]), latin)).toBe(" \\let\\a \\b");
    expect(mergeLine(" [ 3]", ev("[3]"), latin)).toBe(" [ 3]");
  });

  it("drops a word the decoder wrote twice running where the recogniser read it once", () => {
    expect(mergeLine(" — use use full first names", ev("— use full first names"), latin)).toBe(" — use full first names");
    expect(mergeLine("\n\nВ В этом окне", ev("B 3TOM OKHe"), cyrillic)).toBe("\n\nВ этом окне");
    // a repeat the page has is read twice by the recogniser too
    expect(mergeLine(" vous vous servirez", ev("vous vous servirez"), latin)).toBe(" vous vous servirez");
  });

  it("drops a space the decoder split a word with beside a letter the recogniser cannot read, where it read none", () => {
    const tight = (text: string, wide: number[] = []) =>
      gapped(
        text,
        Array.from(text, (_, i) => (wide.includes(i) ? 4 : 1)),
      );
    // beside an accented letter ("poč átek" over the recogniser's "pocatek", side by side)
    expect(mergeLine(" změnit poč átek", tight("zmenit pocatek"), latin)).toBe(" změnit počátek");
    // beside a Cyrillic one ("экс порт" over the look-alikes "3KCnopT")
    expect(mergeLine(" выполняется экс порт", tight("BbIIOJIHAeTCa 3KCnopT"), cyrillic)).toBe(" выполняется экспорт");
    // between two letters it can read, or over a gap, the space stays ("will use"; a word space it read as 4 steps)
    expect(mergeLine(" will use", tight("willuse"), latin)).toBe(" will use");
    expect(mergeLine(" změnit poč átek", tight("zmenit pocatek", [10]), latin)).toBe(" změnit poč átek");
  });

  it("writes the en dash or space the recogniser could not read between two sure digits, by the gap it left", () => {
    // "100–999": the recogniser's alphabet has no en dash, 4 blank steps stand for it
    expect(
      mergeLine(" values 100999 CFU/L", gapped("values 100999 CFU/L", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1]), latin),
    ).toBe(" values 100–999 CFU/L");
    // two cells run together (5 steps) are two numbers; a number's own digits (0-2 steps, or an unsure side) are one
    expect(mergeLine(" 156270", gapped("156270", [1, 1, 1, 5, 0, 1]), latin)).toBe(" 156 270");
    expect(mergeLine(" 3557,03", gapped("3557,03", [1, 3, 1, 1, 1, 1, 1]), latin)).toBe(" 3557,03");
    expect(mergeLine(" 100999", { ...gapped("100999", [1, 1, 1, 4, 1, 1]), peaks: [1, 1, 1, 0.5, 1, 1] }, latin)).toBe(" 100999");
  });

  it("measures a number's gaps against its line's letters: a heading's wide face sets its digits apart too", () => {
    // a bold heading at 56 px read white on a band: 3 steps between its letters, 3-4 between the digits of "2026"
    // (read "20–26" against body type's bounds)
    const heading = [3, 3, 3, 2, 3, 4, 2, 2, 3, 3, 2, 2, 2, 3, 2, 1, 1, 3, 4, 3];
    expect(mergeLine(" Garden Festival 2026", gapped("Garden Festival 2026", heading), latin)).toBe(" Garden Festival 2026");
    // a range in that face still leaves more: its dash and the letters' spacing on both sides
    const range = [3, 3, 3, 3, 3, 3, 3, 1, 3, 3, 6, 3, 3, 3];
    expect(mergeLine(" Stages 1001999", gapped("Stages 1001999", range), latin)).toBe(" Stages 100–1999");
    // letters of body type (1 step) keep body type's bounds; a line of spaced digits alone keeps them too
    expect(letterSpacing(Array.from("values 100999"), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1])).toBe(0);
    expect(letterSpacing(Array.from("1464"), [1, 8, 7, 7])).toBe(0);
    expect(letterSpacing(Array.from("Garden Festival 2026"), heading)).toBe(2);
  });

  it("drops an apostrophe the decoder put between two sure marks or digits, and keeps one beside a letter", () => {
    expect(mergeLine(" 177 (73.140%’)", ev("177 (73.140%)"), latin)).toBe(" 177 (73.140%)");
    expect(mergeLine(" \\newcommand*' \\Sx", ev("\\newcommand*\\Sx"), latin)).toBe(" \\newcommand*\\Sx");
    // the recogniser misses thin apostrophes in words
    expect(mergeLine(" don’t and authors’ names", ev("dont and authors names"), latin)).toBe(" don’t and authors’ names");
  });

  it("reads a digit's look-alike letter, unsure, opening or inside a number of sure digits as that digit", () => {
    const pk = (text: string, at: number, p: number) => Array.from(text, (_, i) => (i === at ? p : 1));
    expect(mergeLine(" S66 (45.462% of total)", ev("S66 (45.462% of total)", pk("S66 (45.462% of total)", 0, 0.74)), latin)).toBe(
      " 566 (45.462% of total)",
    );
    expect(mergeLine(" stage 2o19, j'ai", ev("stage 2o19, j'ai", pk("stage 2o19, j'ai", 7, 0.79)), latin)).toBe(" stage 2019, j'ai");
    // not a sure letter ("S66" a code), one after the number ("2.2S": "2.2 Saving" run on), nor among unsure digits
    expect(mergeLine(" S66 (45.462%", ev("S66 (45.462%", pk("S66 (45.462%", 0, 0.95)), latin)).toBe(" S66 (45.462%");
    expect(mergeLine(" 2.2S", ev("2.2S", pk("2.2S", 3, 0.5)), latin)).toBe(" 2.2S");
    expect(mergeLine(" S66", ev("S66", [0.74, 1, 0.5]), latin)).toBe(" S66");
  });

  it("keeps the decoder's characters over weak evidence", () => {
    // the recogniser's 'c' is unsure: the decoder's 'e' stays
    const peaks = Array.from("self contained bundlcs", (c, i) => (i === 20 ? 0.4 : 1));
    expect(mergeLine(" self contained bundles", ev("self contained bundlcs", peaks), latin)).toBe(" self contained bundles");
  });

  it("keeps the Markdown structure: separators, heading and list markers, table tags, pipes, entities", () => {
    expect(mergeLine("\n\n# Thecorem", ev("Theorem"), latin)).toBe("\n\n# Theorem");
    expect(mergeLine("\n\n- first itcm", ev("·first item"), latin)).toBe("\n\n- first item");
    expect(mergeLine("\n\n1. first itcm", ev("1.first item"), latin)).toBe("\n\n1. first item");
    expect(mergeLine("</td><td>a &lt; bc</td></tr>", ev("a < b"), latin)).toBe("</td><td>a &lt; b</td></tr>");
    expect(mergeLine("\n| x | yz |", ev("x y"), latin)).toBe("\n| x | y |");
  });

  it("keeps the decoder's letters the recogniser cannot read over a letter of the same base", () => {
    expect(mergeLine(" Übersicht der Straße, café, łódź", ev("Ubersicht der StraBe, cafe, lodz"), latin)).toBe(
      " Übersicht der Straße, café, łódź",
    );
    // but not over a sure letter of another base
    expect(mergeLine(" Übersicht", ev("Obersicht"), latin)).toBe(" Obersicht");
  });

  it("never writes Cyrillic on a Latin page: the recogniser's letters are taken, letters without evidence dropped", () => {
    const out = mergeLine(" HE моговах", ev("SHE MOPED"), latin);
    expect(out).not.toMatch(/[\u0400-\u04ff]/);
    expect(out).toBe(" HE MOPED");
    // a runaway line's fallback (the recogniser's own reading) loses its CJK guesses too
    expect(mergeLine(" 中ormat", ev("中ormat"), latin)).toBe(" ormat");
  });

  it("keeps the decoder's Cyrillic on a Cyrillic page, over the recogniser's look-alikes", () => {
    expect(mergeLine("\n\n### 10.1.1 Назва", ev("10.1.1 Ha3Ba"), cyrillic)).toBe("\n\n### 10.1.1 Назва");
    expect(mergeLine(" вивести карту пам’яті", ev("BMBecTn KapTy nam'aTi", 0.95), cyrillic)).toBe(" вивести карту пам’яті");
  });

  it("on a mixed page keeps Cyrillic in words read as look-alikes, not in words with sure Latin-only letters", () => {
    const mixed = { cyrillic: false, mixed: true };
    expect(mergeLine(" The pwconv command преобразует пароли", ev("The pwconv command npeo6pa3yet naponu"), mixed)).toBe(
      " The pwconv command преобразует пароли",
    );
    expect(mergeLine(" The рwсопv command", ev("The pwconv command"), mixed)).toBe(" The pwconv command");
    // on a Latin page, a word whose reading shows no Cyrillic sign loses its Cyrillic
    expect(mergeLine(" пароли", ev("naponu"), latin)).toBe(" naponu");
  });

  it("writes Serbian's њ and љ for the decoder's н and л where the recogniser read the soft sign's b", () => {
    const serbian = { cyrillic: true, serbian: true };
    // in place of the letter, or right after the letter's look-alike
    expect(mergeLine(" излазно стане је", ev("W3na3HO CTabe je"), serbian)).toBe(" излазно стање је");
    expect(mergeLine(" ПОСЛЕДНИ ПОЛА", ev("OCNEAHbИ nObA"), serbian)).toBe(" ПОСЛЕДЊИ ПОЉА");
    // not on a page that is not Serbian (Russian's "нь"), nor where the recogniser read no b there
    expect(mergeLine(" излазно стане", ev("W3na3HO CTabe"), cyrillic)).toBe(" излазно стане");
    expect(mergeLine(" менају", ev("MeHajy"), serbian)).toBe(" менају");
    // and ћ where the recogniser read an h, even unsure (its glyph is no Latin letter); not on another page
    const read = ev("OBEhAHbE", [1, 1, 1, 0.6, 1, 0.9, 0.9, 1]);
    expect(mergeLine(" ПОВЕГАНЕ", read, serbian)).toBe(" ПОВЕЋАЊЕ");
    expect(mergeLine(" ПОВЕГАНЕ", read, cyrillic)).toBe(" ПОВЕГАНЕ");
  });

  it("keeps a Cyrillic word on a Latin page where the recogniser's reading of it looks Cyrillic too", () => {
    // a Russian help page's running header on an English page: "Справка" read "CnpaBka" (в as a capital B)
    expect(mergeLine(" Справка LibreOffice 7.4", ev("CnpaBka LibreOffice 7.4"), latin)).toBe(" Справка LibreOffice 7.4");
    // not an English word the decoder wrote in Cyrillic: its reading shows no Cyrillic sign, or a Latin-only letter
    expect(mergeLine(" саре", ev("cape"), latin)).toBe(" cape");
    expect(mergeLine(" HE моговах", ev("SHE MOPED"), latin)).not.toMatch(/[\u0400-\u04ff]/);
    expect(mergeLine(" Сlаss", ev("Class"), latin)).toBe(" Class");
    // a bold heading in Computer Modern: ы read "bl" (its l no Latin-only letter after a b), з and о read "30", ж "*"
    expect(mergeLine("\n\n### 9.1.1 Вызов службы", ev("9.1.1Bbl30B Cny*6bl"), latin)).toBe("\n\n### 9.1.1 Вызов службы");
    // (the same reading with a sure l standing alone is Latin)
    expect(mergeLine("\n\n### 9.1.1 Вызов службы", ev("9.1.1Bl30B Cny*6l"), latin)).not.toMatch(/[\u0400-\u04ff]/);
  });

  it("keeps the Cyrillic letters the recogniser reads as Latin-only ones in Computer Modern (л, д as J, У as V)", () => {
    const mixed = { cyrillic: false, mixed: true };
    // (the language probe's Russian help in CMU Serif: "документ" read "JOKyMeHT", "для" read "JI8")
    expect(mergeLine(" документ", ev("JOKyMeHT"), mixed)).toBe(" документ");
    expect(mergeLine(" кэш для фона", ev("K3M JI8 Φ0Ha"), mixed)).toBe(" кэш для фона");
    expect(mergeLine(" Указывает", ev("VKa3bIBaeT"), mixed)).toBe(" Указывает");
    // …a J read anywhere in a word that has an л or a д, aligned with its letter or not; п read "HI" ("Использовать")
    const peaks = [0.3, 0.8, 0.95, 0.4, 0.4, 0.95, 0.95, 0.4, 0.95, 0.7, 0.95, 0.95, 0.95, 0.6];
    expect(mergeLine(" Использовать", ev("HcHI0JIb30BaTb", peaks), mixed)).toBe(" Использовать");
    // a word without them, read with a sure J, is Latin
    expect(mergeLine(" она", ev("oJa"), mixed)).toBe(" oJa");
  });

  it("counts the sure Latin-only letters read beyond the decoder's word: a Latin word written in Cyrillic", () => {
    // (the decoder's "Місгово" for "Microsoft": the recogniser's s and f, one of them past the decoder's letters)
    expect(mergeLine(" Місгово Office", ev("Microsoft Office"), cyrillic)).toBe(" Microsoft Office");
  });

  it("keeps the decoder's и where the recogniser read a sure H, and Г where it read T (Computer Modern)", () => {
    // (not н, the one look-alike of H elsewhere: "вертикальные" read "BepTHKaJIbHbIe")
    expect(mergeLine(" вертикальные", ev("BepTHKaJIbHbIe"), cyrillic)).toBe(" вертикальные");
    expect(mergeLine(" Найти", ev("HaHTH"), cyrillic)).toBe(" Найти");
    // …nor the recogniser's T the decoder's Г ("Границы" read "TpaHUbI")
    expect(mergeLine(" Границы", ev("TpaHUbI"), cyrillic)).toBe(" Границы");
  });

  it("keeps a Serbian word whose ј, ћ and ш the recogniser read as a sure j, h and w, on a mixed or Cyrillic page", () => {
    const mixed = { cyrillic: false, mixed: true };
    // (sr-d0-p1 of the language probe: the decoder's "бројећи" and "дијагностикује" were written as "6pojehu" and
    // "AujarHocTUKyje", the recogniser's sure j and h counted as Latin-only letters)
    expect(mergeLine(" N-то поље, бројећи од 1", ev("N-To nobe, 6pojehu oA 1"), mixed)).toBe(" N-то поље, бројећи од 1");
    expect(mergeLine(" се дијагностикује, али", ev("ce AujarHocTUKyje, anN"), mixed)).toBe(" се дијагностикује, али");
    expect(mergeLine(" највећом тачношћу", ev("HajBehoM Ta4Howhy"), cyrillic)).toBe(" највећом тачношћу");
    // a Latin word the decoder wrote in Cyrillic still shows Latin-only letters that are not its letters' look-alikes
    expect(mergeLine(" The шецх command", ev("The seqh command"), mixed)).toBe(" The seqh command");
    // и and ц read as a sure W and L (a typewriter face: help-ru-d0 of the language probe, cy-audacity-p16)
    expect(mergeLine(" в поля или таблицы, страница", ev("B nOnA WnN Ta6nNμbl, CTpaHWLa"), mixed)).toBe(" в поля или таблицы, страница");
  });

  it("does not restore the Latin half of a Cyrillic letter the recogniser read as two (ы as 'bl')", () => {
    expect(mergeLine(" страницы", ev("CTpaHUμbl"), cyrillic)).toBe(" страницы");
  });

  it("keeps only structure where the recogniser read nothing", () => {
    expect(mergeLine("\n\n<table><tr><td>Для", ev(""), cyrillic)).toBe("\n\n<table><tr><td>");
  });
});

describe("pageScripts", () => {
  const english = [ev("The quick brown fox jumps over the lazy dog while the"), ev("recogniser reads every shape of the Latin alphabet")];
  const ukrainian = [
    ev("KoMaHAa pmap BWBoμUTb KapTy nam'aTi npouecy a6o npoueciB.", 0.95),
    ev("He BUBOAUTN AeAKi nOYaTKOBi i KiHLeBi pAAKU.", 0.95),
  ];
  it("a page read as sure letters of every shape is Latin; one read as Cyrillic look-alikes is Cyrillic", () => {
    expect(pageScripts(english).cyrillic).toBe(false);
    expect(pageScripts(ukrainian).cyrillic).toBe(true);
  });
  it("a Cyrillic page whose words show a sure j (ј) is Serbian; a Ukrainian or English page is not", () => {
    // (the language probe's Serbian man pages: "je" for "је", "6pojeBe" for "бројеве")
    const serbian = [
      ev("Излазно CTabe je 0 aKo cy cBW yna3HW 6pojeBИ je", 0.95),
      ev("6pojeBe je TaKo HUje onunje je3WKOM je", 0.95),
      ...ukrainian,
    ];
    expect(pageScripts(serbian)).toMatchObject({ cyrillic: true, serbian: true });
    expect(pageScripts(ukrainian).serbian).toBe(false);
    // (words with a j, but not Serbian's "је": a face whose Cyrillic reads with j's)
    expect(pageScripts([ev("6pojeBe TaKo HUje onunje 6pojeBИ je", 0.95), ...ukrainian]).serbian).toBe(false);
    // (a few English words with a j on a Cyrillic page; a j among Latin-only letters does not count: "just")
    const quoting = pageScripts([...ukrainian, ev("just adjust jumps object jet major", 0.95)]);
    expect(quoting).toMatchObject({ cyrillic: true, serbian: false });
  });
  it("a Latin page with Cyrillic words read as look-alikes is mixed; an English page is not", () => {
    const russian = Array.from({ length: 6 }, () =>
      ev("These four programs all operate on the shadow files pwconv npeo6pa3yet naponu KapTy nonb30BaTenen"),
    );
    const r = pageScripts(russian);
    expect(r.cyrillic).toBe(false);
    expect(r.mixed).toBe(true);
    expect(pageScripts([...english, ev("PubTabNet and FinTabNet are data sets")]).mixed).toBe(false);
  });
  it("a page with too few sure letters to tell keeps the decoder's letters", () => {
    expect(pageScripts([ev("Fig 1")]).cyrillic).toBe(true);
  });
});

describe("bannedScript (letters the engine bans in a line, decided before it is decoded)", () => {
  const view = (text: string, peak = 0.95) => ({ text, slotPeak: new Float32Array(Array.from(text).length).fill(peak) });
  const english = ["The quick brown fox jumps over the lazy dog while the", "recogniser reads every shape of the Latin alphabet"];
  const ukrainian = ["KoMaHAa pmap BWBoμUTb KapTy nam'aTi npouecy a6o npoueciB.", "He BUBOAUTN AeAKi nOYaTKOBi i KiHLeBi pAAKU."];

  it("a Latin page bans nothing (the merge guards it), nor does a mixed page or one too short to tell", () => {
    const views = [...english, "SHE MOPED"].map((t) => view(t));
    expect([0, 1, 2].map((i) => bannedScript(views, i))).toEqual([undefined, undefined, undefined]);
    const russian = Array.from({ length: 6 }, () => view("These four programs all operate on the shadow files pwconv npeo6pa3yet KapTy"));
    expect(bannedScript(russian, 0)).toBeUndefined();
    expect(bannedScript([view("Fig 1")], 0)).toBeUndefined();
    // a page-grid model's view has no evidence
    expect(bannedScript([{}], 0)).toBeUndefined();
  });

  it("a Cyrillic page bans Latin in a line of look-alike words, not in one with a sure Latin-only letter or no Cyrillic look", () => {
    const views = [...ukrainian, "ICHyE KinbKa nnariHiB, AKi BU, Ma6yTb, xOyeTe:", "Audacity noci6Hnk", "terminatorx"].map((t) => view(t));
    expect(bannedScript(views, 2)).toBe("latin");
    // a sure W is ш read as W ("BWBoμUTb"): the line is banned all the same
    expect(bannedScript(views, 0)).toBe("latin");
    // "Audacity" has d: a Latin word on the line
    expect(bannedScript(views, 3)).toBeUndefined();
    // a Latin word of shapes Cyrillic shares, with nothing that looks Cyrillic
    expect(bannedScript(views, 4)).toBeUndefined();
    // an unsure Latin-only letter is no Latin word
    const unsure = [...views, { text: "Ma6yTb d", slotPeak: Float32Array.from([0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.3]) }];
    expect(bannedScript(unsure, 5)).toBe("latin");
  });
});

describe("faithfulLine (the engine's entry point)", () => {
  it("decides the page's scripts from all its line views and merges the line asked for", () => {
    const views = [
      { text: "The quick brown fox jumps over the lazy dog while the", slotPeak: new Float32Array(53).fill(1) },
      { text: "SHE MOPED", slotPeak: new Float32Array(9).fill(1) },
    ];
    expect(faithfulLine(" HE моговах", views, 1)).toBe(" HE MOPED");
    // a view without evidence (a page-grid model) passes the decoder's text through
    expect(faithfulLine(" text", [{}], 0)).toBe(" text");
  });
});

describe("fallbackReading", () => {
  const view = (text: string) => ({ text, slotPeak: new Float32Array(Array.from(text).length).fill(1) });
  const cyrillicPage = [
    view("KoMaHAa pmap BWBoμUTb KapTy nam'aTi npouecy a6o npoueciB."),
    view("He BUBOAUTN AeAKi nOYaTKOBi i KiHLeBi pAAKU."),
  ];
  it("writes a Cyrillic page's look-alikes as the Cyrillic letters they stand for, word by word", () => {
    // (rx-d6 of an ad-hoc probe of Russian in CMU Sans: a line the decoder ran away in)
    const views = [...cyrillicPage, view("Office He B cOCToAHUn paCno3HaBaTb 3TN o6beKTbl, OK")];
    expect(fallbackReading(views, 2)).toBe("Office не в состоанип распознавать зти обьекты, OK");
  });
  it("leaves the reading as it is on a Latin page, and a word with a sure Latin-only letter", () => {
    const latin = [view("The quick brown fox jumps over the lazy dog while the"), view("He B cOCToAHUn")];
    expect(fallbackReading(latin, 1)).toBe("He B cOCToAHUn");
    expect(fallbackReading([...cyrillicPage, view("Hello world")], 2)).toBe("Hello world");
    expect(fallbackReading([{}], 0)).toBeUndefined();
  });
});

describe("joinHyphenated", () => {
  it("joins a word hyphenated across a line break, and nothing else", () => {
    // mc-acm-p2: the recogniser read "… parameters, in-", the decoder wrote "… in" and then " clude:"
    expect(joinHyphenated("\n\nFrequently-used parameters, in", "Frequently-used parameters, in-", " clude:")).toEqual([
      "\n\nFrequently-used parameters, in",
      "clude:",
    ]);
    // the decoder kept the hyphen: it goes too (nl-fontcheatsheet "gener-" + " ated.")
    expect(joinHyphenated(" will be gener-", "will be gener-", " ated.")).toEqual([" will be gener", "ated."]);
    // a suspended hyphen before a conjunction stays
    expect(joinHyphenated(" look ahead for sub-", "look ahead for sub-", " and superscripts")).toEqual([
      " look ahead for sub-",
      " and superscripts",
    ]);
    // no hyphen in the evidence, a capital after it, or a new block: unchanged
    expect(joinHyphenated(" the work and", "the work and", " includes")).toEqual([" the work and", " includes"]);
    expect(joinHyphenated(" see Section", "see Section-", " Two")).toEqual([" see Section", " Two"]);
    expect(joinHyphenated(" in", "in-", "\n\nclude")).toEqual([" in", "\n\nclude"]);
    expect(joinHyphenated(" in", undefined, " clude")).toEqual([" in", " clude"]);
  });

  it("parts two words the decoder ran together over a line break the recogniser read no hyphen at", () => {
    // the language probe's Russian page in LaTeX faces: "Параметры трёхмерного" + "изображения."
    expect(joinHyphenated(" и Параметры трёхмерного", "W apaMeTpbl TpeXMepHOrO ", "изображения.")).toEqual([
      " и Параметры трёхмерного",
      " изображения.",
    ]);
    expect(joinHyphenated(" the first line", "the first line", "test")).toEqual([" the first line", " test"]);
    // a hyphen read: joined as above; a word's own line break in a script without spaces, a line ending in a
    // digit, and a new block: unchanged
    expect(joinHyphenated(" the in", "the in-", "clude")).toEqual([" the in", "clude"]);
    expect(joinHyphenated("文档的", "文档的", "内容")).toEqual(["文档的", "内容"]);
    expect(joinHyphenated(" page 12", "page 12", "next")).toEqual([" page 12", "next"]);
    expect(joinHyphenated(" the first line", "the first line", "\n\nNext")).toEqual([" the first line", "\n\nNext"]);
  });
});

describe("helpers", () => {
  it("bases, scripts, units and alignment", () => {
    expect(["é", "ü", "ł", "ß", "Н", "’", "e"].map(baseOf)).toEqual(["e", "u", "l", "B", "H", "'", "e"]);
    expect(["a", "é", "я", "中", "1", " "].map(scriptOf)).toEqual(["latin", "latin", "cyrillic", "other", undefined, undefined]);
    expect(markdownUnits("\n\n## a<td>&amp;|").map((u) => [u.out, u.structure])).toEqual([
      ["\n", true],
      ["\n", true],
      ["## ", true],
      ["a", false],
      ["<td>", true],
      ["&amp;", false],
      ["|", true],
    ]);
    expect(
      align(Array.from("bugundles"), Array.from("bundles"))
        .filter((s) => s.r === undefined)
        .map((s) => s.d),
    ).toHaveLength(2);
    expect(FAITHFUL_DEFAULTS.confident).toBeGreaterThan(0.5);
    const look = (w: string) =>
      cyrillicLook(
        w,
        Array.from(w, () => 1),
        0.8,
      );
    expect(["Ha3Ba", "KapTy", "pa6oTy", "Φain"].map(look)).toEqual([true, true, true, true]);
    expect(["numero", "Markdown", "shadow", "1234"].map(look)).toEqual([false, false, false, false]);
    // a camel-case name looks Cyrillic too: a page needs five such words (and 3 %) to be mixed
    expect(look("PubTabNet")).toBe(true);
  });
});

describe("verticalLine", () => {
  it("takes the heading mark off a line set vertically, keeping its separator and text", () => {
    expect(verticalLine("\n\n## 82250337")).toBe("\n\n82250337");
    expect(verticalLine("\n\n###### TOBACCO 4417")).toBe("\n\nTOBACCO 4417");
    expect(verticalLine(" 82250337")).toBe(" 82250337");
    // a mark that opens no heading (no space after it) is the line's text
    expect(verticalLine("\n\n#4417")).toBe("\n\n#4417");
  });
});

describe("oneScript", () => {
  it("writes a word of Latin and Cyrillic letters in the script of most of them, by their twins of one shape", () => {
    // Serbian "ће" written with a Latin h: a tie, which the line's Cyrillic decides
    expect(oneScript("Зато hе ово")).toBe("Зато ће ово");
    expect(oneScript("see hе in the text")).toBe("see he in the text");
    // most of the word's letters decide otherwise
    expect(oneScript("знайти аudacity і PДАТОТЕКЕ")).toBe("знайти audacity і РДАТОТЕКЕ");
    // a word with a letter that has no twin in the script of most is tried in the other; else it stays
    expect(oneScript("фаmepo")).toBe("фаmepo");
    expect(oneScript("dоm")).toBe("dom");
    // a tie in a line of a tie stays; words of one script, and Latin text without Cyrillic, are left alone
    expect(oneScript("hе")).toBe("hе");
    expect(oneScript("Де я можу знайти Audacity")).toBe("Де я можу знайти Audacity");
    expect(oneScript("plain text")).toBe("plain text");
  });

  it("is applied to a merged line of a page that allows Cyrillic", () => {
    const line = mergeLine(" Зато hе ово", { text: "3aTo he obo", peaks: new Float32Array(11).fill(0.5) }, cyrillic);
    expect(line).toBe(" Зато ће ово");
  });
});

describe("a letter the decoder wrote in part", () => {
  it("is the recogniser's letter there, and never U+FFFD", () => {
    // (č, ű, ź are beyond the decoder's vocabulary: it spells them in bytes, and one went missing)
    expect(mergeLine(" na\uFFFDist soubor", ev("nacist soubor", 0.5), latin)).toBe(" nacist soubor");
    // one the recogniser saw nothing for is left out
    expect(mergeLine(" \uFFFD\uFFFDrlap", ev("rlap", 0.5), latin)).toBe(" rlap");
  });
});
