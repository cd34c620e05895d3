"""The trainer's alignment of detected lines with the generator's truth (ocr_tools.train.data.align_page): hyphenated
lines match the Markdown's whole word, and a page turned by rasterise.mjs turns its boxes with it."""

from ocr_tools.train.data import _turn, align_page

# Three short lines at the right of a 1000 px page; the middle one ends in a hyphenated word.
MD = "# Title\n\nfirst line of text and a long com" + "putation that ends here"
LINES = [
    {"box": [700, 100, 980, 120], "text": "Title"},
    {
        "box": [700, 400, 980, 420],
        "text": "first line of text and a long com-",
        "md": "first line of text and a long com",
    },
    {"box": [700, 700, 980, 720], "text": "putation that ends here"},
]


def aligned(units_turn, recorded):
    """Units are the lines' boxes turned `units_turn` degrees (as the detector finds them on the turned image); the
    raster records `recorded`."""
    units = [{"box": _turn(line["box"], units_turn, 500, 500)} for line in LINES]
    raster = {"scaleX": 1.0, "scaleY": 1.0, "width": 1000, "height": 1000, "rotate": recorded}
    return align_page({"markdown": MD, "lines": LINES}, raster, units)


def test_hyphenated_and_turned_lines_get_the_markdown_they_contribute():
    flat = aligned(0.0, 0.0)
    assert flat == ["# Title", "\n\nfirst line of text and a long com", "putation that ends here"]
    turned = aligned(8.0, 8.0)
    assert turned == flat
    assert "".join(turned) == MD


def test_units_turned_without_the_recorded_rotation_do_not_all_match():
    assert any(t is None for t in aligned(8.0, 0.0))
