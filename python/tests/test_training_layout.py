#!/usr/bin/python3
"""Checks that training and reading agree: for a random line model, the logits the trainer scores at each target
(forward_batch's sequence, mask and one-step shift) equal the logits greedy reading computes entry by entry with
the KV cache (extend, retire, R-SWA window) when fed the same tokens. Prints one JSON line; exits 1 on mismatch."""
# Usage: /usr/bin/python3 scripts/train/check_layout.py
# A trainer that scores the wrong position (say, two tokens ahead) teaches a model that cannot read greedily.
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from cached import CachedDecoder, KIND_EXTENDED, KIND_GENERATED, KIND_VISUAL  # noqa: E402
from model import FEATURES, LineOcrModel, layout_mask  # noqa: E402
from deepseek_decoder import DecoderConfig, streaming_layout  # noqa: E402
from tokenizer import PAGE, CharTokenizer  # noqa: E402


def batch_masks_agree(trials=40):
    """The trainer's batched mask (layout_mask, padding included) equals streaming_layout's on random layouts."""
    rng = np.random.default_rng(1)
    for _ in range(trials):
        views = [(int(rng.integers(1, 7)), int(rng.integers(1, 13))) for _ in range(int(rng.integers(1, 6)))]
        prompt, window, pad = int(rng.integers(1, 5)), int(rng.integers(1, 9)), int(rng.integers(0, 4))
        kinds, _, want, _ = streaming_layout(prompt, views, window)
        view = [-1] * prompt + [v for v, (a, b) in enumerate(views) for _ in range(a + b)]
        T = len(view)
        got = layout_mask(torch.cat([kinds.to(torch.int8), torch.full((pad,), -1, dtype=torch.int8)])[None],
                          torch.tensor(view + [-1] * pad)[None], window)[0]
        if not (torch.equal(got[:T, :T], want) and not got[:T, T:].any() and torch.equal(got[T:, T:], torch.eye(pad, dtype=torch.bool))):
            return False
    return True


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    cfg = DecoderConfig(vocab_size=CharTokenizer().vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        num_key_value_heads=2, head_dim=16, intermediate_size=64, moe_intermediate_size=16, n_routed_experts=2,
                        num_experts_per_tok=1, n_shared_experts=1, first_k_dense_replace=1, max_position_embeddings=4096)
    model = LineOcrModel(cfg, window=8).eval()
    model.decoder.init_random(3, std=0.3)
    units = []
    for n, text in ((5, "Hello"), (12, " world, again"), (3, "\n\n# x")):
        units.append({"ids": rng.integers(1, 6625, n), "feats": rng.standard_normal((n, FEATURES)).astype(np.float32),
                      "geometry": rng.random(8).astype(np.float32), "target": text})
    offset = 37
    with torch.no_grad():
        # the trainer's view: logits at the entries whose next entry is a target, in order
        embs = model.encode_units(units)
        texts = [model.tok.encode(u["target"]) for u in units]
        e, targets, mask, pos = model.build_sequence(embs, texts, offset)
        logits = model.decoder(e[None], pos[None], mask)[0]
        shifted = torch.full_like(targets, -100)
        shifted[:-1] = targets[1:]
        scored = logits[shifted != -100]
        wanted = shifted[shifted != -100]
        loss = F.cross_entropy(logits, shifted, ignore_index=-100)
        batch_loss, _, acc = model.forward_batch([(units, offset)])
        # a model that takes principal components (pack.py's data) scores pre-projected units as it scores raw ones
        pmodel = LineOcrModel(cfg, window=8, encoder={"pca": 6}).eval()
        pmodel.decoder.init_random(3, std=0.3)
        pmodel.encoder.pca_mean.normal_()
        pmodel.encoder.pca_basis.normal_()
        projected = [dict(u, feats=pmodel.encoder.project(torch.as_tensor(u["feats"])).numpy()) for u in units]
        raw_loss, _, _ = pmodel.forward_batch([(units, offset)])
        proj_loss, _, _ = pmodel.forward_batch([(projected, offset)])
        # reading: prompt, then per unit retire the previous view, extend this one, feed the same tokens
        runner = CachedDecoder(model, 1)
        dec = model.decoder
        runner.extend(dec.embed(torch.tensor(model.prompt_ids))[None], [KIND_EXTENDED] * len(model.prompt_ids))
        runner.next_pos += offset
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
        read = torch.stack(read)
    same_targets = wanted.tolist() == fed
    diff = float((scored - read).abs().max()) if scored.shape == read.shape else float("inf")
    batch_diff = abs(float(batch_loss) - float(loss))
    pca_diff = abs(float(raw_loss) - float(proj_loss))
    masks_ok = batch_masks_agree()
    ok = same_targets and diff < 1e-4 and batch_diff < 1e-4 and pca_diff < 1e-4 and masks_ok
    print(json.dumps({"ok": ok, "targets": len(fed), "same_targets": same_targets, "max_logit_diff": diff, "loss": float(loss), "acc": acc,
                      "batch_loss_diff": batch_diff, "pca_loss_diff": pca_diff,
                      "batch_masks_agree": masks_ok}))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
