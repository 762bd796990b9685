"""14: counts the CLI refuses as bad input (exit 2, one line naming the option): `generate --tokens 0` and
`bench --runs 0` (exit code and the last stderr line)."""
from _w import cli, last_line


def show(*args):
    r = cli(*args)
    return f"exit {r.returncode} | {last_line(r.stderr)[:60]}"


print("generate --tokens 0:", show("generate", "--prompt", "hi", "--tokens", "0"))
print("bench --runs 0:", show("bench", "--runs", "0", "--prompt-tokens", "2", "--tokens", "2"))
