"""No machine paths in defaults: data outside the repository comes from an option, or from $OCR_DATA when set, and a
missing one stops the tool with a message naming the option and the variable."""

import os
import subprocess
import sys

import pytest

from ocr_tools.paths import REPO_ROOT, add_data_option, data_default, require_data

PYTHON_DIR = os.path.join(REPO_ROOT, "python")


def run(module, *args, data=None):
    env = {k: v for k, v in os.environ.items() if k != "OCR_DATA"}
    env["PYTHONPATH"] = PYTHON_DIR
    if data is not None:
        env["OCR_DATA"] = data
    return subprocess.run([sys.executable, "-m", module, *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "module,args,option",
    [
        ("ocr_tools.train.train", [], "--data"),
        ("ocr_tools.train.pack", ["--out", "x.npz"], "--data"),
        ("ocr_tools.train.evaluate", [], "--data"),
        ("ocr_tools.synth.corpus", [], "--out"),
    ],
)
def test_a_missing_data_option_names_the_option_and_ocr_data(module, args, option):
    r = run(module, *args)
    assert r.returncode == 2, r.stderr
    assert f"{option} is required" in r.stderr
    assert "OCR_DATA" in r.stderr


def test_ocr_data_supplies_the_default_and_a_missing_folder_is_named(tmp_path):
    r = run("ocr_tools.train.pack", "--out", str(tmp_path / "p.npz"), data=str(tmp_path))
    assert r.returncode == 2
    assert f"--data {tmp_path / 'synth'}: no such file or folder" in r.stderr


@pytest.mark.parametrize(
    "module",
    [
        "ocr_tools.train.train",
        "ocr_tools.train.pack",
        "ocr_tools.train.evaluate",
        "ocr_tools.train.export",
        "ocr_tools.train.quantize_ppocr",
        "ocr_tools.synth.corpus",
        "ocr_tools.corpus.alignment",
        "ocr_tools.deepencoder.export_onnx",
        "ocr_tools.deepencoder.make_random_checkpoint",
        "ocr_tools.reference.tiny_model",
        "ocr_tools.bench_decoder",
    ],
)
def test_no_help_text_shows_a_machine_path(module):
    r = run(module, "--help")
    assert r.returncode == 0, r.stderr
    assert "/work/" not in r.stdout
    assert "$OCR_DATA" in r.stdout or "OCR_DATA" not in open(module_file(module)).read()


def module_file(module):
    return os.path.join(PYTHON_DIR, *module.split(".")) + ".py"


def test_the_helpers(monkeypatch):
    import argparse

    monkeypatch.delenv("OCR_DATA", raising=False)
    assert data_default("synth") is None
    monkeypatch.setenv("OCR_DATA", "/d")
    assert data_default("synth", "test") == os.path.join("/d", "synth", "test")
    ap = argparse.ArgumentParser(prog="t")
    add_data_option(ap, "--data", "synth")
    assert ap.parse_args([]).data == os.path.join("/d", "synth")
    with pytest.raises(SystemExit):
        require_data(ap, None, "--data", "synth")
