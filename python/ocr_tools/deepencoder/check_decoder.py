"""Full-size decoder check, reference side: recomputes check_decoder.mjs's run with the PyTorch reference decoder,
one layer in memory at a time (fp32 compute from the bf16 checkpoint), and compares layer by layer and token by token.

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.deepencoder.check_decoder <bundle-dir> <dump-dir>
"""
import json
import math
import os
import sys
import time

import numpy as np
import torch

from ocr_tools.deepencoder.safetensors_stream import load_tensors
from ocr_tools.reference.deepseek_decoder import (
    KIND_EXTENDED,
    KIND_GENERATED,
    DecoderConfig,
    DecoderLayer,
    RMSNorm,
    causal_mask,
    rope_cos_sin,
    rswa_mask,
)


def main() -> None:
    bundle, dump = sys.argv[1], sys.argv[2]
    torch.set_num_threads(2)
    with open(os.path.join(bundle, "model.json"), encoding="utf-8") as f:
        model_json = json.load(f)
    cfg = DecoderConfig.from_dict(model_json["decoder"])
    with open(os.path.join(dump, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    ids, vs, vc, window = summary["ids"], summary["visualStart"], summary["visualCount"], summary["window"]
    H = cfg.hidden_size
    visual = torch.tensor(
        [[0.05 * math.sin(0.37 * r + 0.11 * c) for c in range(H)] for r in range(vc)], dtype=torch.float32
    )
    emb = load_tensors(bundle, lambda n: n == "model.embed_tokens.weight")["model.embed_tokens.weight"]
    native_hidden = np.fromfile(os.path.join(dump, "prefix-hidden.f32"), dtype="<f4").reshape(
        cfg.num_hidden_layers, len(ids), H
    )

    report = {}
    probes = {}
    for kind in ("full", "rswa"):
        run = summary["runs"][kind]
        gen, fed = run["tokens"], run["fed"]
        # the native decoder's sequence: prefix, the generated tokens it fed back, then one extended probe token
        seq = ids + gen[:fed] + [run["probeToken"]]
        x = emb[torch.tensor(seq)].clone()
        x[vs : vs + vc] = visual
        kinds = [KIND_EXTENDED] * len(ids) + [KIND_GENERATED] * fed + [KIND_EXTENDED]
        T = len(seq)
        mask = rswa_mask(kinds, window) if kind == "rswa" else causal_mask(T)
        bias = torch.zeros(T, T).masked_fill(~mask, torch.finfo(torch.float32).min)[None, None]
        cos, sin = rope_cos_sin(torch.arange(T)[None], cfg.head_dim, cfg.rope_theta, torch.float32)
        layer_err = []
        t0 = time.time()
        with torch.no_grad():
            for li in range(cfg.num_hidden_layers):
                prefix = f"model.layers.{li}."
                w = load_tensors(bundle, lambda n: n.startswith(prefix))
                layer = DecoderLayer(cfg, li)
                layer.load_state_dict({k[len(prefix) :]: v for k, v in w.items()}, strict=True)
                x = layer(x[None], cos, sin, bias)[0]
                if kind == "full":
                    ref = x[: len(ids)].numpy()
                    diff = np.abs(native_hidden[li] - ref)
                    layer_err.append(
                        {
                            "layer": li,
                            "max_abs": float(diff.max()),
                            "max_ref": float(np.abs(ref).max()),
                            "rel_rms": float(np.sqrt((diff**2).mean() / (ref**2).mean())),
                        }
                    )
                    print(
                        f"layer {li:2d}: max|diff| {diff.max():.3e}  max|ref| {np.abs(ref).max():.3f}  rel rms {layer_err[-1]['rel_rms']:.3e}",
                        file=sys.stderr,
                    )
                del w, layer
            norm = RMSNorm(H, cfg.rms_norm_eps)
            norm.weight.data = load_tensors(bundle, lambda n: n == "model.norm.weight")["model.norm.weight"]
            head = load_tensors(bundle, lambda n: n == "lm_head.weight")["lm_head.weight"]
            logits = norm(x[len(ids) - 1 :]) @ head.T  # positions whose next token was generated, then the probe
        probe_ref = logits[-1].numpy()
        logits = logits[: len(gen)]
        top2 = torch.topk(logits, 2, dim=-1)
        ref_tokens = top2.indices[:, 0].tolist()
        margins = (top2.values[:, 0] - top2.values[:, 1]).tolist()
        agree = [a == b for a, b in zip(ref_tokens, gen)]
        # a disagreement only counts when the reference's own top-2 margin is clear of bf16/f32 rounding
        clear = [not ok and m > 1e-2 for ok, m in zip(agree, margins)]
        native_prefix_logits = np.fromfile(os.path.join(dump, f"prefix-logits-{kind}.f32"), dtype="<f4")
        pl = logits[0].numpy()
        native_probe = np.fromfile(os.path.join(dump, f"probe-logits-{kind}.f32"), dtype="<f4")
        probes[kind] = probe_ref
        report[kind] = {
            "probe_logits_max_abs": float(np.abs(native_probe - probe_ref).max()),
            "probe_logits_max_ref": float(np.abs(probe_ref).max()),
            "tokens": len(gen),
            "agree": sum(agree),
            "clear_disagreements": sum(clear),
            "min_margin": min(margins),
            "prefix_logits_max_abs": float(np.abs(native_prefix_logits - pl).max()),
            "prefix_logits_max_ref": float(np.abs(pl).max()),
            "reference_seconds": round(time.time() - t0, 1),
            "layers": layer_err,
        }
        print(
            f"{kind}: probe logits after {fed} generated entries max|diff| {report[kind]['probe_logits_max_abs']:.3e} of max {report[kind]['probe_logits_max_ref']:.2f}",
            file=sys.stderr,
        )
        print(
            f"{kind}: {sum(agree)}/{len(gen)} greedy tokens agree ({sum(clear)} clear disagreements), "
            f"last-prefix logits max|diff| {report[kind]['prefix_logits_max_abs']:.3e} of max {report[kind]['prefix_logits_max_ref']:.2f}",
            file=sys.stderr,
        )
    # the two policies must differ where the window cuts generated keys, or the R-SWA check proves nothing
    report["full_vs_rswa_probe_max_abs"] = float(np.abs(probes["full"] - probes["rswa"]).max())
    print(
        f"reference probe logits, full vs R-SWA: max|diff| {report['full_vs_rswa_probe_max_abs']:.3e}", file=sys.stderr
    )
    with open(os.path.join(dump, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    runs = [report["full"], report["rswa"]]
    ok = (
        all(r["clear_disagreements"] == 0 for r in runs)
        and all(l["rel_rms"] < 1e-3 for l in report["full"]["layers"])
        and all(r["probe_logits_max_abs"] < 1e-3 * max(1.0, r["probe_logits_max_ref"]) for r in runs)
        and report["full_vs_rswa_probe_max_abs"] > 10 * max(r["probe_logits_max_abs"] for r in runs)
    )
    print("OK" if ok else "FAIL", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
