"""Weight-space interpolation of two checkpoints (ocr_tools.train.interpolate)."""

import pytest
import torch

from ocr_tools.train.interpolate import interpolate


def ckpt(value, dtype=torch.bfloat16, steps=1):
    return {
        "kind": "lines",
        "meta": {"steps": steps},
        "state_dict": {
            "w": torch.full((2, 3), value, dtype=dtype),
            "pca": torch.full((4,), value, dtype=torch.float32),
        },
    }


def test_mixes_each_parameter_and_keeps_its_dtype():
    out = interpolate(ckpt(1.0, steps=10), ckpt(3.0, steps=20), 0.25)
    assert torch.equal(out["state_dict"]["w"], torch.full((2, 3), 1.5, dtype=torch.bfloat16))
    assert out["state_dict"]["pca"].dtype == torch.float32
    assert out["meta"] == {"steps": 20, "interpolated": {"alpha": 0.25, "base_steps": 10}}
    # the ends are the checkpoints themselves
    assert torch.equal(interpolate(ckpt(1.0), ckpt(3.0), 0.0)["state_dict"]["w"], ckpt(1.0)["state_dict"]["w"])
    assert torch.equal(interpolate(ckpt(1.0), ckpt(3.0), 1.0)["state_dict"]["w"], ckpt(3.0)["state_dict"]["w"])


def test_refuses_checkpoints_of_two_architectures():
    other = ckpt(1.0)
    other["state_dict"]["w"] = torch.zeros(3, 3, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="one architecture"):
        interpolate(ckpt(1.0), other, 0.5)
