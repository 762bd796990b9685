"""The API snapshot's corpus reaches the engine: run under coverage.py, every line of the engine's own
modules (not the checkers' modules, which run the corpus) is executed, except in the functions listed
here, each with why no in-process call can or should reach it. A function the corpus stops reaching
(an edit that drops cases, a new engine function nobody added to the corpus) fails this test by name."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENGINE = REPO / "engine" / "vtengine"
# the checkers: they run the corpus (or other gates' probes) rather than being what it observes
CHECKERS = {"snapshot.py", "boundaries.py", "processstate.py", "properties.py", "families.py", "draws.py", "reference.py", "sequences.py", "probes.py",
            "armcheck.py", "clirunner.py"}
UNREACHED = {
    "__init__.py:<module>": "the version fallback for an uninstalled source tree; tests run installed",
    "__main__.py:<module>": "`python -m vtengine`, a process of its own: the families run it as one",
    "__main__.py:run": "the program's entry (console script, `python -m`): a process of its own "
                       "(tests/test_signal_start.py)",
    "__main__.py:_note": "a signal while the program imports its modules (tests/test_signal_start.py)",
    "checkpoint.py:_shape_hint": "the fallback for a tensor name no expected tensor has (validate_tensors "
                                 "reports unknown names before any shape)",
    "checkpoint.py:save_checkpoint": "putting the old checkpoint back when a rename fails mid-way: needs a file "
                                     "system that fails on rename",
    "cli.py:<module>": "`if __name__ == \"__main__\"`: the module run as the program",
    "cli.py:_live_progress": "the progress bar, drawn only when stderr is a terminal",
    "cli.py:bench": "the progress bar's advance (a terminal only)",
    "cli.py:_interrupted": "Ctrl-C and SIGTERM: a process's signals (surface-cli sends them to a subprocess)",
    "cli.py:_exit_now": "a second signal or a hung interpreter: ends the process",
    "cli.py:_end_interrupted": "a program run a signal ended: ends the process (tests/test_signal_start.py)",
    "cli.py:_arm_exit_watchdog": "armed only when the CLI is the program (argv None); ends the process",
    "cli.py:_arm_exit_watchdog.<locals>.watch": "the watchdog's wait, in its thread",
    "cli.py:main": "same: the watchdog of the program",
    "cli.py:_main": "signals and the last-line-of-defence exit for an internal error",
    "cli.py:_main.<locals>.code": "the exit code after a signal",
    "cli.py:_main.<locals>.on_signal": "the signal handler",
    "provenance.py:check_single_tree": "a vtengine module without __file__ (a namespace or frozen module)",
}
RUN = """
import json, sys
import coverage
cov = coverage.Coverage(data_file=None, source=[sys.argv[1]])
cov.start()
from vtengine import snapshot
snapshot.run(20261206)
cov.stop()
data = cov.get_data()
print(json.dumps({f: sorted(data.lines(f) or []) for f in data.measured_files()}))
"""


def _functions(path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function in ``path``, innermost last."""
    found: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append((child.lineno, child.end_lineno or child.lineno, name))
                walk(child, f"{name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(path.read_text()), "")
    return found


def _executable_lines(path: Path) -> set[int]:
    import coverage

    analysis = coverage.Coverage(data_file=None).analysis2(str(path))
    return set(analysis[1])


@pytest.mark.slow
def test_the_corpus_reaches_every_line_of_the_engine_but_the_listed_functions(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", RUN, str(ENGINE)], capture_output=True, text=True, timeout=900,
                          cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                             "VT_CACHE_DIR": str(tmp_path / "cache"), "PYTHONHASHSEED": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    ran = {Path(f).resolve(): set(lines) for f, lines in json.loads(done.stdout).items()}
    unreached: dict[str, list[int]] = {}
    for path in sorted(ENGINE.glob("*.py")):
        if path.name in CHECKERS:
            continue
        missed = sorted(_executable_lines(path) - ran.get(path.resolve(), set()))
        functions = _functions(path)
        for line in missed:
            inside = [name for first, last, name in functions if first <= line <= last]
            unreached.setdefault(f"{path.name}:{inside[-1] if inside else '<module>'}", []).append(line)
    assert set(unreached) <= set(UNREACHED), {k: v for k, v in unreached.items() if k not in UNREACHED}
    assert set(UNREACHED) <= set(unreached), f"reached now, drop from UNREACHED: {set(UNREACHED) - set(unreached)}"
