"""quantize_ppocr: the chosen convolutions become QLinearConv and the quantised graph, run in onnxruntime-node, stays
close to the float one on held-out inputs."""

import os
import shutil

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from ocr_tools.paths import repo_path
from ocr_tools.train import quantize_ppocr as q

needs_ort = pytest.mark.skipif(
    shutil.which("node") is None or not os.path.isdir(repo_path("node_modules", "onnxruntime-node")),
    reason="node and onnxruntime-node (npm ci) run the statistics",
)


def hardswish(x, name):
    gate = helper.make_node("HardSigmoid", [x], [name + "_gate"], alpha=1 / 6, beta=0.5)
    return [gate, helper.make_node("Mul", [x, name + "_gate"], [name])]


def small_model(seed=3, depthwise=False):
    """A PPLCNet-like stack in opset 9, as PaddleOCR exports it: a 3x3 convolution, then three 1x1 ones, each
    followed by hardswish but the last."""
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def conv(x, y, cin, cout, k):
        w = rng.normal(0, 1.5 / np.sqrt(cin * k * k), (cout, cin, k, k)).astype(np.float32)
        b = rng.normal(0, 1.0, cout).astype(np.float32)
        inits.extend([numpy_helper.from_array(w, y + "_w"), numpy_helper.from_array(b, y + "_b")])
        nodes.append(
            helper.make_node("Conv", [x, y + "_w", y + "_b"], [y], name=y, kernel_shape=[k, k], pads=[k // 2] * 4)
        )

    if depthwise:  # a 3x3 depthwise convolution first, as PPLCNet's blocks begin
        w = rng.normal(0, 0.5, (16, 1, 3, 3)).astype(np.float32)
        inits.extend(
            [
                numpy_helper.from_array(w, "dw_w"),
                numpy_helper.from_array(rng.normal(0, 1, 16).astype(np.float32), "dw_b"),
            ]
        )
        nodes.append(
            helper.make_node(
                "Conv", ["pixels", "dw_w", "dw_b"], ["dw"], name="dw", kernel_shape=[3, 3], pads=[1] * 4, group=16
            )
        )
    conv("dw" if depthwise else "pixels", "c0", 16, 16, 3)
    nodes.extend(hardswish("c0", "h0"))
    conv("h0", "c1", 16, 32, 1)
    nodes.extend(hardswish("c1", "h1"))
    conv("h1", "c2", 32, 32, 1)
    nodes.extend(hardswish("c2", "h2"))
    conv("h2", "features", 32, 8, 1)
    graph = helper.make_graph(
        nodes,
        "small",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["n", 16, 6, "w"])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["n", 8, 6, "w"])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])


def write_inputs(folder, count, seed=5):
    rng = np.random.default_rng(seed)
    for i in range(count):
        w = 24 + 8 * i
        x = np.sin(np.linspace(0, 3 + i, w))[None, None, None, :] * rng.normal(1, 0.5, (2, 16, 6, 1))
        x = (x + rng.normal(0, 0.3, (2, 16, 6, w))).astype(np.float32)
        x.tofile(os.path.join(folder, f"{i:05d}-2x16x6x{w}.f32"))


def test_best_range_clips_a_far_outlier_and_keeps_zero_exact():
    hist = np.zeros(2048)  # bins over [-1, 9]
    hist[:410] = 25000  # ten million values in [-1, 1]
    hist[2047] = 2  # and two near 9: 8-bit steps over [-1, 9] would cost more than clipping them
    lo, hi = q.best_range(hist, -1.0, 9.0)
    assert lo == pytest.approx(-1.0, abs=0.01) and 0.9 < hi < 1.5
    scale, zero = q.uint8_params(lo, hi)
    # uint8 0..255 spans the clip to half a step (0 itself is the integer `zero`)
    assert 0 < zero < 255
    assert abs(float(scale) * (0 - int(zero)) - lo) <= float(scale) / 2 + 1e-7
    assert abs(float(scale) * (255 - int(zero)) - hi) <= float(scale) / 2 + 1e-7
    # below hardswish's floor everything is one value: the clip need not reach further
    lo, hi = q.best_range(np.ones(2048), -40.0, 10.0, floor=q.HARDSWISH_FLOOR)
    assert lo >= q.HARDSWISH_FLOOR - 1e-9


