"""Plain PyTorch reference of the DeepSeek-OCR decoder family: golden dumps, training, and the ONNX export."""
# The native decoder (ops/) is checked against this file layer by layer, and the default model is trained with
# it, so it follows the HF DeepSeek-V2 modelling code's numerics (fp32 RMSNorm and gate, rotate-half
# RoPE, MoE weights applied in fp32) while staying small enough to read top to bottom.

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------------


@dataclass
class DecoderConfig:
    vocab_size: int = 512
    hidden_size: int = 256
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 4
    head_dim: int = 64
    intermediate_size: int = 768
    moe_intermediate_size: int = 128
    n_routed_experts: int = 8
    num_experts_per_tok: int = 2
    n_shared_experts: int = 1
    first_k_dense_replace: int = 1
    norm_topk_prob: bool = False
    routed_scaling_factor: float = 1.0
    scoring_func: str = "softmax"
    topk_method: str = "greedy"
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    max_position_embeddings: int = 32768
    tie_word_embeddings: bool = False
    weights: List[str] = field(default_factory=lambda: ["model.safetensors"])

    @classmethod
    def from_dict(cls, d: dict) -> "DecoderConfig":
        """Builds a config from the `decoder` section of model.json (HF DeepSeek-V2 keys); unknown keys are ignored."""
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in d.items() if k in known and v is not None}
        cfg = cls(**kwargs)
        if "head_dim" not in d or d.get("head_dim") is None:
            cfg.head_dim = cfg.hidden_size // cfg.num_attention_heads
        if "num_key_value_heads" not in d or d.get("num_key_value_heads") is None:
            cfg.num_key_value_heads = cfg.num_attention_heads
        cfg.validate()
        return cfg

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def validate(self) -> None:
        if self.num_attention_heads % self.num_key_value_heads != 0:
            raise ValueError("num_attention_heads must be a multiple of num_key_value_heads")
        if self.head_dim % 2 != 0:
            raise ValueError("head_dim must be even (rotate-half RoPE)")
        if self.scoring_func != "softmax":
            raise ValueError(f"scoring_func {self.scoring_func!r} not supported (softmax only)")
        if self.topk_method != "greedy":
            raise ValueError(f"topk_method {self.topk_method!r} not supported (greedy only)")
        if self.n_routed_experts and self.num_experts_per_tok > self.n_routed_experts:
            raise ValueError("num_experts_per_tok exceeds n_routed_experts")

    def is_moe_layer(self, layer_index: int) -> bool:
        return bool(self.n_routed_experts) and layer_index >= self.first_k_dense_replace


# --------------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        input_dtype = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(input_dtype)


def rope_cos_sin(position_ids: torch.Tensor, head_dim: int, theta: float, dtype: torch.dtype):
    """cos/sin tables [B, T, head_dim] for rotate-half RoPE; computed in fp32 from integer positions."""
    inv_freq = 1.0 / (
        theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32, device=position_ids.device) / head_dim)
    )
    freqs = position_ids.to(torch.float32)[..., None] * inv_freq  # [B, T, head_dim/2]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    # x [B, heads, T, D]; cos/sin [B, T, D]
    return x * cos[:, None] + rotate_half(x) * sin[:, None]


