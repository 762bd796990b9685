# bench refuses a run past the context and says the largest --tokens that fits: is that advice right?
# (vt-tiny: context 1024; a 1000-token prompt holds 1000 + tokens - 1 positions, so 25 fits exactly)
import re

from _w import cli

result = cli("bench", "--prompt-tokens", "1000", "--tokens", "100", "--runs", "1")
suggested = re.search(r"at most --tokens (\d+)", result.stderr)
print("exit", result.returncode, "suggested --tokens", suggested and suggested.group(1), "(fits: 1000 + 25 - 1 = 1024)")
