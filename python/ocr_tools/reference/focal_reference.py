"""PyTorch reference of the native decoder's focal pruning and long R-SWA runs: greedy decoding by full
recomputation."""
# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.reference.focal_reference fixtures/tiny-model [fixtures/tiny-model-bf16 ...]
# Writes <fixture>/golden/attention.json: token-exact cases for test/native/focal.test.ts and rswa-long.test.ts.
#
# The policy, as ops/forward.cpp implements it (decode steps only; the prefix is always attended in full):
# - warm-up: the first w decode steps attend fully; each layer adds up the head-averaged probability that the
#   new query puts on visual keys. After step w the K layers with the largest sum (ties: lowest layer) are focal.
# - per-view warm-up: after visual rows are appended (the next page or line view), the next w decode steps
#   attend fully too; the focal layers already choose during them, so the set is ready when pruning resumes.
# - then, per decode step and layer: a focal layer attends every visual key, and keeps the top ceil(tau * N)
#   visual keys by head-averaged probability (ties: lowest position); any other layer attends only the
#   current set (plus all non-visual keys and the text window). The set carries over to the next step, so the
#   layers before the first focal layer use the last focal layer's set of the previous step. On the first
#   step after the warm-up there is no set yet: those layers attend every visual key.
# Every earlier row keeps the mask it was computed with, so recomputation reproduces the cached K/V exactly.

import argparse
import json
import math
import os
import sys
from typing import List, Optional

import torch

from ocr_tools.reference.deepseek_decoder import (
    KIND_EXTENDED,
    KIND_GENERATED,
    KIND_VISUAL,
    apply_rope,
    causal_mask,
    load_decoder,
    load_tensors,
    rope_cos_sin,
    rswa_mask,
)


def last_row_probs(layer, x, cos, sin, mask_row):
    """Softmax weights [heads, T] of the last query of `layer` (input x [1,T,H]) under mask_row [T]."""
    attn = layer.self_attn
    cfg = attn.cfg
    T = x.shape[1]
    nh, nkv, d = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
    xn = layer.input_layernorm(x)
    q = apply_rope(attn.q_proj(xn).view(1, T, nh, d).transpose(1, 2), cos, sin)[:, :, -1:]
    k = apply_rope(attn.k_proj(xn).view(1, T, nkv, d).transpose(1, 2), cos, sin)
    if nkv != nh:
        k = k.repeat_interleave(nh // nkv, dim=1)
    scores = (torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d))[0, :, 0].to(torch.float32)
    scores = scores.masked_fill(~mask_row[None], float("-inf"))
    return torch.softmax(scores, dim=-1)


@torch.no_grad()
def focal_generate(
    model,
    embeds,
    kinds: List[int],
    max_tokens: int,
    window: Optional[int],
    focal: Optional[dict],
    extend_at: Optional[int] = None,
    view: Optional[torch.Tensor] = None,
):
    """Greedy tokens, focal layers chosen, per focal step the kept visual positions, and the smallest top-1 gap.
    With extend_at, the rows of `view` (visual) are appended once that many tokens were generated (the last one
    fed first), as the native decoder's extend() does mid-generation; decoding then continues from the view's last
    row."""
    cfg = model.cfg
    L = cfg.num_hidden_layers
    kinds = list(kinds)
    T = len(kinds)
    masks = [causal_mask(T) for _ in range(L)]  # per layer; row i = the keys query i attended
    pos = torch.arange(T)
    cos, sin = rope_cos_sin(pos[None], cfg.head_dim, cfg.rope_theta, embeds.dtype)
    logits = model(embeds[None], pos[None], masks[0])[0, -1].to(torch.float32)
    shares = [0.0] * L
    is_focal = [False] * L
    focus = None
    steps = 0
    view_steps = 0
    out, fixations, min_gap, min_sel_gap = [], [], float("inf"), float("inf")
    while True:
        top2 = torch.topk(logits, 2).values
        min_gap = min(min_gap, float(top2[0] - top2[1]))
        tok = int(torch.argmax(logits).item())
        out.append(tok)
        if len(out) >= max_tokens:
            break
        embeds = torch.cat([embeds, model.embed(torch.tensor([tok]))], 0)
        kinds.append(KIND_GENERATED)
        T += 1
        base = (rswa_mask(kinds, window) if window else causal_mask(T))[-1]
        visual = torch.tensor([k == KIND_VISUAL for k in kinds])
        vis_pos = [i for i, k in enumerate(kinds) if k == KIND_VISUAL]
        measuring = focal is not None and steps < focal["warmup"]
        warm = measuring or (focal is not None and view_steps < focal["warmup"])
        pos = torch.arange(T)
        cos, sin = rope_cos_sin(pos[None], cfg.head_dim, cfg.rope_theta, embeds.dtype)
        x = embeds[None]
        for l, layer in enumerate(model.model.layers):
            grown = torch.zeros(T, T, dtype=torch.bool)
            grown[:-1, :-1] = masks[l]
            row = base.clone()
            full_layer = focal is None or warm or is_focal[l] or focus is None
            if not full_layer:
                keep = torch.zeros(T, dtype=torch.bool)
                keep[focus] = True
                row &= ~visual | keep
            grown[-1] = row
            masks[l] = grown
            if focal is not None and (measuring or is_focal[l]):
                p = last_row_probs(layer, x, cos, sin, row)
                avg = p[:, vis_pos].to(torch.float64).sum(0) / p.shape[0]
                if measuring:
                    shares[l] += float(avg.sum())
                else:
                    n = len(vis_pos)
                    k = min(n, max(1, math.ceil(focal["keep"] * n)))
                    order = sorted(range(n), key=lambda i: (-float(avg[i]), i))
                    if k < n:
                        min_sel_gap = min(min_sel_gap, float(avg[order[k - 1]] - avg[order[k]]))
                    focus = sorted(vis_pos[i] for i in order[:k])
            bias = torch.zeros(T, T).masked_fill(~masks[l], torch.finfo(torch.float32).min)[None, None]
            x = layer(x, cos, sin, bias)
        logits = model.logits(model.model.norm(x))[0, -1].to(torch.float32)
        if focal is not None:
            if not warm and focus is not None:
                fixations.append(focus)
            steps += 1
            view_steps += 1
            if steps == focal["warmup"]:
                order = sorted(range(L), key=lambda i: (-shares[i], i))
                is_focal = [i in order[: focal["layers"]] for i in range(L)]
        if extend_at is not None and len(out) == extend_at:
            # The view enters as a prefill: every new row attends all live keys under the base mask, in every layer.
            m = view.shape[0]
            embeds = torch.cat([embeds, view], 0)
            kinds += [KIND_VISUAL] * m
            T += m
            base = rswa_mask(kinds, window) if window else causal_mask(T)
            for l in range(L):
                grown = torch.zeros(T, T, dtype=torch.bool)
                grown[:-m, :-m] = masks[l]
                grown[-m:] = base[-m:]
                masks[l] = grown
            cos, sin = rope_cos_sin(torch.arange(T)[None], cfg.head_dim, cfg.rope_theta, embeds.dtype)
            x = embeds[None]
            for l, layer in enumerate(model.model.layers):
                bias = torch.zeros(T, T).masked_fill(~masks[l], torch.finfo(torch.float32).min)[None, None]
                x = layer(x, cos, sin, bias)
            logits = model.logits(model.model.norm(x))[0, -1].to(torch.float32)
            focus = None
            view_steps = 0
    layers = [i for i in range(L) if is_focal[i]]
    return out, layers, fixations, min_gap, min_sel_gap


