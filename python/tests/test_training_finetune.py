"""Fine-tuning the default model: letters added to its vocabulary after it was first trained (tokenizer.ADDED:
Serbian Cyrillic), and a fine-tune that trains the decoder only."""

import json
import os

import pytest
import torch

from ocr_tools.paths import REPO_ROOT
from ocr_tools.synth.corpus import ADDED, FIRST_VOCABULARY
from ocr_tools.train.model import ARCHS
from ocr_tools.train.tokenizer import ADDED_FROM, SPECIALS, TAGS, UNK_CHAR, CharTokenizer
from ocr_tools.train.train import build_model, grow_vocabulary, trainable_parameters


def test_first_vocabulary_keeps_its_ids_and_added_letters_follow():
    tok = CharTokenizer()
    first = SPECIALS + TAGS + ["\n"] + sorted(FIRST_VOCABULARY) + [UNK_CHAR]
    assert tok.vocab[: len(first)] == first
    assert tok.vocab[len(first) :] == list(ADDED)
    assert tok.vocab_size % 8 == 0 and tok.vocab_size >= len(tok.vocab)
    # every letter of Serbian Cyrillic is a token of its own, and reads back
    text = "Љубав, њива, ћерка, ђак, џеп и ЈЕДАН"
    ids = tok.encode(text)
    assert tok.unk not in ids and tok.decode(ids) == text


def test_bundle_tokenizer_agrees_with_the_training_tokenizer():
    """models/default/tokenizer.json is what the native decoder maps ids with: an id that moved would make the
    shipped weights write another letter."""
    with open(os.path.join(REPO_ROOT, "models", "default", "tokenizer.json"), encoding="utf8") as f:
        shipped = json.load(f)["model"]["vocab"]
    ids = CharTokenizer().ids
    assert {t: ids[t] for t in shipped} == shipped


def test_grow_vocabulary_keeps_old_rows_and_starts_added_letters_from_their_look_alikes():
    tok = CharTokenizer()
    model = build_model()
    first = tok.ids[ADDED[0]]
    old_rows = (first + 7) // 8 * 8  # the matrices of the first vocabulary, padded to a multiple of 8
    torch.manual_seed(1)
    state = {
        "decoder.model.embed_tokens.weight": torch.randn(old_rows, model.decoder.cfg.hidden_size),
        "decoder.lm_head.weight": torch.randn(old_rows, model.decoder.cfg.hidden_size),
    }
    before = {k: v.clone() for k, v in state.items()}
    grow_vocabulary(model, state)
    for key, old in before.items():
        grown = state[key]
        assert grown.shape == (tok.vocab_size, model.decoder.cfg.hidden_size)
        assert torch.equal(grown[:first], old[:first])
        for ch in ADDED:
            assert torch.equal(grown[tok.ids[ch]], old[tok.ids[ADDED_FROM[ch]]]), ch
    model.load_state_dict(state, strict=False)  # the grown rows fit the model


def test_a_frozen_encoder_keeps_its_weights_while_the_decoder_learns():
    """--freeze-encoder: the line encoder is out of the optimiser, so neither its gradients nor AdamW's weight decay
    move it, while every decoder weight the loss reaches is trained."""
    torch.manual_seed(2)
    model = build_model(ARCHS["wide"])
    before = {k: v.clone() for k, v in model.state_dict().items()}
    trained = trainable_parameters(model, freeze_encoder=True)
    encoder = {id(p) for p in model.encoder.parameters()}
    assert not encoder & {id(p) for p in trained}
    assert {id(p) for p in model.decoder.parameters()} <= {id(p) for p in trained}
    opt = torch.optim.AdamW(trained, lr=1e-2, weight_decay=0.01)
    for _ in range(2):
        # a loss that reaches every parameter, the encoder's included
        loss = sum((p.float() ** 2).sum() for p in model.parameters())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    after = model.state_dict()
    for k, v in before.items():
        if k.startswith("encoder."):
            assert torch.equal(after[k], v), k
    moved = [k for k, v in before.items() if k.startswith("decoder.") and not torch.equal(after[k], v)]
    assert "decoder.lm_head.weight" in moved and len(moved) > 100
    # and without the flag the encoder trains too
    assert len(trainable_parameters(build_model(ARCHS["wide"]))) == len(list(model.parameters()))


def test_a_fine_tune_cycle_warms_up_then_runs_a_whole_cosine():
    from ocr_tools.train.train import learning_rate

    # warm-up: linear in steps up to the peak
    assert learning_rate(1e-3, 0, 10, 0.0, 600.0) == pytest.approx(1e-4)
    assert learning_rate(1e-3, 9, 10, 0.0, 600.0) == pytest.approx(1e-3)
    # the cosine runs over the cycle's own seconds: half-way is half of the way down to 5 %, the end is 5 %
    assert learning_rate(1e-3, 100, 10, 300.0, 600.0) == pytest.approx(1e-3 * (0.05 + 0.95 * 0.5))
    assert learning_rate(1e-3, 100, 10, 600.0, 600.0) == pytest.approx(5e-5)
    assert learning_rate(1e-3, 100, 10, 900.0, 600.0) == pytest.approx(5e-5)
