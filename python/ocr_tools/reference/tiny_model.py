"""Generates the tiny random-weight decoder fixtures (real tensor names) and their golden dumps."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.reference.tiny_model [--out fixtures]
# Writes fixtures/tiny-model (f32), fixtures/tiny-model-bf16 (same weights rounded to bf16) and
# fixtures/tiny-model-tied (tied lm_head, renormalised top-k with a scaling factor, sharded in two files).
# Each gets golden/ dumps computed by ocr_tools/reference/deepseek_decoder.py in f32 (for bf16 weights:
# f32 compute on the bf16-rounded values, which is what the engine does).

import argparse
import json
import os
import sys

import torch

from ocr_tools.paths import repo_path
from ocr_tools.reference.deepseek_decoder import (
    KIND_EXTENDED,
    KIND_GENERATED,
    KIND_VISUAL,
    Decoder,
    DecoderConfig,
    apply_retired,
    banned_by_no_repeat,
    causal_mask,
    rswa_mask,
    save_tensors,
)

torch.set_num_threads(2)

BASE = {
    "vocab_size": 320,
    "hidden_size": 64,
    "num_hidden_layers": 3,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 96,
    "moe_intermediate_size": 32,
    "n_routed_experts": 8,
    "num_experts_per_tok": 3,
    "n_shared_experts": 2,
    "first_k_dense_replace": 1,
    "norm_topk_prob": False,
    "routed_scaling_factor": 1.0,
    "scoring_func": "softmax",
    "topk_method": "greedy",
    "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": False,
    "weights": ["model.safetensors"],
}
TOKENS = {"bos": 0, "eos": 1, "pad": 2, "image": 3, "page": 4}
# fixture folder -> the seed of its golden inputs (make_golden)
GOLDEN_SEEDS = {"tiny-model": 7, "tiny-model-bf16": 7, "tiny-model-tied": 11}


def bundle_json(name, decoder):
    return {
        "format": "ocr-model/1",
        "name": name,
        "family": "deepseek-ocr",
        "decoder": decoder,
        "tokens": TOKENS,
        "layout": "prefix",
        "attention": {"kind": "full", "window": 128},
        "decoding": {"max_tokens_per_page": 64, "no_repeat_ngram": {"n": 3, "window": 16, "exempt": []}},
    }


def forward_all(model, embeds, kinds, retired, window):
    T = embeds.shape[0]
    mask = rswa_mask(kinds, window) if window else causal_mask(T)
    mask = apply_retired(mask, retired)
    return model(embeds[None], torch.arange(T)[None], mask, output_hidden_states=True)


@torch.no_grad()
def greedy(model, embeds, kinds, retired, n_new, window, no_repeat=None, history=None):
    """Full-recompute greedy decoding; returns tokens, the extended embeds/kinds, and the smallest
    top-1/top-2 logit gap seen (the margin the engine's rounding must not cross)."""
    tokens, gap = [], float("inf")
    history = list(history or [])
    for _ in range(n_new):
        logits, _ = forward_all(model, embeds, kinds, retired, window)
        last = logits[0, -1].clone()
        if no_repeat:
            for t in banned_by_no_repeat(history, *no_repeat):
                last[t] = float("-inf")
        top2 = torch.topk(last, 2).values
        gap = min(gap, float(top2[0] - top2[1]))
        tok = int(torch.argmax(last))
        tokens.append(tok)
        history.append(tok)
        embeds = torch.cat([embeds, model.embed(torch.tensor([tok]))], 0)
        kinds = kinds + [KIND_GENERATED]
    return tokens, embeds, kinds, gap


def prefix_inputs(model, gen):
    """BOS, 3 prompt tokens, 12 visual rows, 4 prompt tokens: the prefix layout with an <image> block."""
    H = model.cfg.hidden_size
    ids = [0] + torch.randint(5, model.cfg.vocab_size, (7,), generator=gen).tolist()
    visual = torch.randn(12, H, generator=gen)
    seq = ids[:4] + [-1] * 12 + ids[4:]
    parts, v = [], 0
    for t in seq:
        if t < 0:
            parts.append(visual[v : v + 1])
            v += 1
        else:
            parts.append(model.embed(torch.tensor([t])))
    kinds = [KIND_VISUAL if t < 0 else KIND_EXTENDED for t in seq]
    return seq, visual, torch.cat(parts, 0), kinds


@torch.no_grad()
def make_golden(model, out_dir, seed):
    gen = torch.Generator().manual_seed(seed)
    os.makedirs(out_dir, exist_ok=True)
    seq, visual, embeds, kinds = prefix_inputs(model, gen)
    logits, hidden = forward_all(model, embeds, kinds, [], None)
    cases = {}
    tensors = {
        "prefix.visual": visual.contiguous(),
        "prefix.hidden": torch.stack([h[0] for h in hidden]).contiguous(),  # [layers, T, H]
        "prefix.logits": logits[0].contiguous(),  # [T, V]
    }
    full, _, _, gap_full = greedy(model, embeds, kinds, [], 24, None)
    norep, _, _, gap_norep = greedy(model, embeds, kinds, [], 32, None, no_repeat=(3, 16, [7]))
    rswa, _, _, gap_rswa = greedy(model, embeds, kinds, [], 40, 8)
    cases["prefix"] = {"tokens": seq, "visualRows": 12}
    cases["greedy_full"] = {"maxTokens": 24, "tokens": full, "minGap": gap_full}
    cases["greedy_no_repeat"] = {
        "maxTokens": 32,
        "noRepeat": {"n": 3, "window": 16, "exempt": [7]},
        "tokens": norep,
        "minGap": gap_norep,
    }
    cases["greedy_rswa"] = {"window": 8, "maxTokens": 40, "tokens": rswa, "minGap": gap_rswa}

    # Streaming layout: prompt, page 1 visual, 12 generated, retire page 1, page 2 visual, 12 generated.
    H = model.cfg.hidden_size
    prompt = [0] + torch.randint(5, model.cfg.vocab_size, (3,), generator=gen).tolist()
    v1, v2 = torch.randn(10, H, generator=gen), torch.randn(10, H, generator=gen)
    emb = torch.cat([model.embed(torch.tensor(prompt)), v1], 0)
    kinds_s = [KIND_EXTENDED] * len(prompt) + [KIND_VISUAL] * 10
    page1, emb, kinds_s, g1 = greedy(model, emb, kinds_s, [], 12, 8)
    p2_start = emb.shape[0]
    retired = [(len(prompt), len(prompt) + 10, p2_start)]
    emb = torch.cat([emb, v2], 0)
    kinds_s = kinds_s + [KIND_VISUAL] * 10
    page2, emb, kinds_s, g2 = greedy(model, emb, kinds_s, retired, 12, 8)
    tensors["streaming.visual1"] = v1.contiguous()
    tensors["streaming.visual2"] = v2.contiguous()
    cases["streaming"] = {
        "window": 8,
        "prompt": prompt,
        "visualRows": 10,
        "page1": page1,
        "page2": page2,
        "retire": [len(prompt), len(prompt) + 10],
        "minGap": min(g1, g2),
    }
    # A longer prefix (above the kernels' 32-token packed-prefill threshold): per-layer states and logits only.
    ids_long = [0] + torch.randint(5, model.cfg.vocab_size, (39,), generator=gen).tolist()
    vis_long = torch.randn(24, H, generator=gen)
    seq_long = ids_long[:8] + [-1] * 24 + ids_long[8:]
    emb_long = torch.cat(
        [model.embed(torch.tensor(ids_long[:8])), vis_long, model.embed(torch.tensor(ids_long[8:]))], 0
    )
    logits_l, hidden_l = forward_all(model, emb_long, [KIND_EXTENDED] * len(seq_long), [], None)
    tensors["prefix_long.visual"] = vis_long.contiguous()
    tensors["prefix_long.hidden"] = torch.stack([h[0] for h in hidden_l]).contiguous()
    tensors["prefix_long.logits"] = logits_l[0].contiguous()
    cases["prefix_long"] = {"tokens": seq_long, "visualRows": 24}
    save_tensors(tensors, os.path.join(out_dir, "golden.safetensors"))
    with open(os.path.join(out_dir, "golden.json"), "w") as f:
        json.dump(cases, f, indent=1)
    return min(gap_full, gap_norep, gap_rswa, g1, g2)


def write_model(model, out_dir, name, dtype, shards=1):
    os.makedirs(out_dir, exist_ok=True)
    tensors = {k: v.to(dtype).contiguous() for k, v in model.state_dict().items()}
    decoder = dict(model.cfg.to_dict())
    if shards == 1:
        save_tensors(tensors, os.path.join(out_dir, "model.safetensors"), {"format": "pt"})
        decoder["weights"] = ["model.safetensors"]
    else:
        names = sorted(tensors)
        weight_map = {}
        for s in range(shards):
            part = names[s::shards]
            fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
            save_tensors({k: tensors[k] for k in part}, os.path.join(out_dir, fname), {"format": "pt"})
            weight_map.update({k: fname for k in part})
        with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=1)
        decoder["weights"] = ["model.safetensors.index.json"]
    with open(os.path.join(out_dir, "model.json"), "w") as f:
        json.dump(bundle_json(name, decoder), f, indent=1)