SPECS = [
    {"name": "rswa_long", "window": 8, "maxTokens": 72, "focal": None},
    {"name": "focal_full", "window": None, "maxTokens": 32, "focal": {"keep": 0.25, "layers": 1, "warmup": 3}},
    {"name": "focal_full_2layers", "window": None, "maxTokens": 32, "focal": {"keep": 0.1, "layers": 2, "warmup": 2}},
    {"name": "focal_rswa", "window": 8, "maxTokens": 40, "focal": {"keep": 0.25, "layers": 2, "warmup": 2}},
    # A second view (the same visual rows again) enters after 12 tokens: its first 3 steps attend fully.
    {
        "name": "focal_views",
        "window": 8,
        "maxTokens": 36,
        "focal": {"keep": 0.25, "layers": 2, "warmup": 3},
        "extendAt": 12,
    },
]


def attention_cases(d, log=None):
    """The cases of <fixture>/golden/attention.json, computed from the fixture's weights and its golden prefix_long."""
    model = load_decoder(d, torch.float32).eval()
    with open(os.path.join(d, "golden", "golden.json")) as f:
        cases = json.load(f)
    vis = load_tensors(os.path.join(d, "golden", "golden.safetensors"))["prefix_long.visual"].to(torch.float32)
    seq = cases["prefix_long"]["tokens"]
    rows, r = [], 0
    for t in seq:
        if t < 0:
            rows.append(vis[r])
            r += 1
        else:
            rows.append(model.embed(torch.tensor([t]))[0])
    embeds = torch.stack(rows)
    kinds = [KIND_VISUAL if t < 0 else KIND_EXTENDED for t in seq]
    result = {"prefix": "prefix_long", "cases": []}
    for s in SPECS:
        toks, layers, fix, gap, sel_gap = focal_generate(
            model, embeds, kinds, s["maxTokens"], s["window"], s["focal"], s.get("extendAt"), vis
        )
        result["cases"].append(
            {
                **s,
                "tokens": toks,
                "focalLayers": layers,
                "fixations": fix,
                "minGap": gap,
                "minSelectionGap": None if sel_gap == float("inf") else sel_gap,
            }
        )
        if log:
            log(
                f"{d} {s['name']}: {len(toks)} tokens, focal layers {layers}, min logit gap {gap:.2e}, "
                f"min selection gap {sel_gap:.2e}"
            )
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("fixtures", nargs="+")
    args = ap.parse_args()
    torch.set_num_threads(2)
    for d in args.fixtures:
        result = attention_cases(d, log=lambda line: print(line, file=sys.stderr))
        with open(os.path.join(d, "golden", "attention.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
