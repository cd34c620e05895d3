"""Python side of `ocr bench decoder`: the DeepSeek-OCR-shape random bf16 decoder and the ONNX baseline export."""
# PYTHONPATH=python /usr/bin/python3 -m ocr_tools.bench_decoder checkpoint --out ~/.cache/ocr/bench/deepseek-ocr-shape
#   A decoder-only bundle (model.json + model.safetensors, ~6.3 GB bf16) with the exact DeepSeek-OCR decoder
#   shape: 12 layers, hidden 1280, 10 heads x 128, dense layer 0 (6848), 64 routed experts (896) top-6 + 2
#   shared, vocab 129280. Tensors are generated and written one chunk at a time (memory stays ~100 MB).
# PYTHONPATH=python /usr/bin/python3 -m ocr_tools.bench_decoder onnx --model fixtures/tiny-model --out ~/.cache/ocr/bench/tiny-decoder.onnx
#   The same decoder as an ordinary ONNX graph with past key/value inputs (what a TypeScript user would run in
#   onnxruntime-node). Tracing would freeze the data-dependent routing, so the MoE is written densely: every
#   expert runs on every token (batched MatMul over stacked expert weights) and a TopK + ScatterElements gate
#   matrix zeroes the unselected ones. That does n_experts/top_k times the routed-expert arithmetic of our decoder.

import argparse
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from ocr_tools.reference.deepseek_decoder import Decoder, causal_mask, load_decoder, rope_cos_sin, rotate_half

torch.set_num_threads(2)

DEEPSEEK_OCR_DECODER = {
    "vocab_size": 129280,
    "hidden_size": 1280,
    "num_hidden_layers": 12,
    "num_attention_heads": 10,
    "num_key_value_heads": 10,
    "head_dim": 128,
    "intermediate_size": 6848,
    "moe_intermediate_size": 896,
    "n_routed_experts": 64,
    "num_experts_per_tok": 6,
    "n_shared_experts": 2,
    "first_k_dense_replace": 1,
    "norm_topk_prob": False,
    "routed_scaling_factor": 1.0,
    "scoring_func": "softmax",
    "topk_method": "greedy",
    "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
    "weights": ["model.safetensors"],
}


def decoder_tensors(c):
    """(name, shape) of every decoder tensor, HF names."""
    H, V, D = c["hidden_size"], c["vocab_size"], c["head_dim"]
    NH, NKV = c["num_attention_heads"], c["num_key_value_heads"]
    out = [("model.embed_tokens.weight", [V, H])]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}"
        out += [
            (f"{p}.input_layernorm.weight", [H]),
            (f"{p}.post_attention_layernorm.weight", [H]),
            (f"{p}.self_attn.q_proj.weight", [NH * D, H]),
            (f"{p}.self_attn.k_proj.weight", [NKV * D, H]),
            (f"{p}.self_attn.v_proj.weight", [NKV * D, H]),
            (f"{p}.self_attn.o_proj.weight", [H, NH * D]),
        ]

        def mlp(prefix, inter):
            return [
                (f"{prefix}.gate_proj.weight", [inter, H]),
                (f"{prefix}.up_proj.weight", [inter, H]),
                (f"{prefix}.down_proj.weight", [H, inter]),
            ]

        if l < c["first_k_dense_replace"]:
            out += mlp(f"{p}.mlp", c["intermediate_size"])
        else:
            out.append((f"{p}.mlp.gate.weight", [c["n_routed_experts"], H]))
            for e in range(c["n_routed_experts"]):
                out += mlp(f"{p}.mlp.experts.{e}", c["moe_intermediate_size"])
            out += mlp(f"{p}.mlp.shared_experts", c["moe_intermediate_size"] * c["n_shared_experts"])
    out += [
        ("model.norm.weight", [H]),
        ("lm_head.weight", [V, H]),
        ("model.image_newline", [H]),
        ("model.view_seperator", [H]),
    ]
    return out


