"""Synthetic display formulas for the formula reader (issue 17: formulas written as LaTeX).

Random formulas from a small grammar of the LaTeX that papers and manuals use (scripts, fractions, roots, big
operators with limits, Greek, accents, bold and calligraphic letters, functions, relations, delimiters), typeset
with Debian's pdflatex in three math fonts (Computer Modern, Times via mathptmx, Palatino via mathpazo), one formula
a page, rasterised with pdftoppm at a resolution that puts a 10 pt body line at about 24 px (the scale the pipeline
cuts a page's formula at), cut to the ink and kept at the reader's input height. Some samples are lines of prose
typeset the same way, labelled <text>: the reader's first step says whether a region is a formula at all.

Needs Debian's texlive-latex-base, texlive-latex-recommended and texlive-fonts-recommended (pdflatex, amsmath,
mathptmx, mathpazo) and poppler-utils.

Labels are token lists in the reader's vocabulary (vocab.py): braces always written, \\left/\\right dropped
(the unit tests' canonical form drops them too).

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.formula.generate OUT_DIR --count 20000 --seed 1 [--jobs 2]

writes OUT_DIR/images.u8 (every crop's rows, concatenated), OUT_DIR/index.json (per sample: offset, height, width,
tokens). Training data only: no claim is measured on synthetic formulas.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ocr_tools.formula.vocab import HEIGHT, TEXT, tokenize

LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
COMMON = "xyzabcdefghijklmnpqrstuvw"
GREEK = (
    r"\alpha \beta \gamma \delta \epsilon \varepsilon \zeta \eta \theta \vartheta \iota \kappa \lambda \mu \nu \xi \pi "
    r"\rho \sigma \tau \upsilon \phi \varphi \chi \psi \omega \Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Phi \Psi \Omega"
).split()
BIGOPS = [r"\sum", r"\prod", r"\int", r"\oint", r"\iint", r"\iiint", r"\bigcup", r"\bigcap", r"\coprod"]
FUNCS = r"\sin \cos \tan \log \ln \exp \det \dim \ker \max \min \sup \inf \lim \arg \deg \gcd \Pr \sinh \cosh".split()
RELS = r"= = = = < > \leq \geq \neq \approx \equiv \sim \simeq \in \subset \subseteq \to \mapsto \Rightarrow \propto".split()
BINOPS = ["+", "+", "-", "-", r"\cdot", r"\times", r"\pm", r"\cup", r"\cap", r"\circ", "/", r"\otimes", r"\oplus"]
ACCENTS = [r"\hat", r"\bar", r"\tilde", r"\vec", r"\dot", r"\ddot", r"\overline", r"\widehat", r"\check"]
FONTS = [r"\mathbf", r"\mathrm", r"\mathcal", r"\mathbb", r"\mathit", r"\mathsf"]
SYMBOLS = [r"\infty", r"\partial", r"\nabla", r"\ell", r"\hbar", r"\emptyset", r"\forall", r"\exists", r"\aleph"]
INFTY = r"\infty"
DOTS = [r"\ldots", r"\cdots", r"\dots"]


class Gen:
    def __init__(self, rng):
        self.r = rng

    def letter(self):
        r = self.r.random()
        if r < 0.7:
            return self.r.choice(COMMON[:12]) if self.r.random() < 0.6 else self.r.choice(LOWER)
        return self.r.choice(UPPER)

    def number(self):
        r = self.r.random()
        if r < 0.55:
            return str(self.r.randint(0, 9))
        if r < 0.85:
            return str(self.r.randint(10, 999))
        return f"{self.r.randint(0, 99)}.{self.r.randint(0, 999)}"

    def atom(self):
        r = self.r.random()
        if r < 0.42:
            return self.letter()
        if r < 0.56:
            return self.number()
        if r < 0.72:
            return self.r.choice(GREEK)
        if r < 0.8:
            f = self.r.choice(FONTS)
            body = self.r.choice(UPPER) if f in (r"\mathcal", r"\mathbb") else self.letter()
            if f == r"\mathrm" and self.r.random() < 0.4:
                body = self.r.choice(["d", "e", "i", "T", "max", "min", "tr", "rank", "diag"])
            return f"{f}{{{body}}}"
        if r < 0.88:
            return f"{self.r.choice(ACCENTS)}{{{self.letter()}}}"
        return self.r.choice(SYMBOLS) + ("" if self.r.random() < 0.6 else " " + self.letter())

    def small(self, depth):
        """A sub- or superscript."""
        r = self.r.random()
        if r < 0.35:
            return self.letter()
        if r < 0.55:
            return self.number()
        if r < 0.65:
            return self.letter() + self.letter()
        if r < 0.72:
            return self.r.choice(GREEK)
        if r < 0.82:
            return f"{self.letter()}{self.r.choice(['+', '-'])}{self.r.randint(1, 3)}"
        if r < 0.9:
            return f"{self.letter()}={self.r.randint(0, 2)}"
        if r < 0.95:
            return f"({self.r.choice(GREEK + [self.letter()])})"
        return self.expr(depth + 2, 2)

    def scripted(self, depth):
        a = self.atom()
        r = self.r.random()
        if r < 0.25:
            return f"{a}_{{{self.small(depth)}}}"
        if r < 0.45:
            return f"{a}^{{{self.small(depth)}}}"
        if r < 0.55:
            return f"{a}_{{{self.small(depth)}}}^{{{self.small(depth)}}}"
        if r < 0.6:
            return a + "'"
        return a

    def term(self, depth):
        r = self.r.random()
        if depth >= 2 or r < 0.5:
            return self.scripted(depth)
        if r < 0.58:
            return f"\\frac{{{self.expr(depth + 1, 3)}}}{{{self.expr(depth + 1, 3)}}}"
        if r < 0.64:
            inner = self.expr(depth + 1, 3)
            return f"\\sqrt[{self.r.randint(3, 4)}]{{{inner}}}" if self.r.random() < 0.15 else f"\\sqrt{{{inner}}}"
        if r < 0.74:
            o, c = self.r.choice(
                [
                    ("(", ")"),
                    ("(", ")"),
                    ("[", "]"),
                    ("|", "|"),
                    (r"\{", r"\}"),
                    (r"\|", r"\|"),
                    (r"\langle", r"\rangle"),
                ]
            )
            inner = self.expr(depth + 1, 4)
            big = "\\frac" in inner or "\\sum" in inner or "\\int" in inner
            sup = f"^{{{self.small(depth)}}}" if self.r.random() < 0.2 else ""
            if big and self.r.random() < 0.8:
                return f"\\left{o} {inner}\\right{c}{sup}"
            return f"{o} {inner}{c}{sup}"
        if r < 0.84:
            f = self.r.choice(FUNCS)
            if f == r"\lim":
                to = self.r.choice(["0", INFTY, self.letter()])
                return f"\\lim_{{{self.letter()}\\to {to}}} {self.term(depth + 1)}"
            arg = f"({self.expr(depth + 1, 3)})" if self.r.random() < 0.6 else " " + self.scripted(depth + 1)
            return f + arg
        if r < 0.94:
            op = self.r.choice(BIGOPS)
            i = self.r.choice("ijklmn")
            r2 = self.r.random()
            if op in (r"\int", r"\oint", r"\iint", r"\iiint"):
                lim = (
                    f"_{{{self.small(depth)}}}^{{{self.small(depth)}}}"
                    if r2 < 0.5
                    else ("" if r2 < 0.8 else f"_{{{self.atom()}}}")
                )
                d = f"\\,d{self.r.choice('xtsuyz')}" if self.r.random() < 0.7 else ""
                return f"{op}{lim} {self.expr(depth + 1, 3)}{d}"
            if r2 < 0.5:
                top = self.r.choice(["n", "N", INFTY, "m", "k"])
                lim = f"_{{{i}={self.r.randint(0, 1)}}}^{{{top}}}"
            elif r2 < 0.85:
                where = self.r.choice([r"\mathbf{n}", "I", "S", r"\mathbb{N}", "A"])
                lim = f"_{{{i}\\in {where}}}"
            else:
                lim = f"_{{{i}}}"
            return f"{op}{lim} {self.expr(depth + 1, 3)}"
        return f"{self.scripted(depth)}({self.expr(depth + 1, 3)})"

    def expr(self, depth, most):
        n = 1 + int(self.r.random() ** 1.6 * most)
        out = self.term(depth)
        for _ in range(n - 1):
            r = self.r.random()
            op = "" if r < 0.35 else self.r.choice(BINOPS)
            out += " " + op + " " + self.term(depth)
        return out

    def formula(self):
        r = self.r.random()
        if r < 0.2:
            f = self.expr(0, 3)
        else:
            f = self.expr(0, 2) + " " + self.r.choice(RELS) + " " + self.expr(0, 3)
            if self.r.random() < 0.12:
                f += " " + self.r.choice(RELS[:6]) + " " + self.expr(0, 3)
        if self.r.random() < 0.12:
            i = self.r.choice("ijkn")
            f += f",\\quad {i}=1,{self.r.choice(DOTS)},{self.r.choice('nmNk')}"
        elif self.r.random() < 0.08:
            f += self.r.choice([",", "."])
        return f


def prose(rng, words):
    """A short line of prose, as display regions' neighbours ('where', 'Theorem 3.3.') show up."""
    r = rng.random()
    if r < 0.25:
        return rng.choice(
            ["where", "Let", "Then", "and", "Set", "or", "Hence", "Proof.", "for all", "such that", "Write"]
        )
    if r < 0.4:
        return f"{rng.choice(['Theorem', 'Lemma', 'Corollary', 'Definition', 'Remark', 'Example'])} {rng.randint(1, 9)}.{rng.randint(1, 9)}."
    n = rng.randint(2, 12)
    return " ".join(rng.choice(words) for _ in range(n))


