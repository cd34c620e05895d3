"""Greedy tokens of the reference decoder past the model's trained context (test/model/positions.test.ts).

Usage: PYTHONPATH=python python3 -m ocr_tools.reference.past_context BUNDLE LENGTH LAST
Feeds LENGTH ids (id = 5 + (7 * i) % (vocab - 5)) at positions 0..LENGTH-1 with full attention in one forward pass
and prints JSON {max_position_embeddings, logits}: the logits of the LAST last entries ([LAST][vocab]). Positions are
the plain integers the reference always uses: rope_cos_sin has no cap, no wrap and no scaling at
max_position_embeddings.
"""
import json
import sys

import torch

from ocr_tools.reference.deepseek_decoder import causal_mask, load_decoder

torch.set_num_threads(2)


def main():
    bundle, length, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    model = load_decoder(bundle).eval()
    cfg = model.cfg
    ids = torch.tensor([5 + (7 * i) % (cfg.vocab_size - 5) for i in range(length)])
    with torch.no_grad():
        embeds = model.embed(ids)
        logits = model(embeds[None], torch.arange(length)[None], causal_mask(length))[0, -last:].to(torch.float32)
    print(json.dumps({"max_position_embeddings": cfg.max_position_embeddings, "logits": logits.tolist()}))


if __name__ == "__main__":
    main()