def rounded(model, dtype):
    """The same model with every weight rounded through `dtype` and held in f32."""
    m = Decoder(model.cfg)
    m.load_state_dict({k: v.to(dtype).to(torch.float32) for k, v in model.state_dict().items()})
    return m


def build(cfg_dict, seed, std):
    model = Decoder(DecoderConfig.from_dict(cfg_dict)).init_random(seed, std=std)
    return model.eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=repo_path("fixtures"))
    args = ap.parse_args()
    # std 0.15 keeps greedy margins well above f32 rounding noise, so token-exact comparisons are meaningful.
    model = build(BASE, seed=1234, std=0.15)
    d = os.path.join(args.out, "tiny-model")
    write_model(model, d, "tiny-f32", torch.float32)
    gap = make_golden(model, os.path.join(d, "golden"), seed=GOLDEN_SEEDS["tiny-model"])
    print(f"tiny-model: min greedy gap {gap:.4g}", file=sys.stderr)

    d = os.path.join(args.out, "tiny-model-bf16")
    write_model(model, d, "tiny-bf16", torch.bfloat16)
    gap = make_golden(rounded(model, torch.bfloat16), os.path.join(d, "golden"), seed=GOLDEN_SEEDS["tiny-model-bf16"])
    print(f"tiny-model-bf16: min greedy gap {gap:.4g}", file=sys.stderr)

    tied = dict(
        BASE,
        tie_word_embeddings=True,
        norm_topk_prob=True,
        routed_scaling_factor=2.5,
        n_shared_experts=1,
        num_key_value_heads=4,
        first_k_dense_replace=2,
        num_hidden_layers=3,
    )
    model_t = build(tied, seed=99, std=0.15)
    d = os.path.join(args.out, "tiny-model-tied")
    write_model(model_t, d, "tiny-tied", torch.float16, shards=2)
    gap = make_golden(rounded(model_t, torch.float16), os.path.join(d, "golden"), seed=GOLDEN_SEEDS["tiny-model-tied"])
    print(f"tiny-model-tied (f16, sharded): min greedy gap {gap:.4g}", file=sys.stderr)


if __name__ == "__main__":
    main()
