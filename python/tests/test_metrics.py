# ocr_tools.train.metrics: the numbers evaluate.py and the validation report (CER, word F1, Markdown to text).
import random

import pytest

from ocr_tools.train.metrics import cer, edit_distance, markdown_to_text, word_f1


def levenshtein(a, b):
    """The textbook dynamic programme, one cell at a time: the oracle for the vectorised edit_distance."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = row
    return prev[-1]


@pytest.mark.parametrize(
    "a,b,d",
    [
        ("", "", 0),
        ("", "abc", 3),
        ("abc", "", 3),
        ("kitten", "sitting", 3),
        ("flaw", "lawn", 2),
        ("Straße", "Strasse", 2),
        ("привет", "привт", 1),
        ("ab", "ba", 2),
    ],
)
def test_edit_distance_known_pairs(a, b, d):
    assert edit_distance(a, b) == d
    assert edit_distance(b, a) == d


def test_edit_distance_matches_the_textbook_programme_on_random_strings():
    rng = random.Random(7)
    for _ in range(300):
        a = "".join(rng.choice("abcé ") for _ in range(rng.randrange(0, 14)))
        b = "".join(rng.choice("abcé ") for _ in range(rng.randrange(0, 14)))
        assert edit_distance(a, b) == levenshtein(a, b), (a, b)


def test_cer_divides_by_the_truth_length_and_survives_an_empty_truth():
    assert cer("kitten", "sitting") == pytest.approx(3 / 7)
    assert cer("", "") == 0
    assert cer("abc", "") == 3


def test_word_f1_counts_repeated_words_once_per_occurrence():
    assert word_f1("a b c", "a b c") == 1.0
    assert word_f1("x y", "a b") == 0.0
    # precision 2/2, recall 2/4
    assert word_f1("the the", "the the cat sat") == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert word_f1("the the the", "the") == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))


def test_markdown_to_text_drops_markers_and_table_tags():
    md = "# Title\n\n- item one\n2. item two\n\n<table><tr><td>a</td><td>b</td></tr></table>\n```\ncode\n```"
    assert markdown_to_text(md) == "Title item one item two a b code"
    # only line-start markers go: a hash or dash inside a line is text
    assert markdown_to_text("C# - a language") == "C# - a language"
