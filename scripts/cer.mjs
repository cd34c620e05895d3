// Character error rate helpers for the benchmarks: normalisation and a banded edit distance.

/** Unicode NFKC (ligatures → letters), whitespace runs → one space: layout spacing is not content. */
export function normaliseForCer(text) {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim();
}

/**
 * The HTML tags Markdown output and truth carry (tables, line breaks, scripts). Only these: a stray "<" in read text
 * ("\\paragraph<ILowest", "a < b") once took everything up to the next ">" — on one dev page a third of our text
 * vanished before scoring — and the truth's own "<label>" or "<, >" went the same way.
 */
export const MARKUP_TAG =
  /<\/?(?:table|thead|tbody|tfoot|tr|td|th|caption|br|sup|sub|span|div|p|b|i|u|em|strong|code|pre|img)(?:\s[^<>]*)?\/?>/gi;

/** Markup → plain words, so Markdown truth, our Markdown and plain OCR text compare on content (then normalised). */
export function plainText(text) {
  return normaliseForCer(
    text
      .replace(/<!--[^]*?-->/g, " ")
      .replace(MARKUP_TAG, " ")
      .replace(/^#{1,6}\s+/gm, "")
      .replace(/^\s*(?:[-*•]|\d+[.)])\s+/gm, "")
      .replace(/```[a-z]*|\*\*|__|`/g, " ")
      .replace(/!\[[^\]]*\]\([^)]*\)/g, " "),
  );
}

/** Levenshtein distance when it is ≤ band, else Infinity; O((n+m)·band). */
function bandedDistance(a, b, band) {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > band) return Infinity;
  const width = 2 * band + 1;
  let prev = new Int32Array(width).fill(1 << 29);
  let cur = new Int32Array(width).fill(1 << 29);
  // Row i holds columns j in [i - band, i + band]; slot = j - i + band.
  for (let j = 0; j <= Math.min(m, band); j++) prev[j + band] = j;
  for (let i = 1; i <= n; i++) {
    cur.fill(1 << 29);
    const lo = Math.max(0, i - band);
    const hi = Math.min(m, i + band);
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const slot = j - i + band;
      let best;
      if (j === 0) best = i;
      else {
        // prev row, same j: slot + 1; prev row, j - 1: slot; cur row, j - 1: slot - 1.
        const sub = prev[slot] + (ai === b.charCodeAt(j - 1) ? 0 : 1);
        const del = slot + 1 < width ? prev[slot + 1] + 1 : 1 << 29;
        const ins = slot - 1 >= 0 ? cur[slot - 1] + 1 : 1 << 29;
        best = Math.min(sub, del, ins);
      }
      cur[slot] = best;
    }
    [prev, cur] = [cur, prev];
  }
  const d = prev[m - n + band];
  return d > band ? Infinity : d;
}

/** Exact Levenshtein distance, fast when the strings are similar (band doubles until it fits). */
export function editDistance(a, b) {
  let band = Math.max(64, Math.abs(a.length - b.length));
  for (;;) {
    const d = bandedDistance(a, b, band);
    if (d !== Infinity) return d;
    if (band >= Math.max(a.length, b.length)) return Math.max(a.length, b.length);
    band *= 2;
  }
}

/** The script of a letter outside Latin (Cyrillic, Greek, CJK, Hebrew/Arabic), else undefined. */
export function scriptOfChar(ch) {
  if (/[\u0400-\u04ff]/.test(ch)) return "cyrillic";
  if (/[\u0370-\u03ff]/.test(ch)) return "greek";
  if (/[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/.test(ch)) return "cjk";
  if (/[\u0590-\u06ff]/.test(ch)) return "rtl";
  return undefined;
}

/** Letters of `text` in scripts that `truth` has none of (a Cyrillic letter on an English page). */
export function foreignLetters(text, truth) {
  const present = new Set(Array.from(truth, scriptOfChar).filter(Boolean));
  return Array.from(text).filter((c) => {
    const s = scriptOfChar(c);
    return s && !present.has(s);
  }).length;
}

/** Numbers of at least 3 digits in the truth read exactly (a multiset match of digit runs): [found, total]. */
export function numbersRead(text, truth) {
  const runs = (t) => plainText(t).match(/\d{3,}/g) ?? [];
  const have = new Map();
  for (const n of runs(text)) have.set(n, (have.get(n) ?? 0) + 1);
  let found = 0;
  const want = runs(truth);
  for (const n of want)
    if ((have.get(n) ?? 0) > 0) {
      found++;
      have.set(n, have.get(n) - 1);
    }
  return [found, want.length];
}

/**
 * CER (edit distance over the truth's length) and order-free word F1, on markup-free normalised text; with the
 * letters of scripts the truth lacks (`foreign`) and the truth's numbers of 3+ digits read exactly (`numbers`).
 */
export function pageScores(hyp, ref) {
  const h = plainText(hyp);
  const r = plainText(ref);
  const errors = r.length ? editDistance(h, r) : h.length;
  const hw = h ? h.split(" ") : [];
  const rw = r ? r.split(" ") : [];
  const counts = new Map();
  for (const w of rw) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of hw) {
    const c = counts.get(w) ?? 0;
    if (c > 0) {
      common++;
      counts.set(w, c - 1);
    }
  }
  const p = hw.length ? common / hw.length : 0;
  const rec = rw.length ? common / rw.length : 0;
  const [numbersFound, numbers] = numbersRead(hyp, ref);
  return {
    cer: r.length ? errors / r.length : h.length ? 1 : 0,
    wordF1: p + rec ? (2 * p * rec) / (p + rec) : 0,
    errors,
    refChars: r.length,
    common,
    hypWords: hw.length,
    refWords: rw.length,
    foreign: foreignLetters(hyp, ref),
    numbersFound,
    numbers,
  };
}
