# VT_PROFILE table: shares are per phase, so each phase's shares sum to 1
from collections import defaultdict
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
from vtengine import tokenizer

e = Engine(load_model("vt-tiny"), Knobs(profile=True))
e.generate(tokenizer.encode("profile me"), 6)
sums = defaultdict(float)
calls = defaultdict(int)
for row in e.prof.table():
    sums[row["phase"]] += row["share"]
    calls[row["phase"]] += row["calls"]
print({p: round(s, 6) for p, s in sorted(sums.items())})
print(dict(sorted(calls.items())), dict(e.prof.tokens))
