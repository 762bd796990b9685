"""15: Generation/Scores margins (documented: top-1 minus top-2 logit per row, float64 of the float32 logits)
against the same quantity computed here from the returned logits, for generate and score, on a small model
with a 2048-token vocabulary."""
import numpy as np

from _w import engine, small_model


def exact(logits):
    top = np.sort(logits.astype(np.float64), axis=-1)
    return (top[:, -1] - top[:, -2]).tolist()


eng = engine(small_model(vocab_size=2048))
gen = eng.generate([1, 2, 3, 4, 5], 8)
sc = eng.score([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
print("rows: generate", len(gen.margins), "score", len(sc.margins))
print("margins equal top1 - top2: generate", gen.margins == exact(gen.logits), "score", sc.margins == exact(sc.logits))
