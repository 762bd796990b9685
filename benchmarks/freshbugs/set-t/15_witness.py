"""15: Knobs.as_env() round trip: knobs written into the environment as as_env() names them (as a probe
does for a child engine) and read back with Knobs.from_env()."""
from vtengine.knobs import Knobs, scoped_env


def round_trip(knobs):
    with scoped_env(knobs.as_env()):
        back = Knobs.from_env()
    return sorted(name for name in knobs.__dataclass_fields__ if getattr(back, name) != getattr(knobs, name))


print("block size 8, threads 2: fields lost:", round_trip(Knobs(kv_block_size=8, cpu_threads=2)))
print("f32, profile, BFDOT, BF16 dot: fields lost:",
      round_trip(Knobs(act_dtype="f32", profile=True, paged_attn_bfdot=True, gemv_bf16_dot=True)))
