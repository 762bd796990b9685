# VT_PROFILE token counts per phase accumulate over calls: prefill 5 + 3 = 8, decode 3 + 2 = 5
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs(profile=True))
eng.generate([256, 1, 2, 3, 4], 4)
eng.generate([256, 9, 8], 3)
print("tokens per phase", dict(sorted(eng.prof.tokens.items())))
