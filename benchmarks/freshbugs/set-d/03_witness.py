# VT_ACT_DTYPE=f32 with VT_CPU_PAGED_ATTN_BFDOT=1: bfdot must fall back to the default body for f32 q/kv.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small()
ids = [(11 * i + 5) % 256 for i in range(48)]
a = Engine(m, Knobs(act_dtype="f32", paged_attn_bfdot=True)).score(ids).logits
b = Engine(m, Knobs(act_dtype="f32")).score(ids).logits
print("bfdot+f32 score logits equal default:", bool((a == b).all()), _w.h(a))
