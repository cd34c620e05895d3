#!/usr/bin/python3
"""Static int8 for the heaviest convolutions of a PP-OCR model (fold_ppocr.py's output), for onnxruntime's CPU provider.

The PP-OCRv4 recogniser spends ~87 % of its onnxruntime time in convolutions, over half of it in the 1x1
convolutions of its two widest stages (240 and 480 channels). Those, and only those by default, become
QLinearConv: int8 weights (per output channel, symmetric), uint8 activations (one scale per tensor, from
calibration), int32 bias; a QuantizeLinear before each and a DequantizeLinear after, so the rest of the graph,
its fusions (convolution + hardswish) and its outputs stay float.

Why only those: quantising every convolution (with a uint8 hardswish between them) made the recogniser 1.5x
faster but changed 2-7 % of its greedy CTC characters on real lines; its early layers are the sensitive ones.
The chosen ones changed 0.5 %, less than reading each line alone instead of in its padded batch does (0.75 %).

  * ranges: per tensor the clip [lo, hi] (0 inside) that minimises the expected squared quantisation error over
    the calibration histogram; a tensor only a hardswish reads is clipped at -3 at most (hardswish is 0 below);
  * weights: round(w / s), s = max|w| / qmax per output channel, qmax 63 by default (--weight-bits 7): with 7-bit
    weights no pair of uint8 x int8 products exceeds int16, which x86 CPUs without VNNI (VPMADDUBSW) saturate at,
    so every x86 CPU computes the same integers;
  * bias correction: the bias absorbs the weights' rounding error at the calibration mean of the input,
    b -= (w_q - w) . E[x] per output channel;
  * the model is first converted to opset 12 (QLinearConv needs 10; the conversion is exact for these graphs).

Calibration: float32 tensors of the model's input named NAME-D0xD1x...Dn.f32 (scripts/vision-calib.mjs writes
the line front end's recogniser batches and detector inputs for given pages). Every 4th file is held out of the
statistics; the quantised model is compared with the float one on those (scripts/onnx-stats.mjs compare) and the
comparison printed. Statistics and comparison run in onnxruntime-node (node and npm ci needed).

usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.quantize_ppocr IN.onnx OUT.onnx --calib DIR
           [--min-channels 128 --min-macs 30000 | --convs NAME,...] [--weight-bits 7]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, version_converter

from ocr_tools.paths import repo_path

OPSET = 12
STATS = repo_path("scripts", "onnx-stats.mjs")
# the 1x1 convolutions quantised by default: at least MIN_CHANNELS in and out, at least MIN_MACS multiply-adds per
# output pixel (input x output channels): the recogniser's 128->240, 240->240, 240->480 and 480->480 ones; not its
# 128->128 one, nor the squeeze-excitation and neck ones that have 120 or fewer channels on a side
MIN_CHANNELS = 128
MIN_MACS = 30000
# hardswish(x) = x * clip(x/6 + 1/2, 0, 1) is 0 for x <= -3
HARDSWISH_FLOOR = -3.0


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def to_opset(model, version=OPSET):
    """The model in the default domain's `version` (kept when it is already that or newer)."""
    current = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    return model if current is not None and current >= version else version_converter.convert_version(model, version)


def pointwise_convs(model, min_channels=MIN_CHANNELS, min_macs=MIN_MACS):
    """Names of the 1x1, group-1 convolutions with constant weights, at least `min_channels` input and output
    channels and at least `min_macs` multiply-adds per output pixel."""
    inits = {t.name: t for t in model.graph.initializer}
    names = []
    for n in model.graph.node:
        if n.op_type != "Conv" or n.input[1] not in inits or attr(n, "group", 1) != 1:
            continue
        cout, cin, kh, kw = inits[n.input[1]].dims
        if (kh, kw) == (1, 1) and min(cin, cout) >= min_channels and cin * cout >= min_macs:
            names.append(n.name)
    return names


def hardswish_inputs(model):
    """Tensors read only by a hardswish (HardSigmoid(x) and the Mul of x by it)."""
    readers = {}
    for n in model.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    outputs = {o.name for o in model.graph.output}
    found = set()
    for t, rs in readers.items():
        gates = [r for r in rs if r.op_type == "HardSigmoid"]
        if t in outputs or len(rs) != 2 or len(gates) != 1:
            continue
        mul = next(r for r in rs if r is not gates[0])
        if mul.op_type == "Mul" and set(mul.input) == {t, gates[0].output[0]}:
            found.add(t)
    return found


