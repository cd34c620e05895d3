"""The default model: a small conv+transformer vision encoder, the projector, and the shared reference decoder."""
# The decoder is scripts/reference/deepseek_decoder.py (the engine's reference) so the trained weights run
# unchanged in the engine. The encoder maps pixels [n, 3, H, W] to [n, H/16, W/16, hidden]: one visual
# token per 16x16 pixels, about two characters of 10 pt text at the page mode's ~1.5 px/pt.
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
from deepseek_decoder import Decoder, DecoderConfig, streaming_layout  # noqa: E402

from tokenizer import BOS, PAD, PAGE, PROMPT, CharTokenizer  # noqa: E402

PATCH = 16
# Sized for a shared 2-core CPU budget of ~10^13 FLOPs: small enough to see many samples in one session.
ENCODER_DEFAULTS = {"stem": [16, 32, 48, 96], "width": 128, "layers": 1, "heads": 2, "mlp": 256,
                    "max_rows": 96, "max_cols": 96}
CTC_FRAMES = 4  # CTC frames per visual token column (a 16 px column holds up to ~4 narrow characters)


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.norm = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.gelu(self.norm(self.conv(x)))


class EncoderLayer(nn.Module):
    """Pre-norm bidirectional self-attention over all visual tokens of a view."""

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


class VisionEncoder(nn.Module):
    """pixels [n, 3, H, W] (normalised, H and W multiples of 16) -> embeddings [n, H/16, W/16, out_width]."""

    def __init__(self, out_width, cfg=None):
        super().__init__()
        cfg = dict(ENCODER_DEFAULTS, **(cfg or {}))
        self.cfg = cfg
        c1, c2, c3, c4 = cfg["stem"]
        self.stem = nn.Sequential(
            ConvBlock(3, c1, 2),
            ConvBlock(c1, c2, 2), ConvBlock(c2, c2, 1),
            ConvBlock(c2, c3, 2), ConvBlock(c3, c3, 1),
            ConvBlock(c3, c4, 2), ConvBlock(c4, c4, 1),
        )
        width = cfg["width"]
        self.embed = nn.Linear(c4, width)
        self.row_pos = nn.Parameter(torch.randn(cfg["max_rows"], width) * 0.02)
        self.col_pos = nn.Parameter(torch.randn(cfg["max_cols"], width) * 0.02)
        self.layers = nn.ModuleList([EncoderLayer(width, cfg["heads"], cfg["mlp"]) for _ in range(cfg["layers"])])
        self.norm = nn.LayerNorm(width)
        # The projector to the decoder width (DeepSeek-OCR's `model.projector`).
        self.projector = nn.Linear(width, out_width)

    def forward(self, pixels):
        return self.projector(self.features(pixels))

    def features(self, pixels):
        """Encoder features before the projector: [n, rows, cols, width]."""
        feat = self.stem(pixels)  # [n, c4, rows, cols]
        n, _, rows, cols = feat.shape
        x = self.embed(feat.flatten(2).transpose(1, 2))  # [n, rows*cols, width]
        pos = (self.row_pos[:rows, None, :] + self.col_pos[None, :cols, :]).reshape(rows * cols, -1)
        x = x + pos
        for layer in self.layers:
            x = layer(x)
        return self.norm(x).view(n, rows, cols, -1)


def default_decoder_config(vocab_size):
    return DecoderConfig(vocab_size=vocab_size, hidden_size=128, num_hidden_layers=3, num_attention_heads=2,
                         num_key_value_heads=2, head_dim=64, intermediate_size=384, moe_intermediate_size=64,
                         n_routed_experts=4, num_experts_per_tok=2, n_shared_experts=1, first_k_dense_replace=1,
                         max_position_embeddings=32768)


