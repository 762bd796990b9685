"""Knobs.with_ with a misspelt knob name ("act_dtpye") must fail loudly, not quietly return the
knobs unchanged (the caller then measures the bf16 engine believing it is the f32 one)."""
from vtengine.knobs import Knobs

from _w import outcome

print("correct name:", Knobs().with_(act_dtype="f32").act_dtype)
print("misspelt name:", outcome(lambda: Knobs().with_(act_dtpye="f32", cpu_thread=2)))
