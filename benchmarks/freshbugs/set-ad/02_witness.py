"""02: with no VT_* knob set, Knobs.from_env() must give the documented defaults
(docs/ENVIRONMENT.md: VT_CPU_THREADS 1), the same on every machine; meta.knobs records them."""
import os

from vtengine.knobs import Knobs

for name in list(os.environ):
    if name.startswith("VT_"):
        del os.environ[name]
k = Knobs.from_env()
print(f"defaults from an empty environment: VT_CPU_THREADS={k.as_env()['VT_CPU_THREADS']} "
      f"(cpu_threads {k.cpu_threads})")
