"""How sure the formula reader must be before its LaTeX is written (src/vision/formula.ts FORMULA_MIN_CONFIDENCE).

Greedy-decodes the trainer's held-out samples (the last 400 of DATA_DIR, never trained on) as the engine does, with
each reading's confidence (the mean log-probability of the tokens written, the end token included), and prints,
for each threshold, how many formulas would be written as LaTeX and how many of those are exactly right.

  PYTHONPATH=python /usr/bin/python3 -m ocr_tools.formula.calibrate DATA_DIR CHECKPOINT.pt

Synthetic formulas: this sets a gate, it is not a claim about real pages.
"""

import argparse

import torch

from ocr_tools.formula.train import Data, MAX_LEN, Reader
from ocr_tools.formula.vocab import BOS, EOS, INDEX, TEXT, VOCAB


@torch.no_grad()
def read(model, x):
    """One sample as src/vision/formula.ts readFormula reads it: tokens, confidence, and whether it reads as prose."""
    memory = model.encode(x)
    toks = [INDEX[BOS]]
    total = 0.0
    for step in range(MAX_LEN):
        logp = torch.log_softmax(model.decode(memory, torch.tensor([toks]))[0, -1], -1)
        best = int(logp.argmax())
        if step == 0 and best == INDEX[TEXT]:
            return [TEXT], float(logp[best])
        total += float(logp[best])
        if best == INDEX[EOS]:
            break
        toks.append(best)
    return [VOCAB[t] for t in toks[1:]], total / len(toks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("checkpoint")
    ap.add_argument("--count", type=int, default=400)
    a = ap.parse_args()
    torch.set_num_threads(2)
    data = Data(a.data)
    model = Reader()
    model.load_state_dict(torch.load(a.checkpoint))
    model.eval()
    held = list(range(len(data.index)))[-min(400, len(data.index) // 5) :][: a.count]
    rows = []
    prose_right = prose = formulas_called_prose = 0
    for k in held:
        x, _ = data.tensors([k], False, None)
        got, conf = read(model, x)
        want = data.index[k]["tokens"]
        if want == [TEXT]:
            prose += 1
            prose_right += got == [TEXT]
            continue
        if got == [TEXT]:
            formulas_called_prose += 1
            continue
        rows.append((conf, got == want))
    n = len(rows) + formulas_called_prose
    print(
        f"{len(held)} held-out samples: prose {prose} ({prose_right} read as prose), formulas {n} ({formulas_called_prose} read as prose)"
    )
    for t in (-0.05, -0.1, -0.15, -0.2, -0.25, -0.35, -0.5, -0.75, -1.0):
        kept = [ok for c, ok in rows if c >= t]
        rate = sum(kept) / len(kept) if kept else 0.0
        print(
            f"confidence >= {t:5.2f}: {len(kept):4d} of {n} formulas written as LaTeX, {sum(kept):4d} exactly right ({rate:.0%})"
        )
    print(f"exact overall: {sum(ok for _, ok in rows)} of {n}")


if __name__ == "__main__":
    main()
