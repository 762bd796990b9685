# both attention arm flags set: which arm runs?
import os, subprocess, sys, json
from vtengine.arms import select_arms
from vtengine.knobs import Knobs

print(select_arms(Knobs(paged_attn_scalar_fma=True, paged_attn_bfdot=True)))
env = {**os.environ, "VT_CPU_PAGED_ATTN_SCALAR_FMA": "1", "VT_CPU_PAGED_ATTN_BFDOT": "1", "CI": "1"}
out = subprocess.run([sys.executable, "-m", "vtengine", "arms", "--json", "-"], env=env, capture_output=True, text=True)
print("cli selected", json.loads(out.stdout)["selected"])
