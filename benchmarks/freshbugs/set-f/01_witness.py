"""Engine with an explicit 64-token KV cache: repeated generations must each free their blocks."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

e = _w.engine(max_tokens=64)
ok = 0
result = "no error"
for _ in range(8):
    try:
        e.generate(list(range(1, 21)), 5)
        ok += 1
    except Exception as error:  # noqa: BLE001
        result = type(error).__name__
        break
print(f"{ok} of 8 generations ran; {result}")