PREAMBLE = {
    "cm": "",
    "times": r"\usepackage{mathptmx}",
    "palatino": r"\usepackage{mathpazo}",
}


def typeset(items, font, dpis, workdir):
    """items: list of (source, is_math, style). Returns list of uint8 arrays (None where nothing was inked)."""
    tex = [
        r"\documentclass[10pt]{article}",
        r"\usepackage{amsmath,amssymb}",
        PREAMBLE[font],
        r"\pdfpagewidth=7.5in \pdfpageheight=2.2in \hoffset=-1in \voffset=-1in",
        r"\oddsidemargin=0.3in \topmargin=0pt \headheight=0pt \headsep=0pt \textwidth=6.9in \textheight=2in",
        r"\pagestyle{empty}\parindent=0pt",
        r"\begin{document}",
    ]
    for src, is_math, style in items:
        if not is_math:
            body = src.replace("\\", "").replace("&", "and").replace("%", "").replace("#", "").replace("$", "")
            body = body.replace("_", "").replace("^", "").replace("{", "").replace("}", "").replace("~", "")
            tex.append(r"\vspace*{0.7in}\centerline{" + (r"\textbf{" + body + "}" if style else body) + r"}\newpage")
        elif style == "inline":
            tex.append(r"\vspace*{0.8in}\centerline{$" + src + r"$}\newpage")
        else:
            tex.append(r"\vspace*{0.5in}\[" + src + r"\]\newpage")
    tex.append(r"\end{document}")
    with open(os.path.join(workdir, "f.tex"), "w") as fh:
        fh.write("\n".join(tex))
    res = subprocess.run(
        ["pdflatex", "-interaction=batchmode", "f.tex"],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=1200,
    )
    pdf = os.path.join(workdir, "f.pdf")
    if not os.path.exists(pdf):
        raise RuntimeError(f"pdflatex failed ({res.returncode}) in {workdir}")
    out = []
    for k in range(len(items)):
        out.append(None)
    # one pdftoppm call per page is slow; group consecutive pages of one resolution
    k = 0
    while k < len(items):
        dpi = dpis[k]
        j = k
        while j + 1 < len(items) and dpis[j + 1] == dpi and j + 1 - k < 400:
            j += 1
        prefix = os.path.join(workdir, f"p{k}")
        subprocess.run(
            ["pdftoppm", "-gray", "-r", str(dpi), "-f", str(k + 1), "-l", str(j + 1), pdf, prefix], check=True
        )
        for p in range(k, j + 1):
            name = None
            for width in (1, 2, 3, 4, 5, 6):
                cand = f"{prefix}-{p + 1:0{width}d}.pgm"
                if os.path.exists(cand):
                    name = cand
                    break
            if name is None:
                continue
            out[p] = read_pgm(name)
            os.remove(name)
        k = j + 1
    return out


