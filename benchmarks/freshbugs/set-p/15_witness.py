"""15: `python -m vtengine` follows the CLI's exit-code contract like the `vtengine` console script: bad
input is one line on stderr and exit 2. Prints the exit code and the number of stderr lines for a score
without --reference and for an unusable knob value."""
from _w import cli

for args, env in ((("score", "--prompt", "hi"), None), (("arms",), {"VT_CPU_THREADS": "many"})):
    run = cli(*args, env=env)
    print(f"{' '.join(args)} {env or ''}: exit {run.returncode}, {len(run.stderr.splitlines())} stderr line(s)")
