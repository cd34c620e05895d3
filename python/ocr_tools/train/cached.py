"""Greedy streaming decoding with a KV cache that follows docs/bundle.md: extended entries stay visible until
retired, generated entries while among the last `window` generated ones; entries that can never be seen again
are dropped, so memory stays bounded by one view of visual tokens plus the window."""
import torch

from ocr_tools.reference.deepseek_decoder import KIND_GENERATED, KIND_VISUAL, apply_rope, rope_cos_sin


class CachedDecoder:
    """Batched lock-step decoding: every sequence in the batch has the same layout, only token ids differ."""

    def __init__(self, model, batch_size):
        self.model = model
        self.dec = model.decoder
        self.window = model.window
        n_layers = len(self.dec.model.layers)
        self.K = [None] * n_layers  # [B, heads, L, head_dim]
        self.V = [None] * n_layers
        self.kinds = []  # per cache entry
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
            scores = (q @ Kf.transpose(2, 3)) / (d**0.5) + bias
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
