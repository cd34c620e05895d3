"""The line-unit default model: the line encoder (the bundle's encoder.onnx) and the decoder (train/decoder.py: the
frozen reference decoder, imported unchanged)."""
# Each detected text line is one view of the streaming layout: [geometry token, slots padded to a bucket size,
# image_newline, view_seperator], then the line's Markdown and <PAGE> (here: end of view). Earlier views are
# retired, generated text stays in the R-SWA window, so the decoder reads a document line by line in one pass.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from ocr_tools.reference.deepseek_decoder import (
    KIND_EXTENDED,
    KIND_GENERATED,
    KIND_VISUAL,
    DecoderConfig,
    streaming_layout,
)
from ocr_tools.train.cached import CachedDecoder
from ocr_tools.train.decoder import LineDecoder
from ocr_tools.train.tokenizer import BOS, PAGE, PROMPT, CharTokenizer

CLASSES = 6625  # recogniser classes (blank, dictionary, space)
FEATURES = 124
RECOGNISER = (
    120  # features 0..119 are the recogniser's; 120..123 the run features (blank steps, run length, peak, position)
)
GEOMETRY = 8
BUCKETS = (16, 48, 128)


def bucket(n):
    return next(b for b in BUCKETS if n <= b) if n <= BUCKETS[-1] else BUCKETS[-1]


