import os, subprocess, sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.arms import select_arms
from vtengine.knobs import Knobs
print(select_arms(Knobs(paged_attn_scalar_fma=True, paged_attn_bfdot=True)))
