// Diacritics read from the glyphs (src/vision/diacritics.ts): letters split into base and diacritic and composed
// back, the window the model sees, and the page gate that reads a page only where its letters need it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ALPHABETS,
  DIACRITICS,
  DIACRITIC_LETTERS,
  type Diacritic,
  WINDOW_WIDTH,
  letterIndex,
  letterWindow,
  markable,
  pageAlphabet,
  readDiacritics,
  splitMark,
  vowelHarmony,
  withMark,
} from "../../src/vision/diacritics.js";
import type { LineUnit, Tensor } from "../../src/vision/lines.js";
import { repoRoot } from "../helpers/paths.js";

describe("splitMark and withMark", () => {
  it("splits every letter of the languages the model covers into a base letter and a class, and composes it back", () => {
    const letters = "áčďéěíňóřšťúůýžäĺľôŕąćęłńśźżőűçğışöüàâèêëîïùûÿñãõăţđāēģīķļņū ÁČŘŽŮŁŚŻŐŰŞĞİ";
    for (const ch of letters.replace(" ", "")) {
      const { base, mark } = splitMark(ch);
      expect(base, ch).toMatch(/^[A-Za-z]$/);
      expect(mark, ch).not.toBe("none");
      expect(withMark(base, mark), ch).toBe(ch);
    }
    expect(splitMark("ř")).toEqual({ base: "r", mark: "caron" });
    expect(splitMark("ł")).toEqual({ base: "l", mark: "stroke" });
    expect(splitMark("x")).toEqual({ base: "x", mark: "none" });
  });

  it("has no letter for a base and diacritic Unicode does not join", () => {
    expect(withMark("q", "caron")).toBeUndefined();
    expect(withMark("x", "stroke")).toBeUndefined();
    expect(withMark("e", "dotless")).toBeUndefined();
    expect(withMark("e", "none")).toBe("e");
  });

  it("reads Latin letters only", () => {
    expect(markable("č")).toBe(true);
    expect(markable("Z")).toBe(true);
    expect(markable("7")).toBe(false);
    expect(markable("ж")).toBe(false);
    expect(letterIndex("Č".normalize("NFD")[0]!)).toBe(2);
    expect(letterIndex("ß")).toBe(DIACRITIC_LETTERS - 1);
  });
});

describe("the trainer and the engine", () => {
  it("agree on the classes and their order (python/ocr_tools/train/diacritics.py writes the model's outputs)", () => {
    const py = readFileSync(path.join(repoRoot, "python/ocr_tools/train/diacritics.py"), "utf8");
    const list = py.match(/^CLASSES = \[([^\]]*)\]/m)![1]!;
    expect(Array.from(list.matchAll(/"([^"]+)"/g), (m) => m[1])).toEqual([...DIACRITICS]);
    expect(py).toMatch(/HEIGHT, WIDTH, LETTERS = 48, 32, 27/);
    expect([WINDOW_WIDTH, DIACRITIC_LETTERS]).toEqual([32, 27]);
  });
});

describe("pageAlphabet", () => {
  it("takes the language whose letters the page's readings hold most of", () => {
    expect(pageAlphabet(Array.from("čřěžšůýččř"))).toBe(ALPHABETS.cs);
    expect(pageAlphabet(Array.from("łśżąęóŁ"))).toBe(ALPHABETS.pl);
    expect(pageAlphabet(Array.from("őűöüé"))).toBe(ALPHABETS.hu);
    expect(pageAlphabet(Array.from("şğıçİ"))).toBe(ALPHABETS.tr);
    // every diacritic the model reads makes a letter of some language's alphabet, but the macron (Latvian and
    // Lithuanian are not among them: a rule above a line reads as macrons)
    expect(Object.values(ALPHABETS).some((a) => /[āēīū]/.test(a))).toBe(false);
    for (const name of DIACRITICS.filter((d) => d !== "none" && d !== "macron"))
      expect(
        Object.values(ALPHABETS).some((a) => Array.from("abcdefghijklmnopqrstuvwxyz").some((b) => a.includes(withMark(b, name) ?? "-"))),
        name,
      ).toBe(true);
  });
});