def test_chooses_the_wide_pointwise_convolutions():
    model = q.to_opset(small_model())
    assert [o.version for o in model.opset_import if o.domain == ""] == [q.OPSET]
    assert q.pointwise_convs(model, min_channels=16, min_macs=256) == ["c1", "c2"]
    assert q.pointwise_convs(model, min_channels=8, min_macs=256) == ["c1", "c2", "features"]
    assert q.hardswish_inputs(model) == {"c0", "c1", "c2"}


@needs_ort
def test_quantised_graph_stays_close_to_the_float_one(tmp_path):
    model = q.to_opset(small_model())
    float_path = str(tmp_path / "float.onnx")
    onnx.save(model, float_path)
    calib = tmp_path / "calib"
    calib.mkdir()
    write_inputs(calib, 8)
    stats_files, held_out = q.calibration_files(str(calib))
    assert len(held_out) == 2
    names = q.pointwise_convs(model, min_channels=8, min_macs=256)
    stats = q.tensor_stats(model, sorted({t for pair in q.conv_tensors(model, names) for t in pair}), stats_files)
    assert all(len(stats[x]["mean"]) == c for x, c in (("h0", 16), ("h1", 32), ("h2", 32)))
    # without bias correction (no input means), for comparison
    uncorrected = q.quantize(q.to_opset(small_model()), names, {k: {**v, "mean": None} for k, v in stats.items()})
    uncorrected_path = str(tmp_path / "uncorrected.onnx")
    onnx.save(uncorrected, uncorrected_path)
    quantised = q.quantize(model, names, stats, weight_bits=7)
    onnx.checker.check_model(quantised)
    ops = [n.op_type for n in quantised.graph.node]
    assert ops.count("QLinearConv") == 3 and ops.count("Conv") == 1
    for t in quantised.graph.initializer:
        if t.data_type == TensorProto.INT8 and t.name.endswith("_weight_int8"):
            # 7-bit weights: a pair of uint8 x int8 products stays within int16 on any x86 CPU
            assert np.abs(numpy_helper.to_array(t).astype(np.int32)).max() <= 63
    int8_path = str(tmp_path / "int8.onnx")
    onnx.save(quantised, int8_path)
    report = q.compare(float_path, int8_path, held_out)
    assert set(report) == {"features"}
    # measured 0.014; a bias at 1.3x its scale gave 0.18, the correction's sign flipped 0.022
    assert 0 < report["features"]["relL2"] < 0.02, report
    assert report["features"]["relL2"] < q.compare(float_path, uncorrected_path, held_out)["features"]["relL2"]


@needs_ort
def test_a_named_depthwise_convolution_is_quantised_with_its_own_groups_bias_correction(tmp_path):
    model = q.to_opset(small_model(depthwise=True))
    float_path = str(tmp_path / "float.onnx")
    onnx.save(model, float_path)
    calib = tmp_path / "calib"
    calib.mkdir()
    write_inputs(calib, 8)
    stats_files, held_out = q.calibration_files(str(calib))
    names = ["dw", "c1"]
    stats = q.tensor_stats(model, sorted({t for pair in q.conv_tensors(model, names) for t in pair}), stats_files)
    quantised = q.quantize(model, names, stats)
    assert [n.name for n in quantised.graph.node if n.op_type == "QLinearConv"] == ["dw_int8", "c1_int8"]
    int8_path = str(tmp_path / "int8.onnx")
    onnx.save(quantised, int8_path)
    assert q.compare(float_path, int8_path, held_out)["features"]["relL2"] < 0.02