def best_range(hist, lo, hi, floor=None, candidates=80):
    """The clip [a, b] (a <= 0 <= b) with the least expected squared error of 8-bit rounding and clipping over a
    histogram of `len(hist)` equal bins spanning [lo, hi]; values below `floor` count as `floor`."""
    h = np.asarray(hist, dtype=np.float64)
    c = lo + (np.arange(len(h)) + 0.5) * (hi - lo) / len(h)
    if floor is not None:
        c = np.maximum(c, floor)
    cmin, cmax = min(0.0, float(c.min())), max(0.0, float(c.max()))
    fractions = np.geomspace(0.02, 1.0, candidates)
    los = np.unique(np.append(cmin * fractions, cmin)) if cmin < 0 else np.zeros(1)
    his = np.unique(np.append(cmax * fractions, cmax)) if cmax > 0 else np.zeros(1)
    below = ((h * np.clip(los[:, None] - c[None, :], 0, None) ** 2)).sum(axis=1)  # [L]
    above = ((h * np.clip(c[None, :] - his[:, None], 0, None) ** 2)).sum(axis=1)  # [H]
    n_below = (h[None, :] * (c[None, :] < los[:, None])).sum(axis=1)
    n_above = (h[None, :] * (c[None, :] > his[:, None])).sum(axis=1)
    step = (his[None, :] - los[:, None]) / 255
    inside = h.sum() - n_below[:, None] - n_above[None, :]
    err = below[:, None] + above[None, :] + step**2 / 12 * inside
    err = np.where(step > 0, err, np.inf)
    i, j = np.unravel_index(np.argmin(err), err.shape)
    return float(los[i]), float(his[j])


def uint8_params(lo, hi):
    """Scale and zero point of uint8 for the clip [lo, hi] (lo <= 0 <= hi): 0 is exact."""
    scale = (hi - lo) / 255 or 1.0
    return np.float32(scale), np.uint8(np.clip(round(-lo / scale), 0, 255))


def conv_tensors(model, names):
    """Input and output tensor names of the named convolutions."""
    by_name = {n.name: n for n in model.graph.node}
    missing = [x for x in names if x not in by_name or by_name[x].op_type != "Conv"]
    if missing:
        raise ValueError(f"no convolution named {', '.join(missing)}")
    return [(by_name[x].input[0], by_name[x].output[0]) for x in names]


def tensor_stats(model, tensors, files, node="node"):
    """min, max, hist (2048 bins over [min, max]) and per-channel mean of `tensors` over the input files."""
    aug = onnx.ModelProto()
    aug.CopyFrom(model)
    have = {o.name for o in aug.graph.output}
    for t in tensors:
        if t not in have:
            aug.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
            have.add(t)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stats.onnx")
        onnx.save(aug, path)
        out = os.path.join(tmp, "stats.json")
        subprocess.run([node, STATS, "stats", path, out, *files], check=True)
        with open(out) as f:
            return json.load(f)