class OcrModel(nn.Module):
    """Encoder + projector + decoder, with the streaming sequence layout of docs/bundle.md."""

    def __init__(self, decoder_cfg: DecoderConfig, encoder_cfg=None, window=128):
        super().__init__()
        self.encoder = VisionEncoder(decoder_cfg.hidden_size, encoder_cfg)
        # Training-only auxiliary head: CTC over token columns gives the encoder a direct glyph signal early on.
        self.ctc_head = nn.Linear(self.encoder.cfg["width"], CTC_FRAMES * decoder_cfg.vocab_size)
        self.decoder = Decoder(decoder_cfg)
        self.window = window
        self.tok = CharTokenizer()
        self.prompt_ids = [BOS] + self.tok.encode(PROMPT)

    def visual_rows(self, emb):
        """[rows, cols, H] -> [rows*(cols+1)+1, H]: each grid row then image_newline, then view_seperator."""
        rows, cols, h = emb.shape
        nl = self.decoder.model.image_newline.to(emb.dtype)[None, None].expand(rows, 1, h)
        return torch.cat([torch.cat([emb, nl], 1).reshape(rows * (cols + 1), h),
                          self.decoder.model.view_seperator.to(emb.dtype)[None]], 0)

    def build_sequence(self, page_embs, page_texts):
        """page_embs: list of [rows, cols, H]; page_texts: list of token id lists (without <PAGE>).
        Returns (embeds [T,H], targets [T] with -100 where nothing is predicted, mask [T,T], positions [T])."""
        dev = page_embs[0].device
        parts = [self.decoder.embed(torch.tensor(self.prompt_ids, device=dev))]
        targets = [-100] * len(self.prompt_ids)
        pages = []
        for emb, ids in zip(page_embs, page_texts):
            vis = self.visual_rows(emb)
            gen = list(ids) + [PAGE]
            parts.append(vis)
            parts.append(self.decoder.embed(torch.tensor(gen, device=dev)))
            # The last visual entry predicts the first text token; each generated token predicts the next.
            targets += [-100] * (vis.shape[0] - 1) + gen + [-100]
            pages.append((vis.shape[0], len(gen)))
        _, positions, mask, _ = streaming_layout(len(self.prompt_ids), pages, self.window)
        return torch.cat(parts, 0), torch.tensor(targets, device=dev), mask, positions

    def forward_batch(self, samples, ctc_weight=0.0):
        """samples: list of (pixels [P,3,H,W], [ids per page]); all pixels in the batch share H and W.
        Returns (loss, number of predicted tokens, decoder cross-entropy, ctc loss or None)."""
        dev = self.decoder.lm_head.weight.device
        pixels = torch.cat([s[0] for s in samples], 0).to(dev)
        feats = self.encoder.features(pixels)
        emb = self.encoder.projector(feats)
        ctc = None
        if ctc_weight > 0:
            n, rows, cols, _ = feats.shape
            frames = self.ctc_head(feats.max(1).values).view(n, cols * CTC_FRAMES, -1)
            logp = frames.float().log_softmax(-1).transpose(0, 1)  # [frames, n, V]
            flat = [s[1][0] for s in samples]
            ok = [i for i, ids in enumerate(flat) if 0 < len(ids) <= cols * CTC_FRAMES // 2 and len(samples[i][1]) == 1]
            if ok:
                tgt = torch.tensor([t for i in ok for t in flat[i]], dtype=torch.long)
                ctc = F.ctc_loss(logp[:, ok], tgt, torch.full((len(ok),), cols * CTC_FRAMES, dtype=torch.long),
                                 torch.tensor([len(flat[i]) for i in ok]), blank=PAD, zero_infinity=True)
        seqs, k = [], 0
        for pix, texts in samples:
            e, t, m, p = self.build_sequence([emb[k + i] for i in range(pix.shape[0])], texts)
            seqs.append((e, t.cpu(), m, p))
            k += pix.shape[0]
        T = max(s[0].shape[0] for s in seqs)
        B, H = len(seqs), emb.shape[-1]
        embeds = emb.new_zeros(B, T, H)
        targets = torch.full((B, T), -100, dtype=torch.long)
        mask = torch.zeros(B, T, T, dtype=torch.bool)
        mask[:, torch.arange(T), torch.arange(T)] = True  # padding rows attend to themselves only
        positions = torch.zeros(B, T, dtype=torch.long)
        for b, (e, t, m, p) in enumerate(seqs):
            n = e.shape[0]
            embeds[b, :n] = e
            targets[b, :n] = t
            mask[b, :n, :n] = m
            positions[b, :n] = p
        logits = self.decoder(embeds, positions.to(dev), mask.to(dev))
        # Token at position p is predicted by the logits at p-1: shift targets left by one.
        shifted = torch.full_like(targets, -100)
        shifted[:, :-1] = targets[:, 1:]
        shifted = shifted.to(dev)
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), shifted.reshape(-1), ignore_index=-100)
        loss = ce if ctc is None else ce + ctc_weight * ctc
        return loss, int((shifted != -100).sum()), float(ce), (None if ctc is None else float(ctc))
