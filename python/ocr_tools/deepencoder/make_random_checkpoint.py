"""Writes a full-size random-weight checkpoint laid out like the public DeepSeek-OCR / Unlimited-OCR repositories.

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.deepencoder.make_random_checkpoint [--out ~/.cache/ocr/random-deepseek-ocr]

Exact tensor names, shapes and bf16 dtype of the real checkpoint (decoder 2.93B + DeepEncoder ~0.4B parameters),
config.json in the published shape, and the DeepSeek-V3 tokenizer with the OCR special tokens. Tensors are generated
and written one at a time, so memory stays near the largest tensor. A sibling folder `<out>-unlimited` gets the
Unlimited-OCR config (sliding_window_size 128, 32K positions) with the weights hard-linked, not copied.
"""
import argparse
import json
import os
import shutil
import sys
import time
import zlib

import torch

from ocr_tools.deepencoder.deepencoder import DeepEncoder, EncoderConfig
from ocr_tools.deepencoder.safetensors_stream import StreamWriter
from ocr_tools.paths import REPO_ROOT as ROOT

WEIGHTS = "model-00001-of-000001.safetensors"

# ids 128815..128826, after the DeepSeek-V3 vocabulary
OCR_TOKENS = [
    "<image>",
    "<|ref|>",
    "<|/ref|>",
    "<|det|>",
    "<|/det|>",
    "<|grounding|>",
    "<td>",
    "</td>",
    "<tr>",
    "</tr>",
    "<|User|>",
    "<|Assistant|>",
]

LANGUAGE = {
    "architectures": ["DeepseekV2ForCausalLM"],
    "bos_token_id": 0,
    "eos_token_id": 1,
    "first_k_dense_replace": 1,
    "hidden_size": 1280,
    "intermediate_size": 6848,
    "kv_lora_rank": None,
    "lm_head": True,
    "max_position_embeddings": 8192,
    "moe_intermediate_size": 896,
    "n_group": 1,
    "n_routed_experts": 64,
    "n_shared_experts": 2,
    "num_attention_heads": 10,
    "num_experts_per_tok": 6,
    "num_hidden_layers": 12,
    "num_key_value_heads": 10,
    "q_lora_rank": None,
    "qk_nope_head_dim": 0,
    "qk_rope_head_dim": 0,
    "rm_head": False,
    "topk_group": 1,
    "topk_method": "greedy",
    "torch_dtype": "bfloat16",
    "use_mla": False,
    "v_head_dim": 0,
    "vocab_size": 129280,
}


REDUCED = {
    "hidden_size": 24,
    "intermediate_size": 48,
    "moe_intermediate_size": 8,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
}


def config_json(unlimited: bool, reduced: bool = False) -> dict:
    lang = dict(LANGUAGE)
    enc = EncoderConfig.reduced() if reduced else EncoderConfig()
    if reduced:
        lang.update(REDUCED)
    if unlimited:
        lang["max_position_embeddings"] = 32768
        lang["sliding_window_size"] = 128
    return {
        "_name_or_path": "random-unlimited-ocr" if unlimited else "random-deepseek-ocr",
        "architectures": ["DeepseekOCRForCausalLM"],
        "candidate_resolutions": [[1024, 1024]],
        "global_view_pos": "head",
        "language_config": lang,
        "model_type": "deepseek_vl_v2",
        "projector_config": {
            "input_dim": 64 if reduced else 2048,
            "model_type": "mlp_projector",
            "n_embed": lang["hidden_size"],
            "projector_type": "linear",
        },
        "tile_tag": "2D",
        "torch_dtype": "bfloat16",
        "vision_config": {
            "image_size": 1024,
            "mlp_ratio": 3.7362,
            "model_name": "deeplip_b_l",
            "model_type": "vision",
            "width": {
                "clip-l-14-224": {
                    "heads": enc.clip_heads,
                    "image_size": enc.clip_image,
                    "layers": enc.clip_layers,
                    "patch_size": enc.clip_patch,
                    "width": enc.clip_width,
                },
                "sam_vit_b": {
                    "downsample_channels": list(enc.sam_down),
                    "global_attn_indexes": list(enc.sam_global_blocks),
                    "heads": enc.sam_heads,
                    "layers": enc.sam_depth,
                    "width": enc.sam_width,
                },
            },
        },
        **{k: v for k, v in lang.items() if k != "architectures"},
    }