describe("letterWindow", () => {
  it("cuts the crop's first channel around a column, white beyond the crop", () => {
    const height = 4,
      width = 10;
    // bytes whose normalised values are (c / 10) in column c: (v / 255 - 0.5) / 0.5 = c / 10
    const pixels = new Uint8Array(height * width);
    for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) pixels[r * width + c] = Math.round((c / 20 + 0.5) * 255);
    const w = letterWindow({ width, height, channels: 1, pixels }, height, 2);
    expect(w.length).toBe(height * WINDOW_WIDTH);
    // column 2 sits at the window's centre; the window's first columns lie left of the crop
    expect(w[WINDOW_WIDTH / 2]).toBeCloseTo(0.2, 1);
    expect(w[0]).toBe(1);
    expect(w[WINDOW_WIDTH / 2 + 7]).toBeCloseTo(0.9, 1);
    expect(w[WINDOW_WIDTH / 2 + 8]).toBe(1);
  });
});

describe("readDiacritics", () => {
  const unit = (text: string, height = 30): LineUnit => ({
    box: { xMin: 0, xMax: 10, yMin: 0, yMax: height, score: 1 },
    geometry: new Float32Array(8),
    ids: new Int32Array(Array.from(text).length).fill(1),
    features: new Float32Array(0),
    stride: 1,
    text,
  });
  const crop = { width: 100, height: 48, channels: 1 as const, pixels: new Uint8Array(48 * 100).fill(128) };
  /** A model that reads each window by its letter input alone (the index of the letter it is): `reading(letter)`'s
   * class at its probability, every other class at 0. */
  const byLetter =
    (reading: (letter: number) => [Diacritic, number]) =>
    async (patches: Tensor, letters: Tensor): Promise<Tensor> => {
      const n = patches.dims[0]!;
      const out = new Float32Array(n * DIACRITICS.length);
      for (let i = 0; i < n; i++) {
        const [mark, p] = reading(Array.from(letters.data.subarray(i * DIACRITIC_LETTERS, (i + 1) * DIACRITIC_LETTERS)).indexOf(1));
        out[i * DIACRITICS.length + DIACRITICS.indexOf(mark)] = p;
      }
      return { data: out, dims: [n, DIACRITICS.length] };
    };
  /** `model`, and the number of windows of each of its calls, in order. */
  const counting = (model: ReturnType<typeof byLetter>): [number[], ReturnType<typeof byLetter>] => {
    const calls: number[] = [];
    return [
      calls,
      async (patches: Tensor, letters: Tensor) => {
        calls.push(patches.dims[0]!);
        return model(patches, letters);
      },
    ];
  };
  /** A model that reads a caron on every c and nothing elsewhere. */
  const carons = byLetter((letter) => (letter === 2 ? ["caron", 0.95] : ["none", 0.95]));

  /** readDiacritics over units whose crops are blank and whose slots all sit at column 0. */
  const read = (units: LineUnit[], model: typeof carons) =>
    readDiacritics(
      units,
      units.map(() => crop),
      units.map((u) => new Float32Array(u.ids.length)),
      model,
      48,
    );

  it("reads every letter of a page whose sample shows letters beyond the decoder's, and leaves other pages alone", async () => {
    const czech = [unit("cte cislo"), unit("pocitac")];
    await read(czech, carons);
    expect(Array.from(czech[0]!.diacritics!, (c) => DIACRITICS[c])).toEqual([
      "caron",
      "none",
      "none",
      "none",
      "caron",
      "none",
      "none",
      "none",
      "none",
    ]);
    expect(czech[1]!.diacriticPeaks![0]).toBeCloseTo(0.95);
    // a letter beyond the page's language is read as unsure (ť is Czech, ţ Romanian)
    const cedillas = async (patches: Tensor, letters: Tensor): Promise<Tensor> => {
      const r = await carons(patches, letters);
      for (let i = 0; i < patches.dims[0]!; i++)
        if (letters.data[i * DIACRITIC_LETTERS + 19] === 1) r.data[i * DIACRITICS.length + DIACRITICS.indexOf("cedilla")] = 0.99;
      return r;
    };
    const mixed = [unit("cte cislo"), unit("pocitac typ")];
    await read(mixed, cedillas);
    expect(DIACRITICS[mixed[0]!.diacritics![1]!]).toBe("cedilla");
    expect(mixed[0]!.diacriticPeaks![1]).toBe(0);
    expect(mixed[0]!.diacriticPeaks![0]).toBeCloseTo(0.95);
    // lines too low to show a diacritic are not read (a table cut at screen resolution)
    const tiny = [unit("cte cislo", 12), unit("pocitac", 12)];
    await read(tiny, carons);
    expect(tiny[0]!.diacritics).toBeUndefined();
    // two carons in the sample are under the gate: the page is left without
    const english = [unit("a cat"), unit("the car")];
    await read(english, carons);
    expect(english[0]!.diacritics).toBeUndefined();
  });

  it("reads a Czech, Polish, Hungarian or Turkish page by its function words, and an o the recogniser misread", async () => {
    // two carons in the sample are under the gate, but the page's words are Czech: it is read
    const czech = [unit("a cat je na se"), unit("pro jako ale")];
    await read(czech, carons);
    expect(DIACRITICS[czech[0]!.diacritics![2]!]).toBe("caron");
    // an o read as 6 or ? after a letter is read as an o (letter index 14); a 6 in a number is not read
    const seen: number[] = [];
    const os = byLetter((letter) => {
      seen.push(letter);
      return letter === 14 ? ["double-acute", 0.95] : ["none", 0.95];
    });
    const hungarian = [unit("az és nem egy meg"), unit("lehet?ség 1996 val6")];
    await read(hungarian, os);
    const line = hungarian[1]!;
    expect(DIACRITICS[line.diacritics![5]!]).toBe("double-acute");
    expect(DIACRITICS[line.diacritics![18]!]).toBe("double-acute");
    expect(line.diacritics![13]).toBe(0);
    expect(seen.filter((l) => l === 14).length).toBe(2);
    // a Portuguese page too (its ã and õ are the decoder's misreadings, "combinaçâo"): "que", "para", "por" and "se"
    // are Spanish words as well, and count for neither
    const portuguese = [unit("a funcao que para por se"), unit("nao os dos das com uma em")];
    await read(portuguese, carons);
    expect(DIACRITICS[portuguese[0]!.diacritics![5]!]).toBe("caron");
    // an English page with the same words is left without
    const english = [unit("the and of to is"), unit("lehet?ség 1996 val6")];
    await read(english, os);
    expect(english[1]!.diacritics).toBeUndefined();
  });

  it("leaves a French, Spanish, Italian or German page closed whatever marks its sample shows", async () => {
    // cedillas read under an Italian page's s and t (letters 18 and 19) would open it as Romanian or Turkish
    const cedillas = byLetter((letter) => (letter === 18 || letter === 19 ? ["cedilla", 0.97] : ["none", 0.95]));
    const italian = [unit("il testo che della per sono non"), unit("usate con del gli le una si da")];
    await read(italian, cedillas);
    // (only its words' last vowels are read, for an accent: no cedilla is kept)
    expect(italian.flatMap((u) => Array.from(u.diacriticPeaks!)).every((p) => p === 0)).toBe(true);
    const spanish = [unit("el texto que de la los las por con"), unit("usaste una para como")];
    await read(spanish, cedillas);
    expect(spanish[0]!.diacritics).toBeUndefined();
    // the same sample with no language's words opens the page
    const unnamed = [unit("testo usate stasi"), unit("sosta tasto")];
    await read(unnamed, cedillas);
    expect(DIACRITICS[unnamed[0]!.diacritics![2]!]).toBe("cedilla");
  });

  it("reads a line read again widened (vision/lines.ts CROWDED) by its second reading's letters, not its first slots", async () => {
    // the first reading dropped letters ("pocta" for "pocitac": 5 slots); the evidence is the second's 7 letters
    const widened = (): LineUnit => ({ ...unit("pocta"), text: "pocitac", peaks: new Float32Array(7).fill(0.9) });
    const readAll = (units: LineUnit[]) =>
      readDiacritics(
        units,
        units.map(() => crop),
        units.map((u) => new Float32Array(Array.from(u.text).length)),
        carons,
        48,
      );
    const czech = [unit("cte cislo"), unit("cas"), widened()];
    await readAll(czech);
    expect(czech[2]!.diacritics).toHaveLength(7);
    expect(Array.from(czech[2]!.diacritics!, (c) => DIACRITICS[c])).toEqual(["none", "none", "caron", "none", "none", "none", "caron"]);
    // its letters are no part of the sample that opens the page: two carons elsewhere leave it closed
    const closed = [unit("cte cislo"), widened()];
    await readAll(closed);
    expect(closed[1]!.diacritics).toBeUndefined();
  });

  it("on a page showing umlauts, reads its capitals A, O, U and keeps only a sure diaeresis", async () => {
    // a diaeresis on every a, o and u (letters 0, 14, 20), whatever their case
    const [calls, counted] = counting(byLetter((letter) => ([0, 14, 20].includes(letter) ? ["diaeresis", 0.95] : ["none", 0.95])));
    const german = [unit("Anderung fur Grosse"), unit("Uber hauslich")];
    await read(german, counted);
    // the sample (every letter), then the capitals A and U only
    expect(calls).toEqual([29, 2]);
    expect(DIACRITICS[german[0]!.diacritics![0]!]).toBe("diaeresis");
    expect(german[0]!.diacriticPeaks![0]).toBeCloseTo(0.95);
    expect(DIACRITICS[german[1]!.diacritics![0]!]).toBe("diaeresis");
    // lower-case letters are the decoder's to write: no reading is kept on them
    expect(german[0]!.diacriticPeaks![10]).toBe(0);
    // a page with fewer than three umlauts in its sample reads no capitals
    calls.length = 0;
    const english = [unit("Is the big"), unit("Under it")];
    await read(english, counted);
    expect(calls).toEqual([15]);
    expect(english[0]!.diacritics).toBeUndefined();
  });

  it("on an Italian page, reads each word's last vowel and keeps only a sure accent Italian writes there", async () => {
    // a grave on every a, e, o (letters 0, 4, 14), an acute on every u (20): Italian's final ù is grave
    const [calls, counted] = counting(
      byLetter((letter) => ([0, 4, 14].includes(letter) ? ["grave", 0.95] : letter === 20 ? ["acute", 0.95] : ["none", 0.95])),
    );
    const italian = [unit("il testo che si puo per la qualita"), unit("non e della piu una a")];
    await read(italian, counted);
    // the sample (every letter), then the words' last vowels: testo che si puo la qualita | e della piu una (not the
    // lone a: of Italian's words of one letter only e takes an accent)
    expect(calls).toEqual([43, 10]);
    const marks = (u: LineUnit) =>
      Array.from(u.text).flatMap((ch, j) => (u.diacriticPeaks![j]! > 0 ? [`${j}${ch}:${DIACRITICS[u.diacritics![j]!]}`] : []));
    // (this model marks every a, e and o: "testò", "chè" are its answer) "può", "qualità" as read; si's i read bare
    expect(marks(italian[0]!)).toEqual(["7o:grave", "11e:grave", "18o:grave", "25a:grave", "33a:grave"]);
    // the lone "e" (è) is read; the acute read on piu's u makes no letter Italian ends a word in: not kept
    expect(marks(italian[1]!)).toEqual(["4e:grave", "10a:grave", "18a:grave"]);
    // a vowel inside a word is not read
    expect(italian[0]!.diacriticPeaks![4]).toBe(0);
  });

  it("on a French page, reads its capitals and its lone a, and keeps only a sure mark French writes", async () => {
    // a grave on every a (letter 0), an acute on every e (4), a caron on every c (2)
    const marks = byLetter((letter) =>
      letter === 0 ? ["grave", 0.95] : letter === 4 ? ["acute", 0.95] : letter === 2 ? ["caron", 0.95] : ["none", 0.95],
    );
    const french = [unit("A la fin de la page les mots que"), unit("Etat et il a du CREANCE pour LuaTEX")];
    await read(french, marks);
    const read0 = (u: LineUnit, j: number) => (u.diacriticPeaks![j]! > 0 ? DIACRITICS[u.diacritics![j]!] : "unread");
    expect(read0(french[0]!, 0)).toBe("grave"); // À
    expect(read0(french[0]!, 3)).toBe("unread"); // "la": not a lone a
    expect(read0(french[1]!, 0)).toBe("acute"); // État
    expect(read0(french[1]!, 11)).toBe("grave"); // à
    expect(read0(french[1]!, 18)).toBe("acute"); // CRÉANCE
    expect(read0(french[1]!, 16)).toBe("unread"); // a caron on C is no French letter
    expect(read0(french[1]!, 5)).toBe("unread"); // a lower-case e: the decoder's to write
    expect(read0(french[1]!, 33)).toBe("unread"); // the lowered E of TeX's logo
  });

  it("on a page of more letters than its sample, puts each reading on its own letter", async () => {
    // 40 lines, 420 letters: the sample is the first 320, the other 100 are read after it
    const page = Array.from({ length: 40 }, (_, i) => unit(i % 2 ? "pocitac xyzw" : "cte cislo ab"));
    await read(page, carons);
    page.forEach((u) =>
      Array.from(u.text).forEach((ch, j) => {
        if (ch !== " ") expect(DIACRITICS[u.diacritics![j]!], `${u.text}[${j}]`).toBe(ch === "c" ? "caron" : "none");
      }),
    );
  });

  it("reads a Turkish page's i's by vowel harmony where their dot is unsure, and no other language's", async () => {
    // a cedilla on every s (letter 18) and an unsure dotless reading on every i (letter 8)
    const turkish = byLetter((letter) =>
      letter === 18 ? ["cedilla", 0.95] : letter === 8 ? ["dotless", 0.6] : letter === 2 ? ["caron", 0.95] : ["none", 0],
    );
    const page = [unit("bir sasi ve kasa"), unit("sis yazilim")];
    await read(page, turkish);
    const written = (u: LineUnit) => Array.from(u.diacritics!, (c, j) => (u.diacriticPeaks![j]! >= 0.7 ? DIACRITICS[c] : "-"));
    // "şaşı": the i after a is dotless; "şiş": the first i has no vowel before it and stays unsure
    expect(written(page[0]!).slice(4, 8)).toEqual(["cedilla", "-", "cedilla", "dotless"]);
    expect(written(page[1]!)).toEqual(["cedilla", "-", "cedilla", "-", "-", "-", "-", "dotless", "-", "dotless", "-"]);
    // a Czech page's i after a keeps its unsure reading
    const czech = [unit("cte cislo"), unit("cas ani pocitac")];
    await read(czech, turkish);
    expect(written(czech[1]!)[6]).toBe("-");
  });
  it("reads a Turkish page's unsure g with a cedilla as the ç it is, and a sure one as it was read", async () => {
    // cedillas on every s, c and g (letters 18, 2, 6): the g's glyph is a ç whose cedilla the recogniser took for a tail
    const cedillas = byLetter((letter) => ([18, 2, 6].includes(letter) ? ["cedilla", 0.95] : ["none", 0.95]));
    // (a slot's peak is the recogniser's feature before its last: vision/lines.ts slotPeaks)
    const withPeak = (text: string, at: number, p: number): LineUnit => ({
      ...unit(text),
      stride: 2,
      features: Float32Array.from({ length: 2 * text.length }, (_, i) => (i % 2 === 0 ? (i / 2 === at ? p : 0.99) : 0)),
    });
    const page = [withPeak("bir segenek ve kasa", 6, 0.6), withPeak("sis cok genc", 8, 0.99)];
    await read(page, cedillas);
    expect(page[0]!.text).toBe("bir secenek ve kasa");
    expect(page[0]!.peaks![6]).toBeCloseTo(0.95);
    expect([DIACRITICS[page[0]!.diacritics![6]!], page[0]!.diacriticPeaks![6]]).toEqual(["cedilla", expect.closeTo(0.95)]);
    expect(page[1]!.text).toBe("sis cok genc");
    expect(page[1]!.diacriticPeaks![8]).toBe(0);
    // a Romanian page, whose alphabet has no ç, keeps its g
    const romanian = [withPeak("si sa fie segenek", 13, 0.6), withPeak("sase case", 0, 0.99)];
    await read(
      romanian,
      byLetter((letter) => ([18, 6].includes(letter) ? ["cedilla", 0.95] : ["none", 0.95])),
    );
    expect(romanian[0]!.text).toBe("si sa fie segenek");
  });
});

