"""Text metrics of the evaluation and validation: CER (edit distance / truth length), word F1, Markdown to plain text."""
import re

import numpy as np


def edit_distance(a, b):
    """Levenshtein distance, one numpy row per character of a."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    prev = idx.copy()
    for i, ch in enumerate(a, 1):
        cost = (bb != ord(ch)).astype(np.int64)
        tmp = np.empty_like(prev)
        tmp[0] = i
        tmp[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        prev = np.minimum.accumulate(tmp - idx) + idx
    return int(prev[-1])


def cer(pred, truth):
    return edit_distance(pred, truth) / max(1, len(truth))


def word_f1(pred, truth):
    from collections import Counter

    p, t = Counter(pred.split()), Counter(truth.split())
    common = sum((p & t).values())
    if common == 0:
        return 0.0
    prec, rec = common / sum(p.values()), common / sum(t.values())
    return 2 * prec * rec / (prec + rec)


def markdown_to_text(md):
    """Plain text of our Markdown: markers and table tags removed, whitespace collapsed."""
    md = re.sub(r"</?(table|tr)>", "\n", md)
    md = re.sub(r"</?td>", " ", md)
    md = re.sub(r"^```$", "", md, flags=re.M)
    md = re.sub(r"^(#{1,6} |- |\d+\. )", "", md, flags=re.M)
    return normalise_ws(md)


def normalise_ws(text):
    return re.sub(r"\s+", " ", text).strip()