def decoder_plan(c: dict):
    h, v = c["hidden_size"], c["vocab_size"]
    plan = [("model.embed_tokens.weight", [v, h])]
    for layer in range(c["num_hidden_layers"]):
        p = f"model.layers.{layer}"
        plan += [(f"{p}.input_layernorm.weight", [h]), (f"{p}.post_attention_layernorm.weight", [h])]
        plan += [(f"{p}.self_attn.{x}_proj.weight", [h, h]) for x in "qkvo"]
        if layer < c["first_k_dense_replace"]:
            i = c["intermediate_size"]
            plan += [
                (f"{p}.mlp.gate_proj.weight", [i, h]),
                (f"{p}.mlp.up_proj.weight", [i, h]),
                (f"{p}.mlp.down_proj.weight", [h, i]),
            ]
            continue
        m = c["moe_intermediate_size"]
        plan.append((f"{p}.mlp.gate.weight", [c["n_routed_experts"], h]))
        for e in range(c["n_routed_experts"]):
            q = f"{p}.mlp.experts.{e}"
            plan += [
                (f"{q}.gate_proj.weight", [m, h]),
                (f"{q}.up_proj.weight", [m, h]),
                (f"{q}.down_proj.weight", [h, m]),
            ]
        s = m * c["n_shared_experts"]
        q = f"{p}.mlp.shared_experts"
        plan += [(f"{q}.gate_proj.weight", [s, h]), (f"{q}.up_proj.weight", [s, h]), (f"{q}.down_proj.weight", [h, s])]
    plan += [
        ("model.norm.weight", [h]),
        ("lm_head.weight", [v, h]),
        ("model.image_newline", [h]),
        ("model.view_seperator", [h]),
    ]
    return plan


def decoder_tensor(name: str, shape, seed: int) -> torch.Tensor:
    if name.endswith("layernorm.weight") or name == "model.norm.weight":
        return torch.ones(shape, dtype=torch.bfloat16)
    g = torch.Generator().manual_seed(seed ^ zlib.crc32(name.encode()))
    std = 1 / 1280**0.5 if name in ("model.image_newline", "model.view_seperator") else 0.02
    return (torch.randn(shape, generator=g) * std).to(torch.bfloat16)


def write_tokenizer(out: str) -> None:
    src = os.path.join(ROOT, "node_modules", "@lenml", "tokenizer-deepseek_v3", "models")
    with open(os.path.join(src, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    taken = {t["id"] for t in tok["added_tokens"]}
    for i, content in enumerate(OCR_TOKENS):
        tid = 128815 + i
        if tid in taken:
            raise SystemExit(f"tokenizer already has id {tid}")
        tok["added_tokens"].append(
            {
                "id": tid,
                "content": content,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        )
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    shutil.copyfile(os.path.join(src, "tokenizer_config.json"), os.path.join(out, "tokenizer_config.json"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.expanduser("~"), ".cache", "ocr", "random-deepseek-ocr"))
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reduced", action="store_true", help="toy widths (CI): same names and layout, tiny tensors")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    cfg = config_json(False, args.reduced)

    t0 = time.time()
    torch.manual_seed(args.seed)
    encoder = DeepEncoder(EncoderConfig.reduced() if args.reduced else EncoderConfig())
    with torch.no_grad():
        for name, p in encoder.named_parameters():
            # the reference zero-initialises these; random values make every path of the encoder count
            if "rel_pos" in name or "pos_embed" in name or "position_embedding" in name or "class_embedding" in name:
                p.normal_(0.0, 0.02)
    encoder_tensors = {"model." + k: v.detach().to(torch.bfloat16) for k, v in encoder.state_dict().items()}
    del encoder

    plan = [(n, torch.bfloat16, s) for n, s in decoder_plan(cfg)]
    plan += [(n, torch.bfloat16, list(t.shape)) for n, t in encoder_tensors.items()]
    path = os.path.join(args.out, WEIGHTS)
    writer = StreamWriter(path, plan, {"format": "pt"})
    total = 0
    for name, _, shape in plan:
        t = encoder_tensors.pop(name) if name in encoder_tensors else decoder_tensor(name, shape, args.seed)
        writer.write(name, t)
        total += t.numel()
    writer.close()
    with open(os.path.join(args.out, "model.safetensors.index.json"), "w", encoding="utf-8") as f:
        json.dump(
            {"metadata": {"total_size": os.path.getsize(path)}, "weight_map": {n: WEIGHTS for n, _, _ in plan}},
            f,
            indent=1,
        )
    with open(os.path.join(args.out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2)
    write_tokenizer(args.out)
    print(
        f"{args.out}: {total / 1e9:.3f}B parameters, {os.path.getsize(path) / 1e9:.2f} GB in {time.time() - t0:.0f}s",
        file=sys.stderr,
    )

    unlimited = args.out.rstrip("/") + "-unlimited"
    os.makedirs(unlimited, exist_ok=True)
    for name in (WEIGHTS, "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json"):
        dst = os.path.join(unlimited, name)
        if os.path.exists(dst):
            os.remove(dst)
        os.link(os.path.join(args.out, name), dst)
    with open(os.path.join(unlimited, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config_json(True, args.reduced), f, indent=2)
    print(f"{unlimited}: Unlimited-OCR config, weights hard-linked", file=sys.stderr)


if __name__ == "__main__":
    main()
