import json, os, subprocess, sys
env = {**os.environ, "VT_PROFILE": "1", "VT_CPU_GEMV_BF16_DOT": "1"}
out = subprocess.run([sys.executable, "-m", "vtengine", "generate", "--prompt", "hi", "--tokens", "2", "--json", "-"],
                     env=env, capture_output=True, text=True, check=True).stdout
k = json.loads(out)["meta"]["knobs"]
print({n: k[n] for n in ("VT_PROFILE", "VT_CPU_GEMV_BF16_DOT", "VT_CPU_GEMV_BLAS")})
