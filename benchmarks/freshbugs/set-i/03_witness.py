"""03: `vtengine score` reports how many positions predict the NEXT token: scoring a greedy chain
(prompt + the tokens greedy chose) must agree on every generated position."""
import json
import subprocess
import sys

from vtengine import tokenizer

gen = subprocess.run([sys.executable, "-m", "vtengine", "generate", "--prompt", "hello", "--tokens", "12", "--json", "-"],
                     capture_output=True, text=True, check=True)
ids = tokenizer.encode("hello") + json.loads(gen.stdout)["tokens"]
run = subprocess.run([sys.executable, "-m", "vtengine", "score", "--ids", ",".join(map(str, ids))],
                     capture_output=True, text=True)
print("exit", run.returncode)
print(run.stderr.strip().splitlines()[-1])
