"""Training and reading agree: for a random line model, the logits the trainer scores at each target (forward_batch's
sequence, mask and one-step shift) equal the logits greedy reading computes entry by entry with the KV cache (extend,
retire, R-SWA window) when fed the same tokens. A trainer that scores the wrong position (say, two tokens ahead)
teaches a model that cannot read greedily."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from ocr_tools.reference.deepseek_decoder import (
    KIND_EXTENDED,
    KIND_GENERATED,
    KIND_VISUAL,
    DecoderConfig,
    streaming_layout,
)
from ocr_tools.train.cached import CachedDecoder
from ocr_tools.train.model import FEATURES, LineOcrModel, layout_mask
from ocr_tools.train.tokenizer import PAGE, CharTokenizer

OFFSET = 37


def small_config():
    return DecoderConfig(
        vocab_size=CharTokenizer().vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=16,
        intermediate_size=64,
        moe_intermediate_size=16,
        n_routed_experts=2,
        num_experts_per_tok=1,
        n_shared_experts=1,
        first_k_dense_replace=1,
        max_position_embeddings=4096,
    )


def random_units(rng):
    units = []
    for n, text in ((5, "Hello"), (12, " world, again"), (3, "\n\n# x")):
        units.append(
            {
                "ids": rng.integers(1, 6625, n),
                "feats": rng.standard_normal((n, FEATURES)).astype(np.float32),
                "geometry": rng.random(8).astype(np.float32),
                "target": text,
            }
        )
    return units


@pytest.fixture(scope="module")
def run():
    torch.manual_seed(0)
    model = LineOcrModel(small_config(), window=8).eval()
    model.decoder.init_random(3, std=0.3)
    units = random_units(np.random.default_rng(0))
    with torch.no_grad():
        # the trainer's view: logits at the entries whose next entry is a target, in order
        embs = model.encode_units(units)
        texts = [model.tok.encode(u["target"]) for u in units]
        e, targets, mask, pos = model.build_sequence(embs, texts, OFFSET)
        logits = model.decoder(e[None], pos[None], mask)[0]
        shifted = torch.full_like(targets, -100)
        shifted[:-1] = targets[1:]
        loss = F.cross_entropy(logits, shifted, ignore_index=-100)
        batch_loss, _, _ = model.forward_batch([(units, OFFSET)])
        # reading: prompt, then per unit retire the previous view, extend this one, feed the same tokens
        runner = CachedDecoder(model, 1)
        dec = model.decoder
        runner.extend(dec.embed(torch.tensor(model.prompt_ids))[None], [KIND_EXTENDED] * len(model.prompt_ids))
        runner.next_pos += OFFSET
        read, fed = [], []
        for k, (emb, ids) in enumerate(zip(embs, texts)):
            if k:
                runner.retire_visual()
            vis = model.visual_rows(emb)[None]
            out = runner.extend(vis, [KIND_VISUAL] * vis.shape[1])
            for tok in ids + [PAGE]:
                read.append(out[0])
                fed.append(tok)
                out = runner.extend(dec.embed(torch.tensor([[tok]])), [KIND_GENERATED])
    return {
        "units": units,
        "scored": logits[shifted != -100],
        "wanted": shifted[shifted != -100].tolist(),
        "read": torch.stack(read),
        "fed": fed,
        "loss": float(loss),
        "batch_loss": float(batch_loss),
    }


def test_the_trainer_scores_the_tokens_reading_feeds(run):
    assert len(run["fed"]) > 20
    assert run["wanted"] == run["fed"]


def test_trainer_logits_equal_kv_cached_reading_logits_at_every_scored_token(run):
    assert run["scored"].shape == run["read"].shape
    assert float((run["scored"] - run["read"]).abs().max()) < 1e-4


def test_the_batched_step_computes_the_same_loss(run):
    assert abs(run["batch_loss"] - run["loss"]) < 1e-4


def test_a_pca_model_scores_projected_units_as_raw_ones(run):
    """A model that takes principal components (ocr_tools.train.pack's data) scores pre-projected units as raw ones."""
    torch.manual_seed(0)
    model = LineOcrModel(small_config(), window=8, encoder={"pca": 6}).eval()
    model.decoder.init_random(3, std=0.3)
    model.encoder.pca_mean.normal_()
    model.encoder.pca_basis.normal_()
    units = run["units"]
    with torch.no_grad():
        projected = [dict(u, feats=model.encoder.project(torch.as_tensor(u["feats"])).numpy()) for u in units]
        raw_loss, _, _ = model.forward_batch([(units, OFFSET)])
        proj_loss, _, _ = model.forward_batch([(projected, OFFSET)])
    assert abs(float(raw_loss) - float(proj_loss)) < 1e-4


def test_the_batched_mask_equals_streaming_layouts_on_random_layouts():
    """The trainer's batched mask (layout_mask, padding included) equals the reference's streaming_layout."""
    rng = np.random.default_rng(1)
    for _ in range(40):
        views = [(int(rng.integers(1, 7)), int(rng.integers(1, 13))) for _ in range(int(rng.integers(1, 6)))]
        prompt, window, pad = int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(0, 4))
        kinds, _, want, _ = streaming_layout(prompt, views, window)
        view = [-1] * prompt + [v for v, (a, b) in enumerate(views) for _ in range(a + b)]
        T = len(view)
        got = layout_mask(
            torch.cat([kinds.to(torch.int8), torch.full((pad,), -1, dtype=torch.int8)])[None],
            torch.tensor(view + [-1] * pad)[None],
            window,
        )[0]
        assert torch.equal(got[:T, :T], want), (views, prompt, window)
        assert not got[:T, T:].any()
        assert torch.equal(got[T:, T:], torch.eye(pad, dtype=torch.bool))
