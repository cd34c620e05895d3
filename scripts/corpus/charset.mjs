// The model's character set (python/ocr_tools/synth/corpus.py ALLOWED, which python/ocr_tools/train/tokenizer.py makes the
// vocabulary) and the same cleaning corpus.py applies to its text, for truth taken from PDFs.
const ALLOWED = new Set();
for (let c = 0x20; c < 0x7f; c++) ALLOWED.add(String.fromCharCode(c));
for (const ch of "ÀÁÂÄÆÇÈÉÊËÌÍÎÏÑÒÓÔÖÙÚÛÜßàáâäæçèéêëìíîïñòóôöùúûüÿœŒ¡¿«»°§©®±×÷µ¶·") ALLOWED.add(ch);
for (let c = 0x410; c < 0x450; c++) ALLOWED.add(String.fromCharCode(c));
for (const ch of "ЁёІіЇїЄєҐґЎў–—‘’“”„…•€") ALLOWED.add(ch);
// added to the vocabulary later (Serbian Cyrillic): tokenizer.py gives them the ids after the first vocabulary's
for (const ch of "ЂЈЉЊЋЏђјљњћџ") ALLOWED.add(ch);
export { ALLOWED };

// corpus.py's REPLACE, plus what PDFs' text layers bring: minus sign, ligatures, thin and other spaces.
const REPLACE = {
  "\u00a0": " ",
  "\u2010": "-",
  "\u2011": "-",
  "\u2212": "-",
  "\t": " ",
  "\u201a": ",",
  "\u2032": "'",
  "\u00ad": "",
  "\u2009": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2006": " ",
  "\u202f": " ",
  "\u200b": "",
  "\ufb00": "ff",
  "\ufb01": "fi",
  "\ufb02": "fl",
  "\ufb03": "ffi",
  "\ufb04": "ffl",
  "\u2013": "–",
  "\u2014": "—",
  "\u0131": "i",
  "\u2217": "*",
  "\u2219": "•",
  "\u2044": "/",
  "\u02bc": "’",
  "\u27e8": "<",
  "\u27e9": ">",
  "\u3008": "<",
  "\u3009": ">",
  "\u2329": "<",
  "\u232a": ">",
}; // ⟨meta⟩ of LaTeX manuals

/** NFC, the replacements, spaces collapsed and trimmed. */
export function clean(text) {
  let out = "";
  for (const ch of text.normalize("NFC")) out += REPLACE[ch] ?? ch;
  return out.replace(/\s+/g, " ").trim();
}

/**
 * How many characters of `text` the model cannot write; with `latin`, letters of any Latin script (Polish ł, Czech č,
 * …) count as writable too, for a vocabulary that grows to them.
 */
export function outsideVocabulary(text, latin = false) {
  let n = 0;
  for (const ch of text) if (!ALLOWED.has(ch) && !(latin && /\p{Script=Latin}/u.test(ch))) n++;
  return n;
}