def write_random_checkpoint(out_dir, seed=0):
    os.makedirs(out_dir, exist_ok=True)
    tensors = decoder_tensors(DEEPSEEK_OCR_DECODER)
    header, offset = {"__metadata__": {"format": "pt", "note": "random weights for benchmarks"}}, 0
    for name, shape in tensors:
        n = math.prod(shape) * 2
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    hjson = json.dumps(header, separators=(",", ":")).encode()
    hjson += b" " * ((8 - len(hjson) % 8) % 8)
    gen = torch.Generator().manual_seed(seed)
    path = os.path.join(out_dir, "model.safetensors")
    tmp = path + ".tmp"
    chunk = 1 << 24
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for i, (name, shape) in enumerate(tensors):
            n = math.prod(shape)
            norm = name.endswith("norm.weight")
            # Router rows with a larger spread so top-6 picks differ from token to token, as in a trained model.
            std = 0.5 if name.endswith("mlp.gate.weight") else 0.02
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                t = torch.ones(m) if norm else torch.randn(m, generator=gen) * std
                f.write(t.to(torch.bfloat16).view(torch.int16).numpy().tobytes())
            if i % 50 == 0:
                print(f"  {i + 1}/{len(tensors)} tensors", file=sys.stderr)
    os.replace(tmp, path)
    bundle = {
        "format": "ocr-model/1",
        "name": "deepseek-ocr-shape-random",
        "family": "deepseek-ocr",
        "decoder": DEEPSEEK_OCR_DECODER,
        "tokens": {"bos": 0, "eos": 1, "pad": 2, "image": 128815, "page": 4},
        "layout": "prefix",
        "attention": {"kind": "full", "window": 128},
    }
    with open(os.path.join(out_dir, "model.json"), "w") as f:
        json.dump(bundle, f, indent=1)
    print(f"wrote {path} ({offset / 1e9:.2f} GB of weights)", file=sys.stderr)


class OnnxDecoder(nn.Module):
    """The reference decoder recast for export: token ids + past K/V in, logits + present K/V out."""

    def __init__(self, model: Decoder):
        super().__init__()
        self.m = model
        c = model.cfg
        self.cfg = c
        # Stacked expert weights per MoE layer: [E, I, H] gate/up, [E, H, I] down.
        self.stacks = nn.ParameterList()
        for layer in model.model.layers:
            if hasattr(layer.mlp, "experts"):
                ex = layer.mlp.experts
                self.stacks.append(nn.Parameter(torch.stack([e.gate_proj.weight for e in ex])))
                self.stacks.append(nn.Parameter(torch.stack([e.up_proj.weight for e in ex])))
                self.stacks.append(nn.Parameter(torch.stack([e.down_proj.weight for e in ex])))

    def moe_dense(self, mlp, x, si):
        c = self.cfg
        xf = x.reshape(-1, x.shape[-1])  # [N, H]
        scores = F.linear(xf, mlp.gate.weight).softmax(-1)  # [N, E]
        w, idx = torch.topk(scores, c.num_experts_per_tok, dim=-1)
        if c.num_experts_per_tok > 1 and c.norm_topk_prob:
            w = w / (w.sum(-1, keepdim=True) + 1e-20)
        else:
            w = w * c.routed_scaling_factor
        gate = torch.zeros_like(scores).scatter(1, idx, w)  # [N, E], zero where not routed
        g_w, u_w, d_w = self.stacks[si], self.stacks[si + 1], self.stacks[si + 2]
        h = F.silu(torch.matmul(xf[None], g_w.transpose(1, 2))) * torch.matmul(
            xf[None], u_w.transpose(1, 2)
        )  # [E, N, I]
        y = torch.matmul(h, d_w.transpose(1, 2))  # [E, N, H]
        out = (y * gate.t()[:, :, None]).sum(0)
        if mlp.shared_experts is not None:
            out = out + mlp.shared_experts(xf)
        return out.reshape(x.shape)

    def forward(self, input_ids, past_key, past_value):
        # input_ids [1, n]; past_key/value [layers, kv_heads, past, d]
        c = self.cfg
        n = input_ids.shape[1]
        past = past_key.shape[2]
        x = self.m.model.embed_tokens(input_ids)
        pos = (torch.arange(n) + past)[None]
        cos, sin = rope_cos_sin(pos, c.head_dim, c.rope_theta, x.dtype)
        total = past + n
        q_pos = torch.arange(n)[:, None] + past
        k_pos = torch.arange(total)[None, :]
        bias = torch.where(k_pos <= q_pos, torch.zeros(()), torch.full((), -1e30))  # causal over past + new
        keys, values = [], []
        si = 0
        for l, layer in enumerate(self.m.model.layers):
            a = layer.self_attn
            h = layer.input_layernorm(x)
            q = a.q_proj(h).view(1, n, c.num_attention_heads, c.head_dim).transpose(1, 2)
            k = a.k_proj(h).view(1, n, c.num_key_value_heads, c.head_dim).transpose(1, 2)
            v = a.v_proj(h).view(1, n, c.num_key_value_heads, c.head_dim).transpose(1, 2)
            q = q * cos[:, None] + rotate_half(q) * sin[:, None]
            k = k * cos[:, None] + rotate_half(k) * sin[:, None]
            k = torch.cat([past_key[l][None], k], 2)
            v = torch.cat([past_value[l][None], v], 2)
            keys.append(k[0])
            values.append(v[0])
            rep = c.num_attention_heads // c.num_key_value_heads
            if rep > 1:  # expand + reshape exports with dynamic lengths (repeat_interleave bakes them in)
                k = k[:, :, None].expand(-1, -1, rep, -1, -1).reshape(1, c.num_attention_heads, -1, c.head_dim)
                v = v[:, :, None].expand(-1, -1, rep, -1, -1).reshape(1, c.num_attention_heads, -1, c.head_dim)
            att = torch.softmax(torch.matmul(q, k.transpose(2, 3)) / math.sqrt(c.head_dim) + bias, -1)
            o = torch.matmul(att, v).transpose(1, 2).reshape(1, n, -1)
            x = x + a.o_proj(o)
            h = layer.post_attention_layernorm(x)
            if hasattr(layer.mlp, "experts"):
                x = x + self.moe_dense(layer.mlp, h, si)
                si += 3
            else:
                x = x + layer.mlp(h)
        logits = self.m.logits(self.m.model.norm(x[:, -1:]))
        return logits, torch.stack(keys), torch.stack(values)