class EncoderLayer(nn.Module):
    """Pre-norm bidirectional self-attention over one line's tokens."""

    def __init__(self, width, heads, mlp):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, mlp)
        self.fc2 = nn.Linear(mlp, width)

    def forward(self, x):
        n, t, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(n, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(w // self.heads), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(n, t, w))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class LineEncoder(nn.Module):
    """ids [n, L] long, feats [n, L, 124], valid [n, L] (1 = slot, 0 = padding), geometry [n, 8]
    -> embeddings [n, 1, 1 + L, hidden]: one grid row per line, the geometry token first."""

    def __init__(self, hidden, width=128, heads=2, mlp=256, layers=1, max_slots=BUCKETS[-1], pca=0):
        super().__init__()
        # pca > 0: the recogniser's 120 features enter as their first `pca` principal components (ocr_tools.train.pack
        # packs training data that way); the projection is part of the module, so the exported encoder takes raw features
        self.pca = pca
        n_in = FEATURES if not pca else pca + FEATURES - RECOGNISER
        if pca:
            self.register_buffer("pca_mean", torch.zeros(RECOGNISER))
            self.register_buffer("pca_basis", torch.zeros(RECOGNISER, pca))
        self.feat_norm = nn.LayerNorm(n_in)
        self.feat = nn.Linear(n_in, width)
        self.cls = nn.Embedding(CLASSES, width)
        # each slot also sees its left neighbour's symbol: "the slot after the one I just wrote" is then one lookup
        self.prev = nn.Linear(width, width, bias=False)
        nn.init.zeros_(self.prev.weight)
        self.geom = nn.Linear(GEOMETRY, width)
        self.pad = nn.Parameter(torch.zeros(width))
        self.pos = nn.Parameter(torch.randn(max_slots + 1, width) * 0.02)
        self.layers = nn.ModuleList([EncoderLayer(width, heads, mlp) for _ in range(layers)])
        self.norm = nn.LayerNorm(width)
        self.projector = nn.Linear(width, hidden)

    def project(self, feats):
        """Raw slot features [..., 124] -> the model's input features [..., pca + 4]."""
        return torch.cat([(feats[..., :RECOGNISER] - self.pca_mean) @ self.pca_basis, feats[..., RECOGNISER:]], -1)

    def forward(self, ids, feats, valid, geometry):
        """feats: raw [..., 124], or for a model with pca already projected [..., pca + 4] (packed training data)."""
        if self.pca and feats.shape[-1] == FEATURES:
            feats = self.project(feats)
        v = valid.unsqueeze(-1)
        prev_ids = torch.cat([torch.zeros_like(ids[:, :1]), ids[:, :-1]], 1)
        x = (self.feat(self.feat_norm(feats)) + self.cls(ids) + self.prev(self.cls(prev_ids))) * v + self.pad * (1 - v)
        x = torch.cat([self.geom(geometry).unsqueeze(1), x], 1)
        x = x + self.pos[: x.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.projector(self.norm(x)).unsqueeze(1)


# Model sizes by name. "small" is what a 2-core CPU trains in a session; "wide" is for a lent GPU (~5 M decoder
# parameters, sized so the bundle with its bf16 decoder and checkpoint stays under the repository's 50 MB).
ARCHS = {
    "small": {
        "encoder": {"width": 128, "heads": 2, "mlp": 256, "layers": 1, "pca": 0},
        "decoder": {
            "hidden_size": 128,
            "num_hidden_layers": 4,
            "num_attention_heads": 2,
            "num_key_value_heads": 2,
            "head_dim": 64,
            "intermediate_size": 384,
            "moe_intermediate_size": 64,
            "n_routed_experts": 4,
        },
    },
    "wide": {
        "encoder": {"width": 192, "heads": 3, "mlp": 512, "layers": 2, "pca": 64},
        "decoder": {
            "hidden_size": 256,
            "num_hidden_layers": 6,
            "num_attention_heads": 4,
            "num_key_value_heads": 4,
            "head_dim": 64,
            "intermediate_size": 768,
            "moe_intermediate_size": 96,
            "n_routed_experts": 6,
        },
    },
}


def decoder_config(vocab_size, arch):
    d = ARCHS["small"]["decoder"] if arch is None else arch["decoder"]
    return DecoderConfig(
        vocab_size=vocab_size,
        num_experts_per_tok=2,
        n_shared_experts=1,
        first_k_dense_replace=1,
        max_position_embeddings=32768,
        **d,
    )


def layout_mask(kinds, view, window):
    """[B, T, T] mask of streaming_layout for a batch, from each entry's kind (-1: padding) and the index of the
    latest view started at or before it: causal; a generated key only while among the last `window` generated
    entries; a visual key only until the next view starts (retired); padding rows see themselves only."""
    T = kinds.shape[1]
    ar = torch.arange(T, device=kinds.device)
    gen = kinds == KIND_GENERATED
    count = torch.cumsum(gen.long(), 1)  # generated entries at positions <= i
    real = kinds >= 0
    mask = (ar[None, :, None] >= ar[None, None, :]) & real[:, :, None] & real[:, None, :]
    mask &= (~gen)[:, None, :] | ((count - 1)[:, None, :] >= (count - window)[:, :, None])
    mask &= (kinds != KIND_VISUAL)[:, None, :] | (view[:, None, :] == view[:, :, None])
    return mask | torch.eye(T, dtype=torch.bool, device=kinds.device)[None]


def unit_arrays(unit, length):
    """Pads one unit's slots to `length` (longer lines are cut): (ids, feats, valid) as tensors."""
    n = min(len(unit["ids"]), length)
    ids = torch.zeros(length, dtype=torch.long)
    feats = torch.zeros(length, unit["feats"].shape[1])
    valid = torch.zeros(length)
    ids[:n] = torch.as_tensor(unit["ids"][:n])
    feats[:n] = torch.as_tensor(unit["feats"][:n])
    valid[:n] = 1
    return ids, feats, valid


def bucket_batches(units):
    """Units grouped by slot bucket, shortest bucket first: (bucket length, unit indices, ids, feats, valid, geometry)
    with each group's slots padded to its bucket."""
    groups = {}
    for i, u in enumerate(units):
        groups.setdefault(bucket(len(u["ids"])), []).append(i)
    out = []
    for length, idx in sorted(groups.items()):
        arrays = [unit_arrays(units[i], length) for i in idx]
        out.append(
            (
                length,
                idx,
                torch.stack([a[0] for a in arrays]),
                torch.stack([a[1] for a in arrays]),
                torch.stack([a[2] for a in arrays]),
                torch.stack([torch.as_tensor(units[i]["geometry"], dtype=torch.float32) for i in idx]),
            )
        )
    return out


class LineOcrModel(nn.Module):
    def __init__(self, decoder_cfg: DecoderConfig, window=128, encoder=None):
        super().__init__()
        self.encoder = LineEncoder(decoder_cfg.hidden_size, **(encoder or {}))
        self.decoder = LineDecoder(decoder_cfg)
        self.window = window
        self.tok = CharTokenizer()
        self.prompt_ids = [BOS] + self.tok.encode(PROMPT)

    def encode_units(self, units):
        """Encodes units (grouped by bucket) -> list of [1, 1+L, H] per unit, in order."""
        out = [None] * len(units)
        for _, idx, ids, feats, valid, geom in bucket_batches(units):
            emb = self.encoder(ids, feats, valid, geom)
            for k, i in enumerate(idx):
                out[i] = emb[k]
        return out

    def visual_rows(self, emb):
        """[rows, cols, H] -> [rows*(cols+1)+1, H]: each grid row then image_newline, then view_seperator."""
        return self.decoder.visual_rows(emb)

    def build_sequence(self, embs, texts, offset=0):
        """embs: per unit [1, 1+L, H]; texts: per unit token ids (without the closing <PAGE>); offset: positions
        the document had already used before this window (the prompt keeps positions 0..P-1)."""
        parts = [self.decoder.embed(torch.tensor(self.prompt_ids))]
        targets = [-100] * len(self.prompt_ids)
        views = []
        for emb, ids in zip(embs, texts):
            vis = self.visual_rows(emb)
            gen = list(ids) + [PAGE]
            parts.append(vis)
            parts.append(self.decoder.embed(torch.tensor(gen)))
            # targets[q] is the token AT entry q; forward_batch shifts once (logits at q predict entry q+1)
            targets += [-100] * vis.shape[0] + gen
            views.append((vis.shape[0], len(gen)))
        _, positions, mask, _ = streaming_layout(len(self.prompt_ids), views, self.window)
        positions = positions.clone()
        positions[len(self.prompt_ids) :] += offset
        return torch.cat(parts, 0), torch.tensor(targets), mask, positions

    def collate(self, samples):
        """The CPU half of a training step (no parameters involved, so DataLoader workers can run it): samples, a
        list of (units, offset) with unit["target"] set -> tensors for forward_collated. The sequences are those of
        build_sequence; `index` points each entry at a row of [encoder outputs, image_newline, view_seperator,
        token embeddings]."""
        flat = [u for units, _ in samples for u in units]
        enc, row_of, base = [], [0] * len(flat), 0
        for length, idx, *tensors in bucket_batches(flat):
            enc.append(tuple(tensors))
            for k, i in enumerate(idx):
                row_of[i] = base + k * (1 + length)
            base += len(idx) * (1 + length)
        n_enc = base
        newline, sep, tok0 = n_enc, n_enc + 1, n_enc + 2
        seqs, k = [], 0
        P = len(self.prompt_ids)
        for units, offset in samples:
            index = [tok0 + t for t in self.prompt_ids]
            targets = [-100] * P
            kinds, view = [KIND_EXTENDED] * P, [-1] * P
            for v, u in enumerate(units):
                length = bucket(len(u["ids"]))
                gen = self.tok.encode(u["target"]) + [PAGE]
                vis = list(range(row_of[k], row_of[k] + 1 + length)) + [newline, sep]
                index += vis + [tok0 + t for t in gen]
                targets += [-100] * len(vis) + gen
                kinds += [KIND_VISUAL] * len(vis) + [KIND_GENERATED] * len(gen)
                view += [v] * (len(vis) + len(gen))
                k += 1
            positions = list(range(P)) + list(range(P + offset, len(index) + offset))
            seqs.append((index, targets, kinds, view, positions))
        T = max(len(s[0]) for s in seqs)
        B = len(seqs)
        index = torch.full((B, T), newline, dtype=torch.long)
        targets = torch.full((B, T), -100, dtype=torch.long)
        kinds = torch.full((B, T), -1, dtype=torch.int8)  # -1: padding
        view = torch.full((B, T), -1, dtype=torch.int32)
        positions = torch.zeros(B, T, dtype=torch.long)
        for b, (ix, t, kd, vw, p) in enumerate(seqs):
            n = len(ix)
            index[b, :n] = torch.tensor(ix)
            targets[b, :n] = torch.tensor(t)
            kinds[b, :n] = torch.tensor(kd, dtype=torch.int8)
            view[b, :n] = torch.tensor(vw, dtype=torch.int32)
            positions[b, :n] = torch.tensor(p)
        shifted = torch.full_like(targets, -100)
        shifted[:, :-1] = targets[:, 1:]
        # the [B, T, T] mask is built where the step runs (layout_mask): workers pass only these small tensors
        return {"enc": enc, "index": index, "targets": shifted, "kinds": kinds, "view": view, "positions": positions}

    def forward_collated(self, batch, device=None):
        """The device half: encoder, sequence assembly, decoder, loss. Returns (loss, scored tokens, accuracy)."""
        dev = device or next(self.parameters()).device
        outs = []
        for ids, feats, valid, geom in batch["enc"]:
            e = self.encoder(
                ids.to(dev, non_blocking=True),
                feats.to(dev, non_blocking=True),
                valid.to(dev, non_blocking=True),
                geom.to(dev, non_blocking=True),
            )
            outs.append(e.reshape(-1, e.shape[-1]))
        table = self.decoder.row_table(torch.cat(outs, 0))
        embeds = table[batch["index"].to(dev, non_blocking=True)]
        mask = layout_mask(
            batch["kinds"].to(dev, non_blocking=True), batch["view"].to(dev, non_blocking=True), self.window
        )
        logits = self.decoder(embeds, batch["positions"].to(dev, non_blocking=True), mask)
        shifted = batch["targets"].to(dev, non_blocking=True)
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), shifted.reshape(-1), ignore_index=-100)
        sel = shifted != -100
        acc = (logits.argmax(-1)[sel] == shifted[sel]).float().mean()
        return ce, int(sel.sum()), acc

    def forward_batch(self, samples):
        """samples: list of (units, offset) with unit["target"] set. Returns (loss, predicted tokens, per-token accuracy)."""
        ce, n, acc = self.forward_collated(self.collate(samples))
        return ce, n, float(acc)

    @torch.no_grad()
    def read_units(self, units, max_tokens=300, offset=0):
        """Greedy reading of consecutive units as the native decoder does it (KV cache, R-SWA, retired views)."""
        was_training = self.training
        self.eval()
        runner = CachedDecoder(self, 1)
        dec = self.decoder
        runner.extend(dec.embed(torch.tensor(self.prompt_ids))[None], [KIND_EXTENDED] * len(self.prompt_ids))
        runner.next_pos += offset
        texts = []
        for i, emb in enumerate(self.encode_units(units)):
            if i:
                runner.retire_visual()
            vis = self.visual_rows(emb)[None]
            logits = runner.extend(vis, [KIND_VISUAL] * vis.shape[1])
            ids = []
            while True:
                tok = int(logits[0].argmax())
                if tok == PAGE or len(ids) >= max_tokens:
                    break
                ids.append(tok)
                logits = runner.extend(dec.embed(torch.tensor([[tok]])), [KIND_GENERATED])
            runner.extend(dec.embed(torch.tensor([[PAGE]])), [KIND_GENERATED])
            texts.append(self.tok.decode(ids))
        self.train(was_training)
        return texts
