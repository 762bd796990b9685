"""Knobs.as_env(): each knob in its canonical spelling (observations' meta, `vtengine arms --json`),
with exactly one attention flag set."""
from vtengine.knobs import Knobs

for k in (Knobs(paged_attn_bfdot=True), Knobs(paged_attn_scalar_fma=True)):
    env = k.as_env()
    print({n: env[n] for n in ("VT_CPU_PAGED_ATTN_SCALAR_FMA", "VT_CPU_PAGED_ATTN_BFDOT")}, end=" ")
print()
