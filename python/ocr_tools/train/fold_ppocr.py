#!/usr/bin/python3
"""Simplifies the PP-OCRv4 detector / recogniser graphs for onnxruntime's CPU provider, same function.

PaddlePaddle's export of PPLCNetV3 writes every "learnable affine block" (y = a*x + b, scalars a, b) and
every hardswish (x * clip(x + 3, 0, 6) / 6) as separate element-wise nodes: in the recogniser they are
over half of onnxruntime's kernel time, and each breaks its NCHWc chain of convolutions (a reorder before
and after). This script rewrites, in real arithmetic exactly:
  * Conv -> Mul(a) -> Add(b)          into Conv with weights a*W, bias a*B + b;
  * Mul(c) -> Add(d) -> 1x1 Conv(pad 0) into that Conv with weights c*W, bias B + d*sum(W);
  * the other Mul(c) -> Add(d) before a (padded) Conv into a 1x1 depthwise Conv (c, d);
  * Add(3) -> Clip(0, 6) -> Mul(x) -> Div(6) into x * HardSigmoid(x; 1/6, 1/2) (HardSwish needs opset 14);
  * Constant nodes into initializers.
Float rounding differs (a product folded into a weight), so outputs agree to float precision, not bits.

usage: PYTHONPATH=python /usr/bin/python3 -m ocr_tools.train.fold_ppocr IN.onnx OUT.onnx (export.py --ppocr runs it on both files)
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def fold(m):
    """The rewritten model (the graph is changed in place)."""
    g = m.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    keep = []
    for n in g.node:
        if n.op_type == "Constant" and n.attribute[0].name == "value":
            inits[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        else:
            keep.append(n)
    nodes = keep
    outputs = {o.name for o in g.output}

    def consumers(name):
        return [n for n in nodes if name in n.input]

    def scalar(name):
        v = inits.get(name)
        return None if v is None or v.size != 1 else float(v.reshape(()))

    def other(n, name):
        a, b = n.input
        return b if a == name else a

    def attr(n, key, default=None):
        for a in n.attribute:
            if a.name == key:
                return helper.get_attribute_value(a)
        return default

    def sole(name):
        c = consumers(name)
        return c[0] if len(c) == 1 and name not in outputs else None

    folded = {"after": 0, "before": 0, "affine": 0, "hardswish": 0}
    changed = True
    while changed:
        changed = False
        # Conv -> Mul(a) [-> Add(b)]
        for conv in [n for n in nodes if n.op_type == "Conv"]:
            mul = sole(conv.output[0])
            if mul is None or mul.op_type != "Mul":
                continue
            a = scalar(other(mul, conv.output[0]))
            if a is None:
                continue
            add = sole(mul.output[0])
            b = scalar(other(add, mul.output[0])) if add is not None and add.op_type == "Add" else None
            w = inits[conv.input[1]].astype(np.float64)
            bias = inits[conv.input[2]].astype(np.float64) if len(conv.input) > 2 else np.zeros(w.shape[0])
            w, bias = w * a, bias * a + (b or 0.0)
            last = add if b is not None else mul
            wn, bn = conv.input[1] + "_folded", (conv.input[1] + "_bias_folded")
            inits[wn], inits[bn] = w.astype(np.float32), bias.astype(np.float32)
            conv.input[:] = [conv.input[0], wn, bn]
            conv.output[0] = last.output[0]
            nodes = [n for n in nodes if n is not mul and n is not last]
            folded["after"] += 1
            changed = True
            break
        if changed:
            continue
        # Mul(c) -> Add(d) -> 1x1 Conv without padding (every consumer)
        for mul in [n for n in nodes if n.op_type == "Mul"]:
            consts = [i for i in mul.input if scalar(i) is not None]
            if len(consts) != 1:
                continue
            c = scalar(consts[0])
            x = other(mul, consts[0])
            add = sole(mul.output[0])
            if add is None or add.op_type != "Add":
                continue
            d = scalar(other(add, mul.output[0]))
            if d is None:
                continue
            convs = consumers(add.output[0])
            if (
                add.output[0] in outputs
                or not convs
                or any(
                    k.op_type != "Conv"
                    or list(attr(k, "kernel_shape", [])) != [1, 1]
                    or any(attr(k, "pads", [0, 0, 0, 0]))
                    or attr(k, "group", 1) != 1
                    for k in convs
                )
            ):
                continue
            for k in convs:
                w = inits[k.input[1]].astype(np.float64)
                bias = inits[k.input[2]].astype(np.float64) if len(k.input) > 2 else np.zeros(w.shape[0])
                bias = bias + d * w.sum(axis=(1, 2, 3))
                w = w * c
                wn, bn = k.input[1] + "_pre_folded", k.input[1] + "_pre_bias_folded"
                inits[wn], inits[bn] = w.astype(np.float32), bias.astype(np.float32)
                k.input[:] = [x, wn, bn]
            nodes = [n for n in nodes if n is not mul and n is not add]
            folded["before"] += 1
            changed = True
            break
        if changed:
            continue
        # Mul(c) -> Add(d) feeding padded convolutions only: a 1x1 depthwise Conv (stays in onnxruntime's NCHWc layout)
        for mul in [n for n in nodes if n.op_type == "Mul"]:
            consts = [i for i in mul.input if scalar(i) is not None]
            if len(consts) != 1:
                continue
            c = scalar(consts[0])
            x = other(mul, consts[0])
            add = sole(mul.output[0])
            if add is None or add.op_type != "Add" or scalar(other(add, mul.output[0])) is None:
                continue
            d = scalar(other(add, mul.output[0]))
            convs = consumers(add.output[0])
            if add.output[0] in outputs or not convs or any(k.op_type != "Conv" for k in convs):
                continue
            channels = {inits[k.input[1]].shape[1] * attr(k, "group", 1) for k in convs}
            if len(channels) != 1:
                continue
            ch = channels.pop()
            name = add.output[0]
            inits[name + "_affine_w"] = np.full((ch, 1, 1, 1), c, np.float32)
            inits[name + "_affine_b"] = np.full((ch,), d, np.float32)
            conv = helper.make_node(
                "Conv",
                [x, name + "_affine_w", name + "_affine_b"],
                [name],
                name=name + "_affine",
                group=ch,
                kernel_shape=[1, 1],
            )
            at = nodes.index(mul)
            nodes = [n for n in nodes if n is not mul and n is not add]
            nodes.insert(at, conv)
            folded["affine"] += 1
            changed = True
            break
        if changed:
            continue
        # Add(x, 3) -> Clip(0, 6) -> Mul(x, .) -> Div(6)
        for add in [n for n in nodes if n.op_type == "Add"]:
            consts = [i for i in add.input if scalar(i) is not None]
            if len(consts) != 1 or scalar(consts[0]) != 3.0:
                continue
            x = other(add, consts[0])
            clip = sole(add.output[0])
            if clip is None or clip.op_type != "Clip":
                continue
            # Clip's bounds: inputs from opset 11, attributes before
            lo = scalar(clip.input[1]) if len(clip.input) > 1 and clip.input[1] else attr(clip, "min")
            hi = scalar(clip.input[2]) if len(clip.input) > 2 and clip.input[2] else attr(clip, "max")
            if lo != 0.0 or hi != 6.0:
                continue
            mul = sole(clip.output[0])
            if mul is None or mul.op_type != "Mul" or other(mul, clip.output[0]) != x:
                continue
            div = sole(mul.output[0])
            if div is None or div.op_type != "Div" or scalar(div.input[1]) != 6.0:
                continue
            # x * hardsigmoid(x) with alpha 1/6, beta 1/2 (HardSwish itself needs opset 14; the graphs are 9 and 11)
            name = div.output[0]
            hs = helper.make_node("HardSigmoid", [x], [name + "_gate"], name=name + "_gate", alpha=1.0 / 6.0, beta=0.5)
            gate = helper.make_node("Mul", [x, name + "_gate"], [name], name=name + "_hardswish")
            at = nodes.index(add)
            nodes = [n for n in nodes if n not in (add, clip, mul, div)]
            nodes[at:at] = [hs, gate]
            folded["hardswish"] += 1
            changed = True
            break

    used = {i for n in nodes for i in n.input}
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(numpy_helper.from_array(v, k) for k, v in inits.items() if k in used)
    onnx.checker.check_model(m)
    print(f"fold_ppocr: {folded}, {len(nodes)} nodes", file=sys.stderr)
    return m


if __name__ == "__main__":
    onnx.save(fold(onnx.load(sys.argv[1])), sys.argv[2])
