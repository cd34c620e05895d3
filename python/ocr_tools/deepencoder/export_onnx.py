"""Exports the DeepEncoder to encoder.onnx (pixels [n,3,H,W] → embeddings [n,H/64,W/64,D]), from a checkpoint or random weights.

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.deepencoder.export_onnx --checkpoint DIR --out DIR/encoder.onnx
  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.deepencoder.export_onnx --reduced-random 0 --out fixtures/.../encoder.onnx --golden DIR

--golden writes deterministic test pixels' PyTorch outputs (raw little-endian float32) for the ONNX-vs-torch check
that runs in onnxruntime-node. The weights are exported in float32: onnxruntime rejects bf16 convolutions.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

from ocr_tools.deepencoder.deepencoder import (
    DeepEncoder,
    EncoderConfig,
    bicubic_aa_matrix,
    encoder_state_from_checkpoint,
    linear_matrix,
)
from ocr_tools.deepencoder.safetensors_stream import load_tensors


def torchscript_exporter():
    """PyTorch >= 2.9 exports with the dynamo exporter by default, which needs the onnxscript package; this graph
    was written and checked for the TorchScript exporter, so ask for it wherever `dynamo` is an argument."""
    import inspect

    return {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


def test_pixels(n: int, size: int) -> torch.Tensor:
    """Deterministic pixels in [-1, 1], reproducible bit for bit in JavaScript: ((i·7919) mod 2001)/1000 − 1."""
    i = torch.arange(n * 3 * size * size, dtype=torch.int64)
    return (((i * 7919) % 2001).to(torch.float32) / 1000.0 - 1.0).reshape(n, 3, size, size)


def self_check_resampling() -> None:
    """The in-graph interpolation matrices must equal the reference's F.interpolate calls."""
    g = torch.Generator().manual_seed(0)
    for src, dst in [(64, 32), (64, 40), (64, 80), (16, 8), (16, 10), (16, 20)]:
        t = torch.randn(src, src, 3, generator=g)
        ref = F.interpolate(
            t.permute(2, 0, 1)[None], size=(dst, dst), mode="bicubic", antialias=True, align_corners=False
        )[0]
        m = bicubic_aa_matrix(src, torch.tensor(dst))
        ours = torch.einsum("ti,ijc,uj->ctu", m, t, m)
        assert (ref - ours).abs().max() < 1e-4, f"bicubic {src}->{dst}"
    for src, dst in [(127, 63), (127, 79), (127, 159)]:
        t = torch.randn(src, 4, generator=g)
        ref = F.interpolate(t.T[None], size=dst, mode="linear", align_corners=False)[0].T
        assert (ref - linear_matrix(src, torch.tensor(dst)) @ t).abs().max() < 1e-4, f"linear {src}->{dst}"


def config_from_checkpoint(tensors: dict, config: dict) -> EncoderConfig:
    """Encoder widths and depths read off the tensor shapes (CLIP's head count, which shapes cannot show, from config.json)."""
    shape = lambda name: list(tensors[name].shape)  # noqa: E731
    sam_depth = len({k.split(".")[3] for k in tensors if k.startswith("model.sam_model.blocks.")})
    sam_width = shape("model.sam_model.patch_embed.proj.weight")[0]
    head_dim = shape("model.sam_model.blocks.0.attn.rel_pos_h")[1]
    pos = shape("model.sam_model.pos_embed")
    window = (shape("model.sam_model.blocks.0.attn.rel_pos_h")[0] + 1) // 2
    global_blocks = tuple(
        i for i in range(sam_depth) if (shape(f"model.sam_model.blocks.{i}.attn.rel_pos_h")[0] + 1) // 2 != window
    )
    clip_layers = len({k.split(".")[4] for k in tensors if k.startswith("model.vision_model.transformer.layers.")})
    clip_width = shape("model.vision_model.pre_layrnorm.weight")[0]
    clip_patch = shape("model.vision_model.embeddings.patch_embedding.weight")[2]
    clip_positions = shape("model.vision_model.embeddings.position_embedding.weight")[0]
    clip_side = int(round((clip_positions - 1) ** 0.5))
    vision = config.get("vision_config", {}).get("width", {})
    clip_heads = next((v.get("heads") for k, v in vision.items() if k.startswith("clip")), None) or 16
    return EncoderConfig(
        sam_width=sam_width,
        sam_depth=sam_depth,
        sam_heads=sam_width // head_dim,
        sam_global_blocks=global_blocks,
        sam_window=window,
        sam_patch=shape("model.sam_model.patch_embed.proj.weight")[2],
        sam_pretrain_size=pos[1] * shape("model.sam_model.patch_embed.proj.weight")[2],
        sam_mlp_ratio=shape("model.sam_model.blocks.0.mlp.lin1.weight")[0] / sam_width,
        sam_neck=shape("model.sam_model.neck.0.weight")[0],
        sam_down=(shape("model.sam_model.net_2.weight")[0], shape("model.sam_model.net_3.weight")[0]),
        clip_width=clip_width,
        clip_layers=clip_layers,
        clip_heads=clip_heads,
        clip_ffn=shape("model.vision_model.transformer.layers.0.mlp.fc1.weight")[0],
        clip_image=clip_side * clip_patch,
        clip_patch=clip_patch,
        projector_out=shape("model.projector.layers.weight")[0],
    )