@torch.no_grad()
def export_onnx(model_dir, out_path):
    model = load_decoder(model_dir, torch.float32).eval()
    wrapper = OnnxDecoder(model).eval()
    c = model.cfg
    ids = torch.tensor([[5, 6, 7]])
    pk = torch.zeros(c.num_hidden_layers, c.num_key_value_heads, 4, c.head_dim)
    pv = torch.zeros_like(pk)
    # Check the export's formulation against the reference before writing it.
    full_ids = torch.tensor([[9, 10, 11, 12, 5, 6, 7]])
    ref = model(model.embed(full_ids), torch.arange(7)[None], causal_mask(7))[0, -1]
    _, k0, v0 = wrapper(full_ids[:, :4], pk[:, :, :0], pv[:, :, :0])
    got, _, _ = wrapper(ids, k0, v0)
    err = float((got[0, -1] - ref).abs().max())
    if err > 1e-4:
        raise SystemExit(f"dense-MoE export formulation differs from the reference (max abs {err})")
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    tmp = out_path + ".tmp"
    torch.onnx.export(
        wrapper,
        (ids, pk, pv),
        tmp,
        opset_version=17,
        input_names=["input_ids", "past_key", "past_value"],
        output_names=["logits", "present_key", "present_value"],
        dynamic_axes={
            "input_ids": {1: "n"},
            "past_key": {2: "past"},
            "past_value": {2: "past"},
            "present_key": {2: "total"},
            "present_value": {2: "total"},
        },
    )
    os.replace(tmp, out_path)
    print(f"wrote {out_path} (checked against the reference: max abs diff {err:.2e})", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("checkpoint")
    a.add_argument("--out", required=True)
    b = sub.add_parser("onnx")
    b.add_argument("--model", required=True)
    b.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "checkpoint":
        write_random_checkpoint(args.out)
    else:
        export_onnx(args.model, args.out)


if __name__ == "__main__":
    main()
