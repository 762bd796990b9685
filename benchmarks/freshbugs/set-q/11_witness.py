"""11: CLI messages that are longer than 80 columns (stderr is a pipe, so rich assumes 80): a usage
error naming a long model path (docs/engine.md: bad input is one line on stderr), and a generate with
a long prompt."""
from _w import cli

path = "/nonexistent/models/" + "/".join(["llama-3.2-1b-instruct-finetuned"] * 3)
r = cli("score", "--ids", "1,2,3", "--model", path, drop=("COLUMNS", "LINES"))
lines = r.stderr.splitlines()
print("usage error:", r.returncode, repr(r.stderr[:60]))
prompt = "The quick brown fox jumps over the lazy dog, " * 3
g = cli("generate", "--prompt", prompt, "--tokens", "2", drop=("COLUMNS", "LINES"))
first = g.stderr.splitlines()[0] if g.stderr else ""
print(f"usage error: exit {r.returncode}, {len(lines)} stderr line(s), path whole on one line {any(path in l for l in lines)}; "
      f"generate: prompt whole on its first line {first.startswith(prompt)}")