def read_pgm(path):
    with open(path, "rb") as fh:
        data = fh.read()
    parts = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    w, h = int(parts.group(1)), int(parts.group(2))
    return np.frombuffer(data, dtype=np.uint8, offset=parts.end(), count=w * h).reshape(h, w)


def cut(page, rng):
    """The ink's box with a few pixels of margin, scaled down to the reader's height when taller."""
    ink = page < 160
    rows = np.where(ink.any(axis=1))[0]
    cols = np.where(ink.any(axis=0))[0]
    if len(rows) == 0:
        return None
    m = [rng.randint(1, 6) for _ in range(4)]
    y0, y1 = max(0, rows[0] - m[0]), min(page.shape[0], rows[-1] + 1 + m[1])
    x0, x1 = max(0, cols[0] - m[2]), min(page.shape[1], cols[-1] + 1 + m[3])
    crop = page[y0:y1, x0:x1]
    return fit(crop)


def fit(crop):
    """Scale a crop down (never up) to at most HEIGHT rows, then pad it to HEIGHT rows, centred, white."""
    h, w = crop.shape
    if h > HEIGHT:
        s = HEIGHT / h
        nw = max(1, int(round(w * s)))
        crop = resize(crop, HEIGHT, nw)
        h, w = crop.shape
    out = np.full((HEIGHT, w), 255, dtype=np.uint8)
    top = (HEIGHT - h) // 2
    out[top : top + h] = crop
    return out


