# the VT_PROFILE table: calls per (phase, stage) row, e.g. lm_head runs once per forward
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs(profile=True))
eng.generate([256, 1, 2, 3, 4], 4)  # 1 prefill forward + 3 decode forwards
rows = {(r["phase"], r["stage"]): r["calls"] for r in eng.prof.table()}
print("lm_head calls", rows[("prefill", "lm_head")], rows[("decode", "lm_head")],
      "attention calls", rows[("prefill", "attention")], rows[("decode", "attention")])