class Attention(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.cfg = cfg
        h, nh, nkv, d = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        self.q_proj = nn.Linear(h, nh * d, bias=False)
        self.k_proj = nn.Linear(h, nkv * d, bias=False)
        self.v_proj = nn.Linear(h, nkv * d, bias=False)
        self.o_proj = nn.Linear(nh * d, h, bias=False)

    def forward(self, x, cos, sin, mask_bias):
        cfg = self.cfg
        B, T, _ = x.shape
        nh, nkv, d = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        q = self.q_proj(x).view(B, T, nh, d).transpose(1, 2)
        k = self.k_proj(x).view(B, T, nkv, d).transpose(1, 2)
        v = self.v_proj(x).view(B, T, nkv, d).transpose(1, 2)
        q = apply_rope(q, cos, sin)
        k = apply_rope(k, cos, sin)
        if nkv != nh:
            k = k.repeat_interleave(nh // nkv, dim=1)
            v = v.repeat_interleave(nh // nkv, dim=1)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d)  # [B, nh, T, T]
        scores = scores.to(torch.float32) + mask_bias
        probs = torch.softmax(scores, dim=-1).to(q.dtype)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(B, T, nh * d)
        return self.o_proj(out)


class MLP(nn.Module):
    """SwiGLU: down(silu(gate(x)) * up(x))."""

    def __init__(self, hidden_size: int, intermediate_size: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MoEGate(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.cfg = cfg
        self.weight = nn.Parameter(torch.empty(cfg.n_routed_experts, cfg.hidden_size))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))

    def forward(self, x_flat: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """x_flat [N, H] → (expert ids [N, k] long, weights [N, k] fp32)."""
        cfg = self.cfg
        logits = F.linear(x_flat.to(torch.float32), self.weight.to(torch.float32))
        scores = logits.softmax(dim=-1)
        topk_idx = topk_lowest_index_ties(scores, cfg.num_experts_per_tok)
        topk_weight = scores.gather(-1, topk_idx)
        if cfg.num_experts_per_tok > 1 and cfg.norm_topk_prob:
            topk_weight = topk_weight / (topk_weight.sum(dim=-1, keepdim=True) + 1e-20)
        else:
            topk_weight = topk_weight * cfg.routed_scaling_factor
        return topk_idx, topk_weight


def topk_lowest_index_ties(scores: torch.Tensor, k: int) -> torch.Tensor:
    """Indices of the k largest scores along the last dim, equal scores ordered by the lowest index
    (torch.topk leaves ties unspecified; every native backend breaks them this way)."""
    _, order = torch.sort(scores, dim=-1, descending=True, stable=True)
    return order[..., :k]


class MoE(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.cfg = cfg
        self.experts = nn.ModuleList(
            [MLP(cfg.hidden_size, cfg.moe_intermediate_size) for _ in range(cfg.n_routed_experts)]
        )
        self.gate = MoEGate(cfg)
        if cfg.n_shared_experts:
            self.shared_experts = MLP(cfg.hidden_size, cfg.moe_intermediate_size * cfg.n_shared_experts)
        else:
            self.shared_experts = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shape = x.shape
        x_flat = x.reshape(-1, shape[-1])
        topk_idx, topk_weight = self.gate(x_flat)
        routed = torch.zeros(x_flat.shape, dtype=torch.float32, device=x.device)
        # One batched call per expert over the tokens routed to it (no per-token Python loop).
        for e, expert in enumerate(self.experts):
            token_ids, slot_ids = (topk_idx == e).nonzero(as_tuple=True)
            if token_ids.numel() == 0:
                continue
            y = expert(x_flat.index_select(0, token_ids)).to(torch.float32)
            routed.index_add_(0, token_ids, y * topk_weight[token_ids, slot_ids][:, None])
        out = routed.to(x.dtype).reshape(shape)
        if self.shared_experts is not None:
            out = out + self.shared_experts(x)
        return out


class DecoderLayer(nn.Module):
    def __init__(self, cfg: DecoderConfig, layer_index: int):
        super().__init__()
        self.self_attn = Attention(cfg)
        self.mlp = MoE(cfg) if cfg.is_moe_layer(layer_index) else MLP(cfg.hidden_size, cfg.intermediate_size)
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)

    def forward(self, x, cos, sin, mask_bias):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask_bias)
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x


class DecoderModel(nn.Module):
    """Holds the `model.*` tensors so state_dict names match the HF checkpoint."""

    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList([DecoderLayer(cfg, i) for i in range(cfg.num_hidden_layers)])
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        # Rows placed after each visual grid row / after each view by the sequence layout.
        self.image_newline = nn.Parameter(torch.randn(cfg.hidden_size) * 0.02)
        self.view_seperator = nn.Parameter(torch.randn(cfg.hidden_size) * 0.02)


class Decoder(nn.Module):
    def __init__(self, cfg: DecoderConfig):
        super().__init__()
        self.cfg = cfg
        self.model = DecoderModel(cfg)
        self.lm_head = None if cfg.tie_word_embeddings else nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.model.embed_tokens(ids)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        if self.lm_head is None:
            return F.linear(hidden, self.model.embed_tokens.weight)
        return self.lm_head(hidden)

    def forward(
        self,
        inputs_embeds: torch.Tensor,
        position_ids: torch.Tensor,
        attn_mask: torch.Tensor,
        output_hidden_states: bool = False,
    ):
        """inputs_embeds [B,T,H], position_ids [B,T] long, attn_mask [B,T,T] or [T,T] bool (True = query
        may attend key). Returns logits [B,T,V] (fp32 when the model is), and with output_hidden_states
        the list of hidden states after each layer (before the final norm)."""
        cfg = self.cfg
        x = inputs_embeds
        if position_ids.dim() == 1:
            position_ids = position_ids[None].expand(x.shape[0], -1)
        cos, sin = rope_cos_sin(position_ids, cfg.head_dim, cfg.rope_theta, x.dtype)
        if attn_mask.dim() == 2:
            attn_mask = attn_mask[None]
        # Additive bias in fp32; a fully masked row (never produced by our layouts) gives uniform weights, not NaN.
        mask_bias = torch.zeros(attn_mask.shape, dtype=torch.float32, device=x.device)
        mask_bias = mask_bias.masked_fill(~attn_mask.bool(), torch.finfo(torch.float32).min)[:, None]
        hidden_states = []
        for layer in self.model.layers:
            x = layer(x, cos, sin, mask_bias)
            if output_hidden_states:
                hidden_states.append(x)
        logits = self.logits(self.model.norm(x))
        if output_hidden_states:
            return logits, hidden_states
        return logits

    @torch.no_grad()
    def init_random(self, seed: int, std: float = 0.02) -> "Decoder":
        """Deterministic random weights (norm weights near 1) for fixtures and benchmarks."""
        g = torch.Generator().manual_seed(seed)
        for name, p in self.named_parameters():
            if name.endswith("layernorm.weight") or name == "model.norm.weight":
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=g))
            elif name.endswith("mlp.gate.weight"):
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)  # spread the router so top-k is well separated
            else:
                p.copy_(torch.randn(p.shape, generator=g) * std)
        return self