def randomise(model: DeepEncoder, seed: int) -> None:
    """Default init plus small random values where the reference zero-initialises (positions), so every path matters."""
    torch.manual_seed(seed)
    for name, p in model.named_parameters():
        if "rel_pos" in name or "pos_embed" in name or "position_embedding" in name or "class_embedding" in name:
            with torch.no_grad():
                p.normal_(0.0, 0.02)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--checkpoint", help="checkpoint folder with model.sam_model.* / model.vision_model.* / model.projector.*"
    )
    src.add_argument("--reduced-random", type=int, metavar="SEED", help="reduced-width random encoder (tests)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--golden", help="folder for golden pixels' torch outputs")
    ap.add_argument("--golden-views", default="2x640,1x1024,1x512", help="comma list of NxSIZE")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    self_check_resampling()

    t0 = time.time()
    if args.checkpoint:
        tensors = load_tensors(
            args.checkpoint, lambda n: n.startswith(("model.sam_model.", "model.vision_model.", "model.projector."))
        )
        if "model.sam_model.patch_embed.proj.weight" not in tensors:
            raise SystemExit(f"{args.checkpoint}: no DeepEncoder tensors (model.sam_model.*) in the weights")
        with open(os.path.join(args.checkpoint, "config.json"), encoding="utf-8") as f:
            cfg = config_from_checkpoint(tensors, json.load(f))
        print(f"encoder config from the checkpoint: {cfg}", file=sys.stderr)
        model = DeepEncoder(cfg)
        state = encoder_state_from_checkpoint(tensors)
        del tensors
        missing, unexpected = model.load_state_dict(state, strict=False)
        if missing or unexpected:
            raise SystemExit(
                f"{args.checkpoint}: encoder tensors do not match the DeepEncoder: missing {missing[:5]}, unexpected {unexpected[:5]}"
            )
    else:
        cfg = EncoderConfig.reduced()
        model = DeepEncoder(cfg)
        randomise(model, args.reduced_random)
    model.eval()
    params = sum(p.numel() for p in model.parameters())
    print(f"encoder: {params / 1e6:.1f}M parameters, loaded in {time.time() - t0:.1f}s", file=sys.stderr)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    t0 = time.time()
    tmp = args.out + ".partial"
    with torch.no_grad():
        # traced at 512 so no size-specific branch (identity resampling at 1024) is baked into the graph
        torch.onnx.export(
            model,
            (test_pixels(1, 512),),
            tmp,
            input_names=["pixels"],
            output_names=["embeddings"],
            dynamic_axes={
                "pixels": {0: "views", 2: "height", 3: "width"},
                "embeddings": {0: "views", 1: "rows", 2: "cols"},
            },
            opset_version=17,
            do_constant_folding=True,
            **torchscript_exporter(),
        )
    os.replace(tmp, args.out)
    print(f"exported {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB) in {time.time() - t0:.1f}s", file=sys.stderr)

    if args.golden:
        os.makedirs(args.golden, exist_ok=True)
        manifest = []
        for spec in args.golden_views.split(","):
            n, size = (int(x) for x in spec.split("x"))
            t0 = time.time()
            with torch.no_grad():
                out = model(test_pixels(n, size)).contiguous()
            name = f"embeddings-{n}x{size}.f32"
            out.numpy().astype("<f4").tofile(os.path.join(args.golden, name))
            manifest.append(
                {
                    "views": n,
                    "size": size,
                    "file": name,
                    "dims": list(out.shape),
                    "torch_seconds": round(time.time() - t0, 3),
                }
            )
            print(f"golden {spec}: dims {list(out.shape)} in {time.time() - t0:.1f}s", file=sys.stderr)
        with open(os.path.join(args.golden, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump({"pixels": "((i*7919) % 2001)/1000 - 1", "cases": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
