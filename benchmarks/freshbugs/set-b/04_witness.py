# n-gram prompt lookup: the draft must come from the MOST RECENT earlier occurrence of the last n-gram
from pathlib import Path
from vtengine.engine import Engine, propose_ngram
from vtengine.model import load_model
from vtengine.knobs import Knobs

history = [256, 1, 2, 30, 31, 32, 1, 2, 40, 41, 42, 1, 2]
print("draft", propose_ngram(history, 2, 3))
model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
engine = Engine(model, Knobs())
prompt = [256] + list(range(512)) + list(range(0, 200, 2))  # every id occurs; the even ones twice
s = engine.speculative(prompt, 10, ngram=1, max_draft=4)
print("tokens", s.tokens, "proposed", s.proposed, "accepted", s.accepted)