# --------------------------------------------------------------------------------------------------
# Masks (True = query may attend key)
# --------------------------------------------------------------------------------------------------

KIND_EXTENDED = 0  # BOS / prompt text given by the caller
KIND_VISUAL = 1  # visual embedding rows (extended too; may be retired)
KIND_GENERATED = 2  # sampled tokens fed back


def causal_mask(T: int, device=None) -> torch.Tensor:
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def rswa_mask(kinds: Sequence[int] | torch.Tensor, window: int) -> torch.Tensor:
    """[T,T] R-SWA mask. Extended/visual keys are seen by every later query; a generated key is seen by
    query i only if it is among the last `window` generated entries at positions <= i (a generated
    query counts itself; an extended query sees the last `window` generated entries before it)."""
    kinds_t = torch.as_tensor(kinds, dtype=torch.long)
    T = kinds_t.numel()
    generated = kinds_t == KIND_GENERATED
    gen_count_incl = torch.cumsum(generated.long(), 0)  # generated entries at positions <= i
    gen_index = gen_count_incl - 1  # index of key j among generated entries
    mask = causal_mask(T)
    in_window = gen_index[None, :] >= (gen_count_incl[:, None] - window)  # [query, key]
    mask &= (~generated)[None, :] | in_window
    return mask


def apply_retired(mask: torch.Tensor, retired: Iterable[Tuple[int, int, int]]) -> torch.Tensor:
    """Masks out retired ranges: each (start, end, from_query) hides keys [start, end) from every query
    at position >= from_query."""
    mask = mask.clone()
    for start, end, from_query in retired:
        mask[from_query:, start:end] = False
    return mask


