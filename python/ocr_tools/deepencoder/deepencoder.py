"""DeepEncoder in plain PyTorch (SAM ViT-B + 16x compressor + CLIP-L + projector), written for ONNX export.

Follows the published DeepSeek-OCR vision side (see /work/shared/design/model-facts.md): every view size
(512, 640, 1024, 1280) goes through one graph, so size-dependent resampling (absolute position tables,
relative position tables) is written as interpolation matrices built from the traced input shape
instead of calls whose output size the tracer would freeze.
"""
from dataclasses import dataclass, field
from typing import Dict, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class EncoderConfig:
    sam_width: int = 768
    sam_depth: int = 12
    sam_heads: int = 12
    sam_global_blocks: Tuple[int, ...] = (2, 5, 8, 11)
    sam_window: int = 14
    sam_patch: int = 16
    sam_pretrain_size: int = 1024  # the pos_embed table is 64x64 = 1024/16
    sam_mlp_ratio: float = 4.0
    sam_neck: int = 256
    sam_down: Tuple[int, int] = (512, 1024)  # the two stride-2 convs of the 16x compressor
    clip_width: int = 1024
    clip_layers: int = 24
    clip_heads: int = 16
    clip_ffn: int = 4096
    clip_image: int = 224
    clip_patch: int = 14
    projector_out: int = 1280

    @property
    def clip_grid(self) -> int:
        return self.clip_image // self.clip_patch

    @staticmethod
    def reduced() -> "EncoderConfig":
        """Same code at toy widths, for CI tests."""
        return EncoderConfig(
            sam_width=32,
            sam_depth=4,
            sam_heads=2,
            sam_global_blocks=(1, 3),
            sam_neck=16,
            sam_down=(24, 32),
            clip_width=32,
            clip_layers=2,
            clip_heads=2,
            clip_ffn=64,
            projector_out=24,
        )


# ---------------------------------------------------------------- resampling as matrices


def _cubic_aa(x: torch.Tensor) -> torch.Tensor:
    # Keys cubic with a = -0.5: the filter antialiased bicubic uses (PIL's, which torch's aa path follows)
    a = -0.5
    x = x.abs()
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = (((x - 5) * x + 8) * x - 4) * a
    return torch.where(x < 1, near, torch.where(x < 2, far, torch.zeros_like(x)))


def bicubic_aa_matrix(in_size: int, out_size: torch.Tensor) -> torch.Tensor:
    """[out, in] weights equal to F.interpolate(mode='bicubic', antialias=True, align_corners=False)."""
    out_f = out_size.to(torch.float32)
    scale = in_size / out_f
    support_scale = torch.clamp(scale, min=1.0)
    centre = (torch.arange(out_size).to(torch.float32) + 0.5) * scale
    src = torch.arange(in_size).to(torch.float32)
    w = _cubic_aa((src[None, :] - centre[:, None] + 0.5) / support_scale)
    return w / w.sum(dim=1, keepdim=True)


def linear_matrix(in_size: int, out_size: torch.Tensor) -> torch.Tensor:
    """[out, in] weights equal to F.interpolate(mode='linear', align_corners=False)."""
    scale = in_size / out_size.to(torch.float32)
    src = torch.clamp((torch.arange(out_size).to(torch.float32) + 0.5) * scale - 0.5, min=0.0)
    lo = torch.floor(src)
    frac = src - lo
    lo_i = lo.to(torch.int64)
    hi_i = torch.clamp(lo_i + 1, max=in_size - 1)
    cols = torch.arange(in_size)
    w_lo = (cols[None, :] == lo_i[:, None]).to(torch.float32) * (1 - frac)[:, None]
    w_hi = (cols[None, :] == hi_i[:, None]).to(torch.float32) * frac[:, None]
    return w_lo + w_hi


def resize_grid_table(table: torch.Tensor, side: int, out_size: torch.Tensor) -> torch.Tensor:
    """[S, S, C] position table → [T, T, C], bicubic antialiased (identity when T == S)."""
    m = bicubic_aa_matrix(side, out_size)
    return torch.einsum("ti,ijc,uj->tuc", m, table, m)


# ---------------------------------------------------------------- SAM ViT-B


