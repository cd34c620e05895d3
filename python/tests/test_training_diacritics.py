"""The diacritics trainer reads the records scripts/train/diacritics-data.mjs writes (label, letter, int8 window),
learns a diacritic drawn above a letter from windows it never saw, and exports the ONNX model the engine opens
(src/vision/line-encoder.ts: inputs `patch` and `letter`, output `probability`)."""

import json
import sys

import numpy as np
import onnx
import torch

from ocr_tools.train import diacritics as D


def records(path, n, seed):
    """Windows of a dark letter body with a short bar above it (class "macron") or nothing above it ("none")."""
    rng = np.random.default_rng(seed)
    rec = np.zeros((n, 2 + D.HEIGHT * D.WIDTH), dtype=np.int8)
    labels = rng.integers(0, 2, n)
    for i in range(n):
        w = np.full((D.HEIGHT, D.WIDTH), 127, dtype=np.int16)
        x = 12 + rng.integers(-2, 3)
        w[20:36, x : x + 8] = -127
        if labels[i]:
            w[12:14, x : x + 8] = -127
        w = np.clip(w + rng.integers(-30, 31, w.shape), -127, 127)
        rec[i, 0] = D.CLASSES.index("macron") if labels[i] else 0
        rec[i, 1] = rng.integers(0, 26)
        rec[i, 2:] = w.reshape(-1).astype(np.int8)
    rec.tofile(path)
    return labels


def test_records_load_as_written(tmp_path):
    labels = records(tmp_path / "r.bin", 5, 1)
    patches, letters, y = D.load(str(tmp_path / "r.bin"))
    assert patches.shape == (5, 1, D.HEIGHT, D.WIDTH)
    assert letters.shape == (5,) and int(letters.max()) < D.LETTERS
    assert [int(v) for v in y] == [D.CLASSES.index("macron") if v else 0 for v in labels]
    assert float(patches.max()) <= 1.0 and float(patches.min()) >= -1.0


def train(tmp_path, out, *extra, epochs=3):
    """Runs the trainer's command line on tmp_path's train.bin and val.bin; returns the report it writes beside OUT."""
    argv = sys.argv
    sys.argv = [
        "diacritics",
        "--train",
        str(tmp_path / "train.bin"),
        "--val",
        str(tmp_path / "val.bin"),
        "--out",
        str(out),
    ]
    sys.argv += ["--epochs", str(epochs), "--threads", "1", "--batch", "32", *extra]
    try:
        D.main()
    finally:
        sys.argv = argv
    return json.load(open(str(out) + ".json"))


def test_learns_a_diacritic_and_exports_the_engines_model(tmp_path):
    records(tmp_path / "train.bin", 600, 2)
    labels = records(tmp_path / "val.bin", 200, 3)
    out = tmp_path / "diacritics.onnx"
    report = train(tmp_path, out, epochs=6)
    assert report["val"]["accuracy"] > 0.95, report
    model = onnx.load(str(out))
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["patch", "letter"]
    assert [o.name for o in model.graph.output] == ["probability"]
    assert len(labels) == 200


def test_a_baseline_model_is_read_back_and_scored_as_it_scored(tmp_path):
    # --baseline reads an exported model's weights back (either first convolution) and scores it on the same records
    records(tmp_path / "train.bin", 300, 4)
    records(tmp_path / "val.bin", 120, 5)
    for extra in ([], ["--stride1"]):
        first = train(tmp_path, tmp_path / "first.onnx", *extra)
        assert first["stride1"] == bool(extra)
        second = train(tmp_path, tmp_path / "second.onnx", "--baseline", str(tmp_path / "first.onnx"))
        assert second["baseline"]["val"] == first["val"], (second["baseline"], first["val"])
    assert sum(1 for n in onnx.load(str(tmp_path / "first.onnx")).graph.node if n.op_type == "MaxPool") == 3
