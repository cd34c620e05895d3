"""Safetensors I/O that never holds a whole multi-GB checkpoint in memory: memory-mapped reads, streamed writes."""
import json
import os
import struct
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy as np
import torch

_NP = {"F32": np.float32, "F16": np.float16, "BF16": np.int16, "I64": np.int64, "I32": np.int32}
_SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4}
_ST = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64", torch.int32: "I32"}


def read_header(path: str) -> Tuple[int, Dict[str, dict]]:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    return 8 + n, header


def checkpoint_files(checkpoint_dir: str) -> Dict[str, str]:
    """tensor name → file, through model.safetensors.index.json when there is one."""
    index = os.path.join(checkpoint_dir, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index, encoding="utf-8") as f:
            wm = json.load(f)["weight_map"]
        return {k: os.path.join(checkpoint_dir, v) for k, v in wm.items()}
    out = {}
    for name in sorted(os.listdir(checkpoint_dir)):
        if name.endswith(".safetensors"):
            _, h = read_header(os.path.join(checkpoint_dir, name))
            out.update({k: os.path.join(checkpoint_dir, name) for k in h})
    return out


def load_tensors(
    checkpoint_dir: str, want: Callable[[str], bool], dtype: torch.dtype = torch.float32
) -> Dict[str, torch.Tensor]:
    """Loads only the tensors whose names pass `want`, converted to `dtype`, reading each through a memory map."""
    files = checkpoint_files(checkpoint_dir)
    out: Dict[str, torch.Tensor] = {}
    headers: Dict[str, Tuple[int, Dict[str, dict]]] = {}
    for name, path in files.items():
        if not want(name):
            continue
        if path not in headers:
            headers[path] = read_header(path)
        base, header = headers[path]
        info = header[name]
        s, e = info["data_offsets"]
        count = (e - s) // _SIZE[info["dtype"]]
        arr = np.memmap(path, dtype=_NP[info["dtype"]], mode="r", offset=base + s, shape=(count,))
        t = torch.from_numpy(np.array(arr))
        if info["dtype"] == "BF16":
            t = t.view(torch.int16).view(torch.bfloat16)
        out[name] = t.reshape(info["shape"]).to(dtype)
    return out


class StreamWriter:
    """Writes a safetensors file tensor by tensor: the header is planned first from (name, dtype, shape)."""

    def __init__(
        self, path: str, plan: List[Tuple[str, torch.dtype, List[int]]], metadata: Optional[Dict[str, str]] = None
    ):
        self.path = path
        self.plan = plan
        header: Dict[str, dict] = {"__metadata__": metadata or {"format": "pt"}}
        offset = 0
        for name, dtype, shape in plan:
            n = int(np.prod(shape)) * _SIZE[_ST[dtype]]
            header[name] = {"dtype": _ST[dtype], "shape": list(shape), "data_offsets": [offset, offset + n]}
            offset += n
        raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
        raw += b" " * ((8 - len(raw) % 8) % 8)
        self.tmp = path + ".partial"
        self.f = open(self.tmp, "wb")
        self.f.write(struct.pack("<Q", len(raw)))
        self.f.write(raw)
        self.index = 0

    def write(self, name: str, t: torch.Tensor) -> None:
        pname, dtype, shape = self.plan[self.index]
        if name != pname or t.dtype != dtype or list(t.shape) != list(shape):
            raise ValueError(f"expected {pname} {dtype} {shape}, got {name} {t.dtype} {list(t.shape)}")
        t = t.contiguous()
        if t.dtype == torch.bfloat16:
            t = t.view(torch.int16)
        self.f.write(t.numpy().tobytes())
        self.index += 1

    def close(self) -> None:
        if self.index != len(self.plan):
            raise ValueError(f"wrote {self.index} of {len(self.plan)} tensors")
        self.f.close()
        os.replace(self.tmp, self.path)