def resize(img, nh, nw):
    """Area-average resize (box filter) with numpy, enough for downscaling clean renders."""
    h, w = img.shape
    ys = (np.arange(nh + 1) * h / nh).astype(int)
    xs = (np.arange(nw + 1) * w / nw).astype(int)
    f = img.astype(np.float32)
    c = np.zeros((h + 1, w + 1), np.float32)
    c[1:, 1:] = f.cumsum(0).cumsum(1)
    y0, y1 = ys[:-1], np.maximum(ys[1:], ys[:-1] + 1)
    x0, x1 = xs[:-1], np.maximum(xs[1:], xs[:-1] + 1)
    s = c[y1][:, x1] - c[y0][:, x1] - c[y1][:, x0] + c[y0][:, x0]
    area = (y1 - y0)[:, None] * (x1 - x0)[None, :]
    return np.clip(s / area + 0.5, 0, 255).astype(np.uint8)


def words_from_licenses():
    words = []
    base = "/usr/share/common-licenses"
    for name in sorted(os.listdir(base)):
        p = os.path.join(base, name)
        if os.path.isfile(p):
            with open(p, errors="ignore") as fh:
                words += re.findall(r"[A-Za-z][a-z]{1,12}[,.]?", fh.read())
    return words or ["the", "of", "and", "function", "matrix", "where"]


def chunk(args):
    seed, count, font, workdir = args
    rng = random.Random(seed)
    gen = Gen(rng)
    words = words_from_licenses()
    items = []
    for _ in range(count):
        if rng.random() < 0.15:
            items.append((prose(rng, words), False, rng.random() < 0.2))
        else:
            items.append((gen.formula(), True, "inline" if rng.random() < 0.25 else "display"))
    # resolution: a 10 pt body line (12 pt apart) at 24 px is 144 dpi; vary it by a third either way
    dpis = sorted(rng.choice([100, 112, 124, 136, 144, 152, 164, 176, 190]) for _ in items)
    rng.shuffle(items)
    pages = typeset(items, font, dpis, workdir)
    out = []
    for (src, is_math, _), page in zip(items, pages):
        if page is None:
            continue
        crop = cut(page, rng)
        if crop is None or crop.shape[1] < 8 or crop.shape[1] > 1600:
            continue
        toks = tokenize(src) if is_math else [TEXT]
        if toks is None or len(toks) > 150:
            continue
        out.append((crop, toks))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--per-doc", type=int, default=2000)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    fonts = ["cm", "cm", "times", "palatino"]
    tasks = []
    tmp = tempfile.mkdtemp(prefix="formula-")
    for i in range(0, a.count, a.per_doc):
        d = os.path.join(tmp, f"d{i}")
        os.makedirs(d)
        tasks.append((a.seed * 1_000_003 + i, min(a.per_doc, a.count - i), fonts[(i // a.per_doc) % len(fonts)], d))
    index = []
    offset = 0
    with open(os.path.join(a.out, "images.u8"), "wb") as blob, ThreadPoolExecutor(a.jobs) as pool:
        for result in pool.map(chunk, tasks):
            for crop, toks in result:
                blob.write(crop.tobytes())
                index.append(
                    {"offset": offset, "height": int(crop.shape[0]), "width": int(crop.shape[1]), "tokens": toks}
                )
                offset += crop.size
            print(f"{len(index)} samples", file=sys.stderr, flush=True)
    with open(os.path.join(a.out, "index.json"), "w") as fh:
        json.dump(index, fh)


if __name__ == "__main__":
    main()
