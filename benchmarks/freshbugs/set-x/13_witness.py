"""13: vtengine's human output goes to stderr through rich, styled only on a terminal: when stderr is a
pipe or a file (a script reading `error: ...`, a log) it is plain text without ANSI escape sequences,
whatever TERM says; a usage error is still the one line `error: <message>`."""
import subprocess

import _w

ESC = "\x1b["
env = _w.child_env({"TERM": "xterm-256color", "COLUMNS": "100"})
for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
    env.pop(name, None)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([_w.PY, "-m", "vtengine", *args], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=300)


usage = run("score", "--prompt", "hi")
print("usage error: exit", usage.returncode, "| stderr starts with 'error:'", usage.stderr.startswith("error:"),
      "| escapes", ESC in usage.stderr)
arms = run("arms")
print("vtengine arms: exit", arms.returncode, "| escapes in stderr", ESC in arms.stderr)
print("summary: plain stderr", not (ESC in usage.stderr or ESC in arms.stderr), "| usage line plain",
      usage.stderr.startswith("error:"))
