"""vt-tiny: greedy decoding (one prefill, then one-row decode steps) must equal greedy by full
recompute bit for bit, and both must be the same tokens as before."""
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

from _w import h

eng = Engine(load_model("vt-tiny"), Knobs())
prompt = [256] + list(b"The quick brown fox")
inc = eng.generate(prompt, 8)
rec = eng.generate_recompute(prompt, 8)
print("incremental", inc.tokens, h(inc.logits), "recompute", rec.tokens, h(rec.logits))
print("incremental equals recompute:", inc.tokens == rec.tokens and h(inc.logits) == h(rec.logits), "| tokens", inc.tokens)
