# a flag knob that is set but empty (`export VT_PROFILE=`) reads as off, like unset
from vtengine.knobs import Knobs, KnobError, scoped_env

with scoped_env({"VT_PROFILE": "", "VT_CPU_GEMV_BF16_DOT": ""}):
    try:
        k = Knobs.from_env()
        print("profile", k.profile, "gemv_bf16_dot", k.gemv_bf16_dot)
    except KnobError as e:
        print("KnobError", e)
