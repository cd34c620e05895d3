"""The training model imports the frozen reference decoder and never changes it: its decoder has the reference's
weights and names and computes the reference's logits, so what training exports is what the reference (the native
engine's oracle) reads; and nothing in ocr_tools.reference depends on training code."""

import ast
import glob
import json
import os

import numpy as np
import torch

from ocr_tools.paths import repo_path
from ocr_tools.reference.deepseek_decoder import Decoder, DecoderConfig, load_decoder, save_safetensors
from ocr_tools.train.export import bundle_word_lists, model_json
from ocr_tools.train.model import FEATURES, LineOcrModel
from ocr_tools.train.tokenizer import CharTokenizer
from ocr_tools.train.train import model_from_ckpt

REFERENCE = os.path.join(os.path.dirname(__file__), "..", "ocr_tools", "reference")


def imported_modules(path):
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            yield node.module


def test_the_reference_imports_nothing_from_training_or_the_other_tools():
    files = glob.glob(os.path.join(REFERENCE, "*.py"))
    assert len(files) >= 3
    for f in files:
        ours = [m for m in imported_modules(f) if m.split(".")[0] == "ocr_tools"]
        bad = [m for m in ours if not (m.startswith("ocr_tools.reference") or m == "ocr_tools.paths")]
        assert bad == [], f"{os.path.basename(f)} imports {bad}"


def sequence(model, seed=0):
    """The trainer's sequence for three random line units: (embeds [T,H], positions [T], mask [T,T])."""
    rng = np.random.default_rng(seed)
    units = [
        {
            "ids": rng.integers(1, 6625, n),
            "feats": rng.standard_normal((n, FEATURES)).astype(np.float32),
            "geometry": rng.random(8).astype(np.float32),
        }
        for n in (4, 20, 9)
    ]
    texts = [model.tok.encode(t) for t in ("Lorem", " ipsum dolor", "\n\n## sit")]
    e, _, mask, pos = model.build_sequence(model.encode_units(units), texts, offset=11)
    return e, pos, mask


def test_the_training_decoder_has_the_references_parameters_and_names():
    cfg = DecoderConfig(vocab_size=CharTokenizer().vocab_size, hidden_size=32, num_attention_heads=2, head_dim=16)
    train_sd = LineOcrModel(cfg).decoder.state_dict()
    ref_sd = Decoder(cfg).state_dict()
    assert list(train_sd) == list(ref_sd)
    assert all(train_sd[k].shape == ref_sd[k].shape for k in ref_sd)


def test_an_exported_decoder_reads_back_in_the_reference_with_the_training_logits(tmp_path):
    """export.py's model.json and model.safetensors, loaded by the reference, give the training model's logits."""
    cfg = DecoderConfig(
        vocab_size=CharTokenizer().vocab_size,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        intermediate_size=48,
        moe_intermediate_size=16,
        n_routed_experts=4,
        num_experts_per_tok=2,
    )
    torch.manual_seed(1)
    model = LineOcrModel(cfg, window=8).eval()
    model.decoder.init_random(5, std=0.2)
    save_safetensors(model.decoder, str(tmp_path / "model.safetensors"))
    with open(tmp_path / "model.json", "w") as f:
        json.dump(model_json(model, {"steps": 0}, 0.0), f)
    reference = load_decoder(str(tmp_path)).eval()
    assert type(reference) is Decoder
    with torch.no_grad():
        e, pos, mask = sequence(model)
        want = reference(e[None], pos[None], mask)
        got = model.decoder(e[None], pos[None], mask)
    assert torch.equal(got, want)


def test_the_shipped_default_bundle_is_the_training_checkpoint_read_by_the_reference():
    """models/default's decoder, loaded by the reference, computes what training/default/ckpt.pt's model computes."""
    model, meta = model_from_ckpt(repo_path("training", "default", "ckpt.pt"))
    assert meta is not None
    model.eval()
    reference = load_decoder(repo_path("models", "default")).eval()
    with torch.no_grad():
        e, pos, mask = sequence(model, seed=3)
        want = reference(e[None], pos[None], mask)
        got = model.decoder(e[None], pos[None], mask)
    assert torch.equal(got, want)


def test_export_writes_the_shipped_bundles_front_end_switches():
    """export.py writes model.json anew: the line front end's switches the shipped bundle reads with (the script bans,
    the diacritics model, the learned reading order, the word lists) must come out of it, or a re-exported bundle reads
    worse."""
    model, meta = model_from_ckpt(repo_path("training", "default", "ckpt.pt"))
    with open(repo_path("models", "default", "model.json"), encoding="utf8") as f:
        shipped = json.load(f)
    written = model_json(
        model, meta, 0.0, layout=True, diacritics=True, words=bundle_word_lists(repo_path("models", "default"))
    )
    assert written["vision"] == shipped["vision"]
    assert written["decoder"] == shipped["decoder"]