class LayerNorm2d(nn.Module):
    def __init__(self, channels: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x):  # [B, C, H, W]
        mean = x.mean(1, keepdim=True)
        var = (x - mean).pow(2).mean(1, keepdim=True)
        x = (x - mean) / torch.sqrt(var + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class SamPatchEmbed(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.proj = nn.Conv2d(3, cfg.sam_width, kernel_size=cfg.sam_patch, stride=cfg.sam_patch)


class SamMlp(nn.Module):
    def __init__(self, width: int, hidden: int):
        super().__init__()
        self.lin1 = nn.Linear(width, hidden)
        self.lin2 = nn.Linear(hidden, width)

    def forward(self, x):
        return self.lin2(F.gelu(self.lin1(x)))


def relative_table(rel_pos: torch.Tensor, stored_rows: int, size: torch.Tensor) -> torch.Tensor:
    """Rows of the decomposed relative-position table for query/key extent `size`: [size, size, head_dim].

    The stored table has 2*S-1 rows; when the extent differs it is linearly resampled to 2*size-1 rows.
    """
    rows = 2 * size - 1
    resized = linear_matrix(stored_rows, rows) @ rel_pos
    q = torch.arange(size)
    index = q[:, None] - q[None, :] + (size - 1)
    return resized[index]


class SamAttention(nn.Module):
    def __init__(self, cfg: EncoderConfig, extent: int):
        super().__init__()
        self.heads = cfg.sam_heads
        head_dim = cfg.sam_width // cfg.sam_heads
        self.scale = head_dim**-0.5
        self.qkv = nn.Linear(cfg.sam_width, 3 * cfg.sam_width)
        self.proj = nn.Linear(cfg.sam_width, cfg.sam_width)
        self.table_rows = 2 * extent - 1
        self.rel_pos_h = nn.Parameter(torch.zeros(2 * extent - 1, head_dim))
        self.rel_pos_w = nn.Parameter(torch.zeros(2 * extent - 1, head_dim))

    def forward(self, x):  # [B, H, W, C]
        B, H, W, C = x.shape
        qkv = self.qkv(x).reshape(B, H * W, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # [B, heads, H*W, d]
        logits = (q * self.scale) @ k.transpose(-2, -1)
        # decomposed relative positions: the bias is the *unscaled* query dotted with the row/column tables
        rh = relative_table(self.rel_pos_h, self.table_rows, torch.tensor(H) if isinstance(H, int) else H)
        rw = relative_table(self.rel_pos_w, self.table_rows, torch.tensor(W) if isinstance(W, int) else W)
        q_grid = q.reshape(B, self.heads, H, W, -1)
        bias_h = torch.einsum("bnhwc,hkc->bnhwk", q_grid, rh)
        bias_w = torch.einsum("bnhwc,wkc->bnhwk", q_grid, rw)
        bias = bias_h[..., :, None] + bias_w[..., None, :]  # [B, n, H, W, kH, kW]
        logits = logits + bias.reshape(B, self.heads, H * W, H * W)
        out = logits.softmax(dim=-1) @ v  # [B, heads, H*W, d]
        out = out.permute(0, 2, 1, 3).reshape(B, H, W, C)
        return self.proj(out)


class SamBlock(nn.Module):
    def __init__(self, cfg: EncoderConfig, windowed: bool):
        super().__init__()
        self.window = cfg.sam_window if windowed else 0
        extent = cfg.sam_window if windowed else cfg.sam_pretrain_size // cfg.sam_patch
        self.norm1 = nn.LayerNorm(cfg.sam_width, eps=1e-6)
        self.attn = SamAttention(cfg, extent)
        self.norm2 = nn.LayerNorm(cfg.sam_width, eps=1e-6)
        self.mlp = SamMlp(cfg.sam_width, int(cfg.sam_width * cfg.sam_mlp_ratio))

    def forward(self, x):  # [B, H, W, C]
        shortcut = x
        x = self.norm1(x)
        if self.window > 0:
            B, H, W, C = x.shape
            s = self.window
            pad_h = (s - H % s) % s
            pad_w = (s - W % s) % s
            # zero rows are appended after norm1 and *before* qkv, so the padding carries the qkv bias
            # into the keys every window attends to (the reference does exactly this)
            x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
            Hp, Wp = H + pad_h, W + pad_w
            x = x.reshape(B, Hp // s, s, Wp // s, s, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, s, s, C)
            x = self.attn(x)
            x = x.reshape(B, Hp // s, Wp // s, s, s, C).permute(0, 1, 3, 2, 4, 5).reshape(B, Hp, Wp, C)
            x = x[:, :H, :W, :]
        else:
            x = self.attn(x)
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


class SamEncoder(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        grid = cfg.sam_pretrain_size // cfg.sam_patch
        self.table_side = grid
        self.patch_embed = SamPatchEmbed(cfg)
        self.pos_embed = nn.Parameter(torch.zeros(1, grid, grid, cfg.sam_width))
        self.blocks = nn.ModuleList(
            [SamBlock(cfg, windowed=i not in cfg.sam_global_blocks) for i in range(cfg.sam_depth)]
        )
        self.neck = nn.Sequential(
            nn.Conv2d(cfg.sam_width, cfg.sam_neck, kernel_size=1, bias=False),
            LayerNorm2d(cfg.sam_neck),
            nn.Conv2d(cfg.sam_neck, cfg.sam_neck, kernel_size=3, padding=1, bias=False),
            LayerNorm2d(cfg.sam_neck),
        )
        self.net_2 = nn.Conv2d(cfg.sam_neck, cfg.sam_down[0], kernel_size=3, stride=2, padding=1, bias=False)
        self.net_3 = nn.Conv2d(cfg.sam_down[0], cfg.sam_down[1], kernel_size=3, stride=2, padding=1, bias=False)

    def forward(self, pixels):  # [B, 3, H, W] → [B, C_out, H/64, W/64]
        x = self.patch_embed.proj(pixels).permute(0, 2, 3, 1)  # [B, h, w, C]
        grid = x.shape[1]
        table = self.pos_embed[0]
        if not (isinstance(grid, int) and grid == self.table_side):
            table = resize_grid_table(table, self.table_side, torch.tensor(grid) if isinstance(grid, int) else grid)
        x = x + table[None]
        for block in self.blocks:
            x = block(x)
        x = self.neck(x.permute(0, 3, 1, 2))
        return self.net_3(self.net_2(x))


# ---------------------------------------------------------------- CLIP-L over the SAM grid


class ClipEmbeddings(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.class_embedding = nn.Parameter(torch.zeros(cfg.clip_width))
        # present in the checkpoint but unused: the SAM grid replaces CLIP's own patchify
        self.patch_embedding = nn.Conv2d(
            3, cfg.clip_width, kernel_size=cfg.clip_patch, stride=cfg.clip_patch, bias=False
        )
        self.table_side = cfg.clip_grid
        self.position_embedding = nn.Embedding(cfg.clip_grid**2 + 1, cfg.clip_width)

    def forward(self, sam_grid):  # [B, C, h, w] → [B, 1 + h*w, C]
        B, C, h, w = sam_grid.shape
        tokens = sam_grid.flatten(2).transpose(1, 2)
        cls = self.class_embedding[None, None, :].expand(B, 1, C)
        x = torch.cat([cls, tokens], dim=1)
        table = self.position_embedding.weight
        side = self.table_side
        patch_table = table[1:].reshape(side, side, -1)
        if not (isinstance(h, int) and h == side):
            patch_table = resize_grid_table(patch_table, side, torch.tensor(h) if isinstance(h, int) else h)
        positions = torch.cat([table[:1], patch_table.reshape(h * w, -1)], dim=0)
        return x + positions[None]


class ClipAttention(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.heads = cfg.clip_heads
        self.qkv_proj = nn.Linear(cfg.clip_width, 3 * cfg.clip_width)
        self.out_proj = nn.Linear(cfg.clip_width, cfg.clip_width)

    def forward(self, x):
        B, T, C = x.shape
        d = C // self.heads
        qkv = self.qkv_proj(x).reshape(B, T, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = ((q * d**-0.5) @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.out_proj((att @ v).permute(0, 2, 1, 3).reshape(B, T, C))


class ClipMlp(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.fc1 = nn.Linear(cfg.clip_width, cfg.clip_ffn)
        self.fc2 = nn.Linear(cfg.clip_ffn, cfg.clip_width)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h * torch.sigmoid(1.702 * h))  # quick GELU


class ClipLayer(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.layer_norm1 = nn.LayerNorm(cfg.clip_width, eps=1e-5)
        self.self_attn = ClipAttention(cfg)
        self.layer_norm2 = nn.LayerNorm(cfg.clip_width, eps=1e-5)
        self.mlp = ClipMlp(cfg)

    def forward(self, x):
        x = x + self.self_attn(self.layer_norm1(x))
        return x + self.mlp(self.layer_norm2(x))


class ClipTransformer(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.layers = nn.ModuleList([ClipLayer(cfg) for _ in range(cfg.clip_layers)])


class ClipEncoder(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.embeddings = ClipEmbeddings(cfg)
        self.pre_layrnorm = nn.LayerNorm(cfg.clip_width, eps=1e-5)  # spelled so in the checkpoint
        self.transformer = ClipTransformer(cfg)

    def forward(self, sam_grid):
        x = self.pre_layrnorm(self.embeddings(sam_grid))
        for layer in self.transformer.layers:
            x = layer(x)
        return x


class Projector(nn.Module):
    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.layers = nn.Linear(cfg.clip_width + cfg.sam_down[1], cfg.projector_out)


class DeepEncoder(nn.Module):
    """pixels [n_views, 3, H, W] (normalised) → embeddings [n_views, H/64, W/64, projector_out]."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.cfg = cfg
        self.sam_model = SamEncoder(cfg)
        self.vision_model = ClipEncoder(cfg)
        self.projector = Projector(cfg)

    def forward(self, pixels):
        sam_grid = self.sam_model(pixels)  # [B, C, h, w]
        B, C, h, w = sam_grid.shape
        clip_tokens = self.vision_model(sam_grid)[:, 1:]  # class token dropped
        sam_tokens = sam_grid.flatten(2).permute(0, 2, 1)
        features = torch.cat([clip_tokens, sam_tokens], dim=-1)  # CLIP first, then SAM
        return self.projector.layers(features).reshape(B, h, w, -1)


def checkpoint_prefix() -> str:
    return "model."


def encoder_state_from_checkpoint(tensors: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """Checkpoint names (model.sam_model.*, model.vision_model.*, model.projector.*) → module names."""
    keep = ("model.sam_model.", "model.vision_model.", "model.projector.")
    out = {}
    for name, t in tensors.items():
        if name.startswith(keep) and not name.endswith("position_ids"):
            out[name[len("model.") :]] = t
    return out