def streaming_layout(prompt_len: int, pages: Sequence[Tuple[int, int]], window: Optional[int]):
    """The streaming layout of docs/bundle.md: `prompt_len` extended entries (BOS + prompt text), then per
    page `n_visual` visual rows followed by `n_generated` generated entries (text and the closing <PAGE>).
    Page k's visual range is retired from the first entry of page k+1 on (only the current page's visual
    tokens are in view). Returns (kinds [T] long, position_ids [T] long, mask [T,T] bool, retired list)."""
    kinds: List[int] = [KIND_EXTENDED] * prompt_len
    retired: List[Tuple[int, int, int]] = []
    prev_visual: Optional[Tuple[int, int]] = None
    for n_visual, n_generated in pages:
        start = len(kinds)
        if prev_visual is not None:
            retired.append((prev_visual[0], prev_visual[1], start))
        kinds += [KIND_VISUAL] * n_visual
        prev_visual = (start, start + n_visual)
        kinds += [KIND_GENERATED] * n_generated
    T = len(kinds)
    base = rswa_mask(kinds, window) if window is not None else causal_mask(T)
    mask = apply_retired(base, retired)
    return torch.tensor(kinds, dtype=torch.long), torch.arange(T, dtype=torch.long), mask, retired


# --------------------------------------------------------------------------------------------------
# safetensors (pure Python: the `safetensors` package is not available here)
# --------------------------------------------------------------------------------------------------

_DTYPE_TO_ST = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.int32: "I32",
}
_ST_TO_DTYPE = {v: k for k, v in _DTYPE_TO_ST.items()}
_ELEM_SIZE = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4}


