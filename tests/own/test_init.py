"""vtgate init: from an engine (a command or a Python callable) to a suite that is green after
``vtgate bless --all --reason "initial"``, with teeth (a knob that changes the logits turns it red),
knobs found by the envdoc scanner, and nothing ever overwritten without --force."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test runs init, bless and check end to end on a real engine: .ci/run runs it with -m slow

ENGINE_CMD = "{python} engine/tinyengine.py --raw"

PY_ENGINE = '''\
"""A Python engine: the tiny engine's decoding, called in-process."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("tiny", Path(__file__).parent / "engine" / "tinyengine.py")
tiny = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tiny)


def run(prompt, tokens=None, reference=None):
    args = {"prompt": prompt, **({"tokens": tokens} if tokens is not None else {}),
            **({"reference": reference} if reference is not None else {})}
    ids, rows = tiny.run(args)
    return ids, rows
'''


def test_init_for_a_command_engine_is_green_after_bless_and_has_teeth(project) -> None:
    done = project.vtgate("init", "--command", ENGINE_CMD, "--tokens", "8", "--source-tree", "engine")
    assert done.returncode == 0, done.stderr
    suite = (project.root / "vtgate.toml").read_text()
    for gate in ("generate-strict", "teacher-forced", "generate-logits", "generate-logits-close",
                 "invariant-over-TINY_THREADS", "envdoc"):
        assert f'name = "{gate}"' in suite
    assert "invariant-over-TINY_FAST_EXP" not in suite  # measured: it changes the logits
    doc = (project.root / "docs" / "ENVIRONMENT.md").read_text()
    assert "| TINY_THREADS | 1 | read at engine/tinyengine.py:" in doc
    assert "TINY_FAST_EXP=1 changes the logits" in doc
    assert "| TINY_ATTN_IMPL | eager |" in doc and "VTGATE_PROBE_ARGS" not in doc
    project.bless("--all", reason="initial")
    done, report = project.check_json()
    assert done.returncode == 0, done.stderr
    assert {g["status"] for g in report["gates"]} == {"green"} and len(report["gates"]) == 6
    done, report = project.check_json(env={"TINY_FAST_EXP": "1"})
    assert done.returncode == 1
    red = {g["name"] for g in report["gates"] if g["status"] == "red"}
    assert {"generate-strict", "generate-logits", "generate-logits-close"} <= red
    done = project.vtgate("mutate", "-m", "TINY_FAST_EXP-1", "--no-auto")  # the declared knob mutation holds
    assert done.returncode == 0, done.stderr


def test_init_for_a_python_callable_is_green_after_bless(project) -> None:
    (project.root / "myengine.py").write_text(PY_ENGINE)
    done = project.vtgate("init", "--python", "myengine:run", "--tokens", "6", "--no-measure")
    assert done.returncode == 0, done.stderr
    assert "from myengine import run as _engine" in (project.root / "vtgate_probes.py").read_text()
    assert "unknown (not measured)" in (project.root / "docs" / "ENVIRONMENT.md").read_text()
    project.bless("--all", reason="initial")
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr


def test_init_never_overwrites_without_force(project) -> None:
    (project.root / "vtgate.toml").write_text("# mine\n")
    done = project.vtgate("init", "--command", ENGINE_CMD, "--no-measure")
    assert done.returncode == 2
    assert str(project.root / "vtgate.toml") in done.stderr and "--force" in done.stderr
    assert (project.root / "vtgate.toml").read_text() == "# mine\n"
    assert not (project.root / "vtgate_probes.py").exists()
    done = project.vtgate("init", "--command", ENGINE_CMD, "--no-measure", "--force")
    assert done.returncode == 0, done.stderr
    assert "generate-strict" in (project.root / "vtgate.toml").read_text()


def test_init_needs_exactly_one_engine(project) -> None:
    assert project.vtgate("init").returncode == 2
    both = project.vtgate("init", "--command", ENGINE_CMD, "--python", "a:b")
    assert both.returncode == 2 and "exactly one" in both.stderr


def test_an_engine_that_fails_writes_nothing_and_exits_3(project) -> None:
    done = project.vtgate("init", "--command", "{python} -c 'import sys; sys.exit(4)'")
    assert done.returncode == 3
    assert "exited with status 4" in done.stderr
    assert not any((project.root / name).exists() for name in ("vtgate.toml", "vtgate_probes.py", "docs"))


def test_bless_needs_gates_or_all(project: object) -> None:
    root = Path(project.root)  # type: ignore[attr-defined]
    (root / "vtgate.toml").write_text("[suite]\n")
    done = project.vtgate("bless", "--reason", "x")  # type: ignore[attr-defined]
    assert done.returncode == 2 and "--all" in done.stderr


def test_knob_candidates_try_both_readings_of_a_one() -> None:
    from vtgate.cli.commands.init import candidate_values

    assert candidate_values("1") == ("1", "0", "2")  # a flag (off is 0) or a count (next is 2)
    assert candidate_values("0") == ("0", "1")
    assert candidate_values("4") == ("4", "5")
    assert candidate_values("false") == ("false", "true")
    assert candidate_values("eager") == ()  # names of arms are not guessed


def test_a_knob_value_the_engine_fails_at_is_left_out_not_fatal(project) -> None:
    (project.root / "myengine.py").write_text(PY_ENGINE.replace(
        "def run(prompt,",
        "import os\nif os.environ.get('TINY_THREADS', '1') == '0':\n    raise ValueError('0 threads')\n\n\ndef run(prompt,"))
    done = project.vtgate("init", "--python", "myengine:run", "--tokens", "4", "--prefix", "TINY_")
    assert done.returncode == 0, done.stderr
    assert "left out (the engine failed at these values): TINY_THREADS=0" in " ".join(done.stderr.split())
    assert 'invariant_over = { TINY_THREADS = ["1", "2"] }' in (project.root / "vtgate.toml").read_text()
