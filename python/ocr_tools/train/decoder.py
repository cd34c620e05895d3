"""The training model's decoder: the frozen reference decoder (ocr_tools.reference.deepseek_decoder.Decoder), imported
and never changed, plus what training adds around it. Training-side changes to the decoder (its sequence assembly, a
faster attention for a GPU run, ...) belong here, not in the reference: the reference is the native decoder's test
oracle, and python/tests/test_reference_golden.py pins its outputs. Same parameters and state_dict names as the
reference, so a training checkpoint's `decoder.*` weights export to a bundle the reference and the native decoder read
unchanged (python/tests/test_training_reference.py checks that the two compute the same logits)."""

import torch

from ocr_tools.reference.deepseek_decoder import Decoder


class LineDecoder(Decoder):
    def visual_rows(self, emb):
        """[rows, cols, H] -> [rows*(cols+1)+1, H]: each grid row then image_newline, then view_seperator."""
        rows, cols, h = emb.shape
        nl = self.model.image_newline.to(emb.dtype)[None, None].expand(rows, 1, h)
        return torch.cat(
            [torch.cat([emb, nl], 1).reshape(rows * (cols + 1), h), self.model.view_seperator.to(emb.dtype)[None]], 0
        )

    def row_table(self, encoder_rows):
        """The rows a collated batch's `index` points at: the encoder outputs [n, H], then image_newline,
        view_seperator and the token embeddings, in the encoder outputs' dtype."""
        m, dtype = self.model, encoder_rows.dtype
        return torch.cat(
            [
                encoder_rows,
                m.image_newline[None].to(dtype),
                m.view_seperator[None].to(dtype),
                m.embed_tokens.weight.to(dtype),
            ],
            0,
        )
