#!/usr/bin/python3
"""Builds the text corpus for synthetic documents from Debian man pages (en, de, fr, es, ru, uk) and package docs."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.synth.corpus --out DATA/synth/corpus [--max-per-lang 500]
# Output: one JSON Lines file per language in OUT (default $OCR_DATA/synth/corpus when OCR_DATA is set), each line
# {"source": "<man page path>", "split": "train|val|test", "title": ..., "sections": [[heading, [paragraphs...]], ...]}.
# Splits are by source document (a hash of its path), so no test text is ever seen in training.
import argparse, glob, hashlib, json, os, re, subprocess, sys, unicodedata

from ocr_tools.paths import add_data_option, require_data

LANG_DIRS = {
    "en": "/usr/share/man/man[158]",
    "de": "/usr/share/man/de/man*",
    "fr": "/usr/share/man/fr/man*",
    "es": "/usr/share/man/es/man*",
    "ru": "/usr/share/man/ru/man*",
    "uk": "/usr/share/man/uk/man*",
}

# Characters every training font (DejaVu, Liberation, Noto) draws and the tokenizer knows.
ALLOWED = set(chr(c) for c in range(0x20, 0x7F))
ALLOWED |= set("ÀÁÂÄÆÇÈÉÊËÌÍÎÏÑÒÓÔÖÙÚÛÜßàáâäæçèéêëìíîïñòóôöùúûüÿœŒ¡¿«»°§©®±×÷µ¶·")
ALLOWED |= set(chr(c) for c in range(0x410, 0x450)) | set("ЁёІіЇїЄєҐґЎў")
ALLOWED |= set("–—‘’“”„…•€")
# Letters added to the vocabulary after it was first trained (Serbian Cyrillic): their ids follow the first
# vocabulary's (tokenizer.py), so weights trained before keep every id they had.
ADDED = "ЂЈЉЊЋЏђјљњћџ"
FIRST_VOCABULARY = frozenset(ALLOWED)
ALLOWED |= set(ADDED)
REPLACE = {
    "\u00a0": " ",
    "\u2010": "-",
    "\u2011": "-",
    "\u2212": "-",
    "\u2022": "•",
    "\t": " ",
    "\u201a": ",",
    "\u2032": "'",
    "\u00ad": "",
}


def clean(text):
    text = unicodedata.normalize("NFC", text)
    text = "".join(REPLACE.get(ch, ch) for ch in text)
    if any(ch not in ALLOWED for ch in text):
        return None
    return re.sub(r" +", " ", text).strip()


def split_of(path):
    h = int(hashlib.sha1(path.encode()).hexdigest()[:8], 16) % 100
    return "test" if h < 8 else "val" if h < 14 else "train"


def man_sections(path):
    env = dict(os.environ, MANWIDTH="4000", LC_ALL="C.UTF-8")
    try:
        raw = subprocess.run(
            ["man", "-E", "UTF-8", "--nh", "--nj", "-l", path], capture_output=True, env=env, timeout=20
        ).stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, []
    raw = subprocess.run(["col", "-b"], input=raw.encode(), capture_output=True).stdout.decode("utf-8", "replace")
    lines = raw.split("\n")[1:-2]  # drop the man header and footer lines
    sections, heading, paras = [], None, []
    for line in lines:
        if not line.strip():
            continue
        if not line.startswith(" "):
            if heading is not None and paras:
                sections.append([heading, paras])
            heading, paras = clean(line.strip().title() if line.isupper() else line.strip()), []
            continue
        para = clean(line)
        if para and len(para) >= 3:
            paras.append(para)
    if heading is not None and paras:
        sections.append([heading, paras])
    title = os.path.basename(path).split(".")[0]
    return title, [s for s in sections if s[0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_data_option(ap, "--out", "synth", "corpus", help="folder for the <lang>.jsonl files")
    ap.add_argument("--max-per-lang", type=int, default=500)
    args = ap.parse_args()
    require_data(ap, args.out, "--out", "synth", "corpus", exists=False)
    os.makedirs(args.out, exist_ok=True)
    for lang, pattern in LANG_DIRS.items():
        files = sorted(f for d in glob.glob(pattern) for f in glob.glob(d + "/*.gz"))
        files = sorted(files, key=lambda p: hashlib.sha1(p.encode()).hexdigest())[: args.max_per_lang]
        count = 0
        tmp = os.path.join(args.out, lang + ".jsonl.tmp")
        with open(tmp, "w") as fh:
            for path in files:
                title, sections = man_sections(path)
                chars = sum(len(p) for _, ps in sections for p in ps)
                if chars < 300:
                    continue
                fh.write(
                    json.dumps(
                        {"source": path, "split": split_of(path), "lang": lang, "title": title, "sections": sections},
                        ensure_ascii=False,
                    )
                    + "\n"
                )
                count += 1
        os.replace(tmp, os.path.join(args.out, lang + ".jsonl"))
        print(f"{lang}: {count} documents from {len(files)} man pages", file=sys.stderr)


if __name__ == "__main__":
    main()
