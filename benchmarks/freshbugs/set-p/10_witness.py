"""10: vtengine reports the version of the installed distribution it ships in (observations' meta,
`vtengine --version`). Prints what `vtengine --version` says."""
from _w import cli

run = cli("--version")
print(f"exit {run.returncode}: {run.stdout.strip()}")
