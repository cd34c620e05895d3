"""The formula reader's side in Python (ocr_tools.formula): its vocabulary round-trips the LaTeX the unit tests
compare, the model reads a batch of any width, and the export writes the two ONNX halves and formula.json that
src/vision/formula.ts opens (inputs `pixels`; `memory` and `tokens`; output `logprobs`)."""

import json

import onnx
import torch

from ocr_tools.formula import vocab as V
from ocr_tools.formula.export import main as export_main
from ocr_tools.formula.train import Reader, greedy


def test_tokenize_drops_spacing_and_sizing_and_round_trips():
    toks = V.tokenize(r"\left( b_{ii} - \lambda_{i} \right) \, \frac{\delta}{\delta t}")
    assert toks == [
        "(",
        "b",
        "_",
        "{",
        "i",
        "i",
        "}",
        "-",
        r"\lambda",
        "_",
        "{",
        "i",
        "}",
        ")",
        r"\frac",
        "{",
        r"\delta",
        "}",
        "{",
        r"\delta",
        "t",
        "}",
    ]
    assert V.detokenize(toks) == r"(b_{ii}-\lambda_{i})\frac{\delta}{\delta t}"


def test_tokenize_refuses_what_the_vocabulary_lacks():
    assert V.tokenize(r"\begin{pmatrix} a \end{pmatrix}") is None
    assert V.tokenize("x ≤ y") is None


def test_reader_reads_any_width_and_stops_at_the_limit():
    torch.manual_seed(0)
    m = Reader().eval()
    for width in (8, 200, 512):
        memory = m.encode(torch.zeros(2, 1, V.HEIGHT, width))
        assert memory.shape == (2, 6 * width // 8, m.d)
    out = greedy(m, torch.rand(1, 1, V.HEIGHT, 64), limit=3)
    assert len(out) == 1 and len(out[0]) <= 3


def test_export_writes_the_bundle_files(tmp_path, monkeypatch):
    torch.manual_seed(0)
    ckpt = tmp_path / "reader.pt"
    torch.save(Reader().state_dict(), ckpt)
    monkeypatch.setattr("sys.argv", ["export", str(ckpt), str(tmp_path)])
    export_main()
    cfg = json.loads((tmp_path / "formula.json").read_text())
    assert cfg["vocab"] == V.VOCAB and cfg["height"] == V.HEIGHT
    assert cfg["vocab"][cfg["text"]] == V.TEXT and cfg["vocab"][cfg["eos"]] == V.EOS
    enc = onnx.load(str(tmp_path / cfg["encoder"]))
    dec = onnx.load(str(tmp_path / cfg["decoder"]))
    onnx.checker.check_model(enc)
    onnx.checker.check_model(dec)
    assert [i.name for i in enc.graph.input] == ["pixels"] and [o.name for o in enc.graph.output] == ["memory"]
    assert [i.name for i in dec.graph.input] == ["memory", "tokens"] and [o.name for o in dec.graph.output] == [
        "logprobs"
    ]
    # the width and the number of tokens so far stay free
    width = enc.graph.input[0].type.tensor_type.shape.dim[3]
    assert width.dim_param and not width.dim_value
