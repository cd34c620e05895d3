"""Weight-space interpolation of two checkpoints of one model (robust fine-tuning, Wortsman et al. 2022, "WiSE-FT"):
(1 - alpha) * base + alpha * fine-tuned, parameter by parameter. A fine-tune on a narrower corpus forgets what only the
base saw (the real-document corpus has no Cyrillic and few tables); the interpolated weights keep more of both."""

# Usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.interpolate BASE.pt TUNED.pt --alpha 0.5 --out OUT.pt
import argparse

import torch


def interpolate(base: dict, tuned: dict, alpha: float) -> dict:
    """The checkpoint (1 - alpha) * base + alpha * tuned; meta from the tuned one, with the mix recorded."""
    a, b = base["state_dict"], tuned["state_dict"]
    if set(a) != set(b) or any(a[k].shape != b[k].shape for k in a):
        raise ValueError("the checkpoints are not of one architecture")
    state = {k: ((1 - alpha) * a[k].float() + alpha * b[k].float()).to(b[k].dtype) for k in b}
    meta = dict(tuned.get("meta") or {})
    meta["interpolated"] = {"alpha": alpha, "base_steps": (base.get("meta") or {}).get("steps")}
    return {**tuned, "state_dict": state, "meta": meta}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("base")
    ap.add_argument("tuned")
    ap.add_argument("--alpha", type=float, default=0.5, help="share of the fine-tuned weights")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not 0 <= args.alpha <= 1:
        ap.error("--alpha must be within [0, 1]")
    load = lambda p: torch.load(p, map_location="cpu", weights_only=False)  # noqa: E731
    torch.save(interpolate(load(args.base), load(args.tuned), args.alpha), args.out)


if __name__ == "__main__":
    main()