describe("vowelHarmony", () => {
  /** A unit of `text` whose i's read dotless at 0.6 (unless the index is in `sure`: none at `dot`). */
  const line = (text: string, sure: number[] = [], dot = 0.99): LineUnit => {
    const n = Array.from(text).length;
    const marks = new Uint8Array(n),
      peaks = new Float32Array(n);
    Array.from(text).forEach((ch, j) => {
      if (ch !== "i" && ch !== "I") return;
      [marks[j], peaks[j]] = sure.includes(j) ? [DIACRITICS.indexOf("none"), dot] : [DIACRITICS.indexOf("dotless"), 0.6];
    });
    return { ...({} as LineUnit), text, diacritics: marks, diacriticPeaks: peaks };
  };
  /** The line as the merge writes it: a reading at 0.7 or more composes its letter. */
  const written = (u: LineUnit) =>
    Array.from(u.text, (ch, j) => (u.diacriticPeaks![j]! >= 0.7 ? (withMark(ch, DIACRITICS[u.diacritics![j]!]!) ?? ch) : ch)).join("");

  it("writes ı after a or ı and i after e or i; a sure dot stays", () => {
    const u = line("yazilimdir degistirmek sahip", [26]);
    vowelHarmony(u);
    expect(written(u)).toBe("yazılımdır degistirmek sahip");
    // a dot read at 0.92 after a back vowel is a dotless ı's whose missing dot the model missed ("satir")
    const satir = line("satir", [3], 0.92);
    vowelHarmony(satir);
    expect(written(satir)).toBe("satır");
    // an i after e read dotless (a speck missing) is written dotted
    const e = line("etmelidir");
    vowelHarmony(e);
    expect(written(e)).toBe("etmelidir");
    expect(e.diacriticPeaks![5]).toBe(1);
  });

  it("leaves the suffixes that keep i, -ki after a locative and -abil-, as read", () => {
    const u = line("dosyadaki kullanilabilir sonrakiler");
    vowelHarmony(u);
    // (-lir: the i of -bil- is read unsure, and what follows an unsure i is front: written i)
    expect(written(u)).toBe("dosyadaki kullanılabilir sonrakiler");
    // a stem's k before the vowel of a suffix is ğ: "yakını" is no -ki
    const near = line("yakini");
    vowelHarmony(near);
    expect(written(near)).toBe("yakını");
  });

  it("in a word of capitals, writes İ after E or İ and I after A or I; a small i there is left", () => {
    const u = line("GERIBILDIRIM KAPI GARANTi");
    vowelHarmony(u);
    expect(written(u)).toBe("GERİBİLDİRİM KAPI GARANTi");
  });
});
