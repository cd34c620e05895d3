"""Exports the DeepEncoder to encoder.onnx (pixels [n,3,H,W] → embeddings [n,H/64,W/64,D]), from a checkpoint or random weights.

  /usr/bin/python3 scripts/deepencoder/export_onnx.py --checkpoint DIR --out DIR/encoder.onnx
  /usr/bin/python3 scripts/deepencoder/export_onnx.py --reduced-random 0 --out fixtures/.../encoder.onnx --golden DIR

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from deepencoder import DeepEncoder, EncoderConfig, bicubic_aa_matrix, encoder_state_from_checkpoint, linear_matrix  # noqa: E402
from safetensors_stream import load_tensors  # noqa: E402


def test_pixels(n: int, size: int) -> torch.Tensor:
    """Deterministic pixels in [-1, 1], reproducible bit for bit in JavaScript: ((i·7919) mod 2001)/1000 − 1."""
    i = torch.arange(n * 3 * size * size, dtype=torch.int64)
    return (((i * 7919) % 2001).to(torch.float32) / 1000.0 - 1.0).reshape(n, 3, size, size)


def self_check_resampling() -> None:
    """The in-graph interpolation matrices must equal the reference's F.interpolate calls."""
    g = torch.Generator().manual_seed(0)
    for src, dst in [(64, 32), (64, 40), (64, 80), (16, 8), (16, 10), (16, 20)]:
        t = torch.randn(src, src, 3, generator=g)
        ref = F.interpolate(t.permute(2, 0, 1)[None], size=(dst, dst), mode="bicubic", antialias=True, align_corners=False)[0]
        m = bicubic_aa_matrix(src, torch.tensor(dst))
        ours = torch.einsum("ti,ijc,uj->ctu", m, t, m)
        assert (ref - ours).abs().max() < 1e-4, f"bicubic {src}->{dst}"
    for src, dst in [(127, 63), (127, 79), (127, 159)]:
        t = torch.randn(src, 4, generator=g)
        ref = F.interpolate(t.T[None], size=dst, mode="linear", align_corners=False)[0].T
        assert (ref - linear_matrix(src, torch.tensor(dst)) @ t).abs().max() < 1e-4, f"linear {src}->{dst}"


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
    src.add_argument("--checkpoint", help="checkpoint folder with model.sam_model.* / model.vision_model.* / model.projector.*")
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
        cfg = EncoderConfig()
        model = DeepEncoder(cfg)
        state = encoder_state_from_checkpoint(
            load_tensors(args.checkpoint, lambda n: n.startswith(("model.sam_model.", "model.vision_model.", "model.projector.")))
        )
        missing, unexpected = model.load_state_dict(state, strict=False)
        if missing or unexpected:
            raise SystemExit(f"{args.checkpoint}: encoder tensors do not match the DeepEncoder: missing {missing[:5]}, unexpected {unexpected[:5]}")
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
            model, (test_pixels(1, 512),), tmp, input_names=["pixels"], output_names=["embeddings"],
            dynamic_axes={"pixels": {0: "views", 2: "height", 3: "width"}, "embeddings": {0: "views", 1: "rows", 2: "cols"}},
            opset_version=17, do_constant_folding=True,
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
            manifest.append({"views": n, "size": size, "file": name, "dims": list(out.shape), "torch_seconds": round(time.time() - t0, 3)})
            print(f"golden {spec}: dims {list(out.shape)} in {time.time() - t0:.1f}s", file=sys.stderr)
        with open(os.path.join(args.golden, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump({"pixels": "((i*7919) % 2001)/1000 - 1", "cases": manifest}, f, indent=1)


if __name__ == "__main__":
    main()
