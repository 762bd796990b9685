"""05: out-of-vocabulary token ids through the API, and under `python -O` (where asserts vanish)."""
import subprocess
import sys

from _w import engine, outcome, small_model

eng = engine(small_model(), act_dtype="f32")  # vocab 64
api = outcome(lambda: eng.score([1, 2, 99]).tokens)
code = ("from _w import engine, outcome, small_model\n"
        "eng = engine(small_model(), act_dtype='f32')\n"
        "print(outcome(lambda: eng.generate([1, 2, -1], 3).tokens))\n")
opt = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True)
optimized = opt.stdout.strip() or opt.stderr.strip()[-120:]
print(f"score([1, 2, 99]) -> {api} | python -O generate([1, 2, -1]) -> {optimized}")