def _tensor_bytes(t: torch.Tensor) -> bytes:
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def save_tensors(tensors: Dict[str, torch.Tensor], path: str, metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes a .safetensors file (8-byte LE header length, JSON header padded to 8 bytes, raw data)."""
    header: Dict[str, dict] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offset = 0
    names = sorted(tensors)
    for name in names:
        t = tensors[name]
        if t.dtype not in _DTYPE_TO_ST:
            raise ValueError(f"{name}: dtype {t.dtype} not supported by the writer")
        n = t.numel() * _ELEM_SIZE[_DTYPE_TO_ST[t.dtype]]
        header[name] = {"dtype": _DTYPE_TO_ST[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hjson += b" " * ((8 - len(hjson) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for name in names:
            f.write(_tensor_bytes(tensors[name]))
    os.replace(tmp, path)


def save_safetensors(model: Decoder, path: str, dtype: torch.dtype = torch.float32) -> None:
    """Saves the decoder's state_dict (HF names) in `dtype` (f32, f16 or bf16)."""
    tensors = {k: v.to(dtype) for k, v in model.state_dict().items()}
    save_tensors(tensors, path, {"format": "pt"})


def load_tensors(path: str) -> Dict[str, torch.Tensor]:
    """Reads a .safetensors file, or a sharded checkpoint through its `*.index.json`."""
    if path.endswith(".json"):
        with open(path, "r", encoding="utf-8") as f:
            index = json.load(f)
        out: Dict[str, torch.Tensor] = {}
        for shard in sorted(set(index["weight_map"].values())):
            out.update(load_tensors(os.path.join(os.path.dirname(path), shard)))
        return out
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short for a safetensors header")
    (hlen,) = struct.unpack("<Q", data[:8])
    if 8 + hlen > len(data):
        raise ValueError(f"{path}: header length {hlen} runs past the end of the file")
    header = json.loads(data[8 : 8 + hlen].decode("utf-8"))
    base = 8 + hlen
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        st = info["dtype"]
        if st not in _ST_TO_DTYPE:
            raise ValueError(f"{path}: {name}: dtype {st} not supported")
        s, e = info["data_offsets"]
        shape = info["shape"]
        if e - s != math.prod(shape) * _ELEM_SIZE[st] or base + e > len(data):
            raise ValueError(f"{path}: {name}: bad data_offsets {s},{e}")
        raw = bytearray(data[base + s : base + e])
        if st == "BF16":
            t = (
                torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
                if raw
                else torch.empty(0, dtype=torch.bfloat16)
            )
        else:
            t = torch.frombuffer(raw, dtype=_ST_TO_DTYPE[st]) if raw else torch.empty(0, dtype=_ST_TO_DTYPE[st])
        out[name] = t.reshape(shape)
    return out


def load_decoder(bundle_dir: str, dtype: torch.dtype = torch.float32) -> Decoder:
    """Builds a Decoder from a bundle folder (model.json + weights), weights converted to `dtype`."""
    with open(os.path.join(bundle_dir, "model.json"), "r", encoding="utf-8") as f:
        cfg = DecoderConfig.from_dict(json.load(f)["decoder"])
    tensors: Dict[str, torch.Tensor] = {}
    for w in cfg.weights:
        tensors.update(load_tensors(os.path.join(bundle_dir, w)))
    model = Decoder(cfg)
    model.load_state_dict({k: v.to(dtype) for k, v in tensors.items()}, strict=True)
    return model.to(dtype)


# --------------------------------------------------------------------------------------------------
# Greedy decoding (the native decoder's rules, for golden dumps)
# --------------------------------------------------------------------------------------------------


def banned_by_no_repeat(history: Sequence[int], n: int, window: int, exempt: Iterable[int] = ()) -> set:
    """Tokens that would complete an n-gram already present in the last `window` tokens of `history`."""
    if n <= 0 or len(history) < n - 1:
        return set()
    recent = list(history[-window:]) if window > 0 else list(history)
    exempt_set = set(exempt)
    prefix = tuple(history[len(history) - (n - 1) :]) if n > 1 else ()
    banned = set()
    for i in range(len(recent) - n + 1):
        if tuple(recent[i : i + n - 1]) == prefix:
            tok = recent[i + n - 1]
            if tok not in exempt_set:
                banned.add(tok)
    return banned


@torch.no_grad()
def greedy_generate(
    model: Decoder,
    prefix_embeds: torch.Tensor,
    max_new_tokens: int,
    stop_tokens: Iterable[int] = (),
    attention: str = "full",
    window: int = 128,
    no_repeat: Optional[Tuple[int, int, Sequence[int]]] = None,
):
    """Greedy decoding by full recomputation (slow and obviously correct). prefix_embeds [L,H].
    Returns the generated token ids (a stop token, when reached, is included)."""
    stop = set(stop_tokens)
    embeds = prefix_embeds
    kinds = [KIND_EXTENDED] * prefix_embeds.shape[0]
    out: List[int] = []
    for _ in range(max_new_tokens):
        T = embeds.shape[0]
        mask = rswa_mask(kinds, window) if attention == "rswa" else causal_mask(T)
        logits = model(embeds[None], torch.arange(T)[None], mask)[0, -1].to(torch.float32)
        if no_repeat is not None:
            n, win, exempt = no_repeat
            for tok in banned_by_no_repeat(out, n, win, exempt):
                logits[tok] = float("-inf")
        tok = int(torch.argmax(logits).item())  # argmax returns the lowest index among ties
        out.append(tok)
        if tok in stop:
            break
        embeds = torch.cat([embeds, model.embed(torch.tensor([tok]))], 0)
        kinds.append(KIND_GENERATED)
    return out
