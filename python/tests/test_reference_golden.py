"""The reference decoder is the engine's test oracle: its outputs on the tiny fixtures must stay those stored in
fixtures/tiny-model*/golden (the goldens the native decoder is tested against, token for token and layer by layer).
A change to ocr_tools.reference that moves them fails here; goldens are remade only on purpose, with
`PYTHONPATH=python python3 -m ocr_tools.reference.tiny_model` and `... -m ocr_tools.reference.focal_reference`.
The training model imports the reference and is tested against it (test_training_reference.py), never the reverse."""

import json
import math
import os

import pytest
import torch

from ocr_tools.paths import repo_path
from ocr_tools.reference.deepseek_decoder import load_decoder, load_tensors
from ocr_tools.reference.focal_reference import attention_cases
from ocr_tools.reference.tiny_model import GOLDEN_SEEDS, make_golden

# The stored goldens are f32 PyTorch outputs; another BLAS or CPU sums in another order, so hidden states and logits
# compare to a tolerance far below any real change (weights are ~0.15, logits of order 1-10) and tokens exactly.
ATOL = 2e-5


def relative_to_scale(got, want):
    return float((got - want).abs().max()) / max(1.0, float(want.abs().max()))


@pytest.fixture(scope="module", params=sorted(GOLDEN_SEEDS))
def fixture(request, tmp_path_factory):
    """(name, stored golden dir, recomputed golden dir): the recomputation loads the fixture's stored weights (f16 and
    bf16 fixtures computed in f32, as they were made) and reruns the golden cases with the fixture's seed."""
    name = request.param
    d = repo_path("fixtures", name)
    out = tmp_path_factory.mktemp(name)
    torch.set_num_threads(1)
    model = load_decoder(d, torch.float32).eval()
    make_golden(model, str(out), seed=GOLDEN_SEEDS[name])
    return name, os.path.join(d, "golden"), str(out)


def test_greedy_tokens_and_cases_equal_the_stored_golden(fixture):
    name, stored, fresh = fixture
    with open(os.path.join(stored, "golden.json")) as f:
        want = json.load(f)
    with open(os.path.join(fresh, "golden.json")) as f:
        got = json.load(f)
    assert sorted(got) == sorted(want)
    for case in want:
        for key, value in want[case].items():
            if key == "minGap":
                assert math.isclose(got[case][key], value, rel_tol=1e-3, abs_tol=1e-5), (name, case)
            else:
                assert got[case][key] == value, (name, case, key)


def test_inputs_hidden_states_and_logits_equal_the_stored_golden(fixture):
    name, stored, fresh = fixture
    want = load_tensors(os.path.join(stored, "golden.safetensors"))
    got = load_tensors(os.path.join(fresh, "golden.safetensors"))
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key].shape == want[key].shape, (name, key)
        if key.endswith(".visual"):
            assert torch.equal(got[key], want[key]), (name, key)  # the seeded inputs themselves
        else:
            assert relative_to_scale(got[key], want[key]) < ATOL, (name, key)


def test_focal_and_long_rswa_cases_equal_the_stored_golden(fixture):
    name, stored, _ = fixture
    with open(os.path.join(stored, "attention.json")) as f:
        want = json.load(f)
    got = attention_cases(os.path.dirname(stored))
    assert got["prefix"] == want["prefix"]
    assert [c["name"] for c in got["cases"]] == [c["name"] for c in want["cases"]]
    for g, w in zip(got["cases"], want["cases"]):
        for key in ("tokens", "focalLayers", "fixations", "window", "maxTokens", "focal"):
            assert g[key] == w[key], (name, w["name"], key)
        # (the smallest top-two logit gap of a run: a difference of logits, so it carries their summation-order error,
        # ~1e-6 on logits of order 1-10; the same tolerance as the greedy cases' minGap above)
        assert math.isclose(g["minGap"], w["minGap"], rel_tol=1e-3, abs_tol=1e-5), (name, w["name"])
