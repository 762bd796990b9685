# arm precedence when several attention flags are set: scalar_fma > bfdot > default (documented)
from vtengine.arms import select_arms
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

both = Knobs(paged_attn_scalar_fma=True, paged_attn_bfdot=True)
print(select_arms(both))
print(select_arms(Knobs(gemv_blas=True, gemv_bf16_dot=True)))
print(Engine(load_model("vt-tiny"), both).arms)
