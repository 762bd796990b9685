# VT_PROFILE: each phase's shares should add up to 1.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from collections import defaultdict
from vtengine.engine import Engine
from vtengine.knobs import Knobs
e = Engine(_w.small(), Knobs(profile=True))
e.generate([1, 2, 3, 4, 5], 4)
tot = defaultdict(float)
for row in e.prof.table():
    tot[row["phase"]] += row["share"]
print({k: round(v, 6) for k, v in sorted(tot.items())})
