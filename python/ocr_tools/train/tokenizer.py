"""Character-level tokenizer of the default model: the vocabulary, Python encode/decode, and tokenizer.json export."""
# One token per character (Latin with accents, Cyrillic, punctuation) plus the special tokens and the HTML table
# tags DeepSeek-OCR also keeps as single tokens. tokenizer.json is a BPE model with no merges, so every
# Hugging Face tokenizers implementation splits text into exactly these characters.
import json
import os

from ocr_tools.synth.corpus import ADDED, FIRST_VOCABULARY  # the generator's character set is the vocabulary

SPECIALS = ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜▁pad▁｜>", "<image>", "<PAGE>"]
BOS, EOS, PAD, IMAGE, PAGE = range(5)
TAGS = ["<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>"]
UNK_CHAR = "�"
PROMPT = "document parsing."
# The letter of the first vocabulary each added letter starts its embedding and output row from (train.py)
ADDED_FROM = dict(zip(ADDED, "ТJЛНТЦhjлнhц"))


class CharTokenizer:
    def __init__(self):
        chars = ["\n"] + sorted(FIRST_VOCABULARY) + [UNK_CHAR] + list(ADDED)
        self.vocab = SPECIALS + TAGS + chars
        self.ids = {tok: i for i, tok in enumerate(self.vocab)}
        self.unk = self.ids[UNK_CHAR]
        # Pad the matrix size to a multiple of 8; the tail ids are never produced.
        self.vocab_size = (len(self.vocab) + 7) // 8 * 8

    def encode(self, text: str):
        out, i = [], 0
        while i < len(text):
            if text[i] == "<":
                tag = next((t for t in TAGS if text.startswith(t, i)), None)
                if tag:
                    out.append(self.ids[tag])
                    i += len(tag)
                    continue
            out.append(self.ids.get(text[i], self.unk))
            i += 1
        return out

    def decode(self, ids):
        return "".join(self.vocab[i] for i in ids if 5 <= i < len(self.vocab))

    def to_hf_json(self) -> dict:
        added = [
            {
                "id": i,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
            for i, t in enumerate(SPECIALS)
        ]
        added += [
            {
                "id": len(SPECIALS) + i,
                "content": t,
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": False,
            }
            for i, t in enumerate(TAGS)
        ]
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": added,
            "normalizer": None,
            "pre_tokenizer": None,
            "post_processor": None,
            "decoder": {"type": "Fuse"},
            "model": {
                "type": "BPE",
                "dropout": None,
                "unk_token": UNK_CHAR,
                "continuing_subword_prefix": None,
                "end_of_word_suffix": None,
                "fuse_unk": False,
                "byte_fallback": False,
                "vocab": {t: i for i, t in enumerate(self.vocab)},
                "merges": [],
            },
        }

    def save(self, path: str):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(self.to_hf_json(), f, ensure_ascii=False)
        os.replace(path + ".tmp", path)
