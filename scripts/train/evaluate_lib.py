"""Greedy streaming decoding with a KV cache (R-SWA + retired pages), and the metrics: CER and word F1."""
# The cache follows docs/bundle.md exactly: extended entries stay visible until retired, generated entries
# are visible while among the last `window` generated ones. Entries that can never be seen again are
# dropped, so memory stays bounded by one page of visual tokens plus the window.
import random
import re
import sys

import numpy as np
import torch

from data import SampleMaker, to_tensor
from model import PAGE
sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "reference"))
from deepseek_decoder import KIND_EXTENDED, KIND_GENERATED, KIND_VISUAL, apply_rope, rope_cos_sin  # noqa: E402


class CachedDecoder:
    """Batched lock-step decoding: every sequence in the batch has the same layout, only token ids differ."""

    def __init__(self, model, batch_size):
        self.model = model
        self.dec = model.decoder
        self.window = model.window
        n_layers = len(self.dec.model.layers)
        self.K = [None] * n_layers  # [B, heads, L, head_dim]
        self.V = [None] * n_layers
        self.kinds = []      # per cache entry
        self.gen_index = []  # index among generated entries, or -1
        self.n_generated = 0
        self.next_pos = 0
        self.B = batch_size

    def _keep(self, keep):
        idx = torch.tensor([i for i, k in enumerate(keep) if k], dtype=torch.long)
        for l in range(len(self.K)):
            if self.K[l] is not None:
                self.K[l] = self.K[l].index_select(2, idx)
                self.V[l] = self.V[l].index_select(2, idx)
        self.kinds = [k for k, kk in zip(self.kinds, keep) if kk]
        self.gen_index = [g for g, kk in zip(self.gen_index, keep) if kk]

    def retire_visual(self):
        self._keep([k != KIND_VISUAL for k in self.kinds])

    @torch.no_grad()
    def extend(self, embeds, kinds):
        """embeds [B, n, H]; kinds: n entry kinds. Returns logits [B, V] of the last entry."""
        dec, cfg = self.dec, self.dec.cfg
        B, n, _ = embeds.shape
        new_gen_index, g = [], self.n_generated
        q_gen_count = []  # generated entries at positions <= each new query
        for k in kinds:
            if k == KIND_GENERATED:
                new_gen_index.append(g)
                g += 1
            else:
                new_gen_index.append(-1)
            q_gen_count.append(g)
        all_kinds = self.kinds + list(kinds)
        all_gen = torch.tensor(self.gen_index + new_gen_index)
        L_old = len(self.kinds)
        L = L_old + n
        qg = torch.tensor(q_gen_count)[:, None]
        visible = (all_gen[None, :] < 0) | (all_gen[None, :] >= qg - self.window)
        causal = torch.ones(n, L, dtype=torch.bool)
        causal[:, L_old:] = torch.ones(n, n, dtype=torch.bool).tril()
        mask = visible & causal
        bias = torch.zeros(n, L).masked_fill(~mask, float("-inf"))
        positions = torch.arange(self.next_pos, self.next_pos + n)[None].expand(B, -1)
        cos, sin = rope_cos_sin(positions, cfg.head_dim, cfg.rope_theta, embeds.dtype)
        x = embeds
        nh, nkv, d = cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim
        for li, layer in enumerate(dec.model.layers):
            att = layer.self_attn
            h = layer.input_layernorm(x)
            q = apply_rope(att.q_proj(h).view(B, n, nh, d).transpose(1, 2), cos, sin)
            k = apply_rope(att.k_proj(h).view(B, n, nkv, d).transpose(1, 2), cos, sin)
            v = att.v_proj(h).view(B, n, nkv, d).transpose(1, 2)
            self.K[li] = k if self.K[li] is None else torch.cat([self.K[li], k], 2)
            self.V[li] = v if self.V[li] is None else torch.cat([self.V[li], v], 2)
            Kf, Vf = self.K[li], self.V[li]
            if nkv != nh:
                Kf = Kf.repeat_interleave(nh // nkv, 1)
                Vf = Vf.repeat_interleave(nh // nkv, 1)
            scores = (q @ Kf.transpose(2, 3)) / (d ** 0.5) + bias
            out = (torch.softmax(scores, -1) @ Vf).transpose(1, 2).reshape(B, n, nh * d)
            x = x + att.o_proj(out)
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        self.kinds = all_kinds
        self.gen_index = all_gen.tolist()
        self.n_generated = g
        self.next_pos += n
        # Generated entries that left the window are never visible again.
        if self.n_generated > self.window:
            self._keep([gi < 0 or gi >= self.n_generated - self.window for gi in self.gen_index])
        return dec.logits(dec.model.norm(x[:, -1]))


@torch.no_grad()
def greedy_read(model, pixels_per_page, max_new):
    """pixels_per_page: list over pages of [B,3,H,W] (batch in lock-step). max_new: per page, an int or a
    list per batch item. Returns texts [B][pages]."""
    model.eval()
    B = pixels_per_page[0].shape[0]
    runner = CachedDecoder(model, B)
    dec = model.decoder
    prompt = dec.embed(torch.tensor(model.prompt_ids))[None].expand(B, -1, -1)
    runner.extend(prompt, [KIND_EXTENDED] * prompt.shape[1])
    texts = [[] for _ in range(B)]
    for p, pixels in enumerate(pixels_per_page):
        if p > 0:
            runner.retire_visual()
        emb = model.encoder(pixels)
        vis = torch.stack([model.visual_rows(emb[b]) for b in range(B)])
        logits = runner.extend(vis, [KIND_VISUAL] * vis.shape[1])
        caps = max_new[p] if isinstance(max_new[p], list) else [max_new[p]] * B
        out = [[] for _ in range(B)]
        done = [False] * B
        for step in range(max(caps)):
            tok = logits.argmax(-1)
            for b in range(B):
                if not done[b]:
                    if int(tok[b]) == PAGE or step >= caps[b]:
                        done[b] = True
                    else:
                        out[b].append(int(tok[b]))
            if all(done):
                break
            logits = runner.extend(dec.embed(tok)[:, None], [KIND_GENERATED])
        else:
            # Sequences that hit the cap still need their <PAGE> in the cache for the next page.
            pass
        if p + 1 < len(pixels_per_page) and not all(done):
            runner.extend(dec.embed(torch.full((B,), PAGE))[:, None], [KIND_GENERATED])
        for b in range(B):
            texts[b].append(model.tok.decode(out[b]))
    return texts


def edit_distance(a, b):
    """Levenshtein distance, one numpy row per character of a."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1)
    prev = idx.copy()
    for i, ch in enumerate(a, 1):
        cost = (bb != ord(ch)).astype(np.int64)
        tmp = np.empty_like(prev)
        tmp[0] = i
        tmp[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        prev = np.minimum.accumulate(tmp - idx) + idx
    return int(prev[-1])


def cer(pred, truth):
    return edit_distance(pred, truth) / max(1, len(truth))


def word_f1(pred, truth):
    from collections import Counter
    p, t = Counter(pred.split()), Counter(truth.split())
    common = sum((p & t).values())
    if common == 0:
        return 0.0
    prec, rec = common / sum(p.values()), common / sum(t.values())
    return 2 * prec * rec / (prec + rec)


def markdown_to_text(md):
    """Plain text of our Markdown: markers and table tags removed, whitespace collapsed."""
    md = re.sub(r"</?(table|tr)>", "\n", md)
    md = re.sub(r"</?td>", " ", md)
    md = re.sub(r"^```$", "", md, flags=re.M)
    md = re.sub(r"^(#{1,6} |- |\d+\. )", "", md, flags=re.M)
    return normalise_ws(md)


def normalise_ws(text):
    return re.sub(r"\s+", " ", text).strip()


def val_cer(model, val_pages, n_lines=32, n_blocks=8, seed=123):
    """Greedy CER on fixed validation lines and blocks (same crops every call)."""
    maker = SampleMaker(val_pages, seed=seed, degrade_p=0.0)
    res = {}
    for kind, n, bs in (("line", n_lines, 16), ("block", n_blocks, 8)):
        samples = [maker.draw(kind) for _ in range(n)]
        errs, chars = 0, 0
        for i in range(0, n, bs):
            chunk = samples[i:i + bs]
            pix = to_tensor([c[0] for c in chunk])
            caps = [len(c[1]) + 20 for c in chunk]
            preds = greedy_read(model, [pix], [caps])
            for (arr, truth), pr in zip(chunk, preds):
                errs += edit_distance(pr[0], truth)
                chars += len(truth)
        res[kind] = round(errs / max(1, chars), 4)
    model.train()
    return res
