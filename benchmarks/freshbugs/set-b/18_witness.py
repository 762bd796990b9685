# VT_PROFILE: each phase's stage shares should add up to 1
from collections import defaultdict
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
engine = Engine(model, Knobs(profile=True))
engine.generate([256, 1, 2, 3, 4, 5], 4)
sums = defaultdict(float)
for row in engine.prof.table():
    sums[row["phase"]] += row["share"]
print({phase: round(total, 6) for phase, total in sorted(sums.items())})