def quantize(model, names, stats, weight_bits=7):
    """The model with the named convolutions as QLinearConv (changed in place and returned); `stats` as tensor_stats
    gives them for each convolution's input and output."""
    g = model.graph
    qmax = 2 ** (weight_bits - 1) - 1
    inits = {t.name: t for t in g.initializer}
    clipped_at = hardswish_inputs(model)
    added = []
    params = {}

    def const(name, value):
        added.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def act(t):
        if t not in params:
            s = stats[t]
            lo, hi = best_range(s["hist"], s["min"], s["max"], HARDSWISH_FLOOR if t in clipped_at else None)
            scale, zero = uint8_params(lo, hi)
            params[t] = (const(t + "_scale", scale), const(t + "_zero", zero), float(scale))
        return params[t]

    chosen = set(names)
    quantised = {}
    nodes = []
    for n in g.node:
        if n.name not in chosen:
            nodes.append(n)
            continue
        x, y = n.input[0], n.output[0]
        xs, xz, x_scale = act(x)
        ys, yz, _ = act(y)
        if x not in quantised:
            quantised[x] = x + "_uint8"
            nodes.append(helper.make_node("QuantizeLinear", [x, xs, xz], [quantised[x]], name=x + "_quantise"))
        w = numpy_helper.to_array(inits[n.input[1]]).astype(np.float64)
        cout = w.shape[0]
        b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float64) if len(n.input) > 2 and n.input[2] else None
        peak = np.abs(w.reshape(cout, -1)).max(axis=1)
        w_scale = np.where(peak > 0, peak / qmax, 1.0)
        if b is not None:
            # the int32 bias b / (x_scale * w_scale) stays within 2^30
            w_scale = np.maximum(w_scale, np.abs(b) / (x_scale * 2**30))
        w_scale = w_scale.astype(np.float32).astype(np.float64)
        wq = np.clip(np.round(w / w_scale[:, None, None, None]), -qmax, qmax)
        mean = stats[x].get("mean")
        if mean is not None:
            # output channel m reads its group's input channels (all of them when group is 1)
            group = attr(n, "group", 1)
            mu = np.asarray(mean).reshape(group, -1)[np.arange(cout) // (cout // group)]
            error = ((wq * w_scale[:, None, None, None] - w).sum(axis=(2, 3)) * mu).sum(axis=1)
            b = (b if b is not None else np.zeros(cout)) - error
        inputs = [
            quantised[x],
            xs,
            xz,
            const(n.name + "_weight_int8", wq.astype(np.int8)),
            const(n.name + "_weight_scale", w_scale.astype(np.float32)),
            const(n.name + "_weight_zero", np.zeros(cout, np.int8)),
            ys,
            yz,
        ]
        if b is not None:
            inputs.append(const(n.name + "_bias_int32", np.round(b / (x_scale * w_scale)).astype(np.int32)))
        q = helper.make_node("QLinearConv", inputs, [y + "_uint8"], name=n.name + "_int8")
        q.attribute.extend(n.attribute)
        nodes.append(q)
        nodes.append(helper.make_node("DequantizeLinear", [y + "_uint8", ys, yz], [y], name=y + "_dequantise"))
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept + added)
    return model


def calibration_files(directory):
    files = sorted(glob.glob(os.path.join(directory, "*.f32")))
    if len(files) < 2:
        raise SystemExit(f"quantize_ppocr: {directory} holds {len(files)} .f32 tensors (2 or more needed)")
    held_out = files[3::4] or files[-1:]
    return [f for f in files if f not in held_out], held_out


def compare(reference, candidate, files, node="node"):
    """scripts/onnx-stats.mjs compare: per output relL2 (float) or ctcCER (CTC classes)."""
    out = subprocess.run(
        [node, STATS, "compare", reference, candidate, *files], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--calib", required=True, help="folder of the model's input tensors, NAME-D0xD1x...Dn.f32")
    ap.add_argument("--min-channels", type=int, default=MIN_CHANNELS, help="1x1 convolutions with this many channels")
    ap.add_argument("--min-macs", type=int, default=MIN_MACS, help="and this many multiply-adds per pixel")
    ap.add_argument("--convs", help="quantise these convolutions (comma-separated node names) instead")
    ap.add_argument("--weight-bits", type=int, default=7, choices=[7, 8])
    ap.add_argument("--node", default="node", help="the node binary that runs scripts/onnx-stats.mjs")
    args = ap.parse_args(argv)
    stats_files, held_out = calibration_files(args.calib)
    model = to_opset(onnx.load(args.input))
    names = args.convs.split(",") if args.convs else pointwise_convs(model, args.min_channels, args.min_macs)
    if not names:
        raise SystemExit("quantize_ppocr: no convolution to quantise")
    tensors = sorted({t for pair in conv_tensors(model, names) for t in pair})
    print(f"quantize_ppocr: {len(names)} convolutions, statistics over {len(stats_files)} tensors", file=sys.stderr)
    stats = tensor_stats(model, tensors, stats_files, args.node)
    quantize(model, names, stats, args.weight_bits)
    onnx.checker.check_model(model)
    onnx.save(model, args.output + ".tmp")
    os.replace(args.output + ".tmp", args.output)
    report = compare(args.input, args.output, held_out, args.node)
    print(json.dumps({"convolutions": names, "held_out": len(held_out), "vs_float": report}, indent=1))


if __name__ == "__main__":
    main()
