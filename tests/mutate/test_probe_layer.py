"""vtgate mutate runs through the same probe layer as vtgate check: the stale guard catches a tree
that changed while the probes ran, ambient knobs of the shell are reported (and withheld by
--isolate-env), and live progress is drawn on a terminal only. Real subprocesses and real files."""

from __future__ import annotations

import json
import sys

from .conftest import VTGATE

STRICT_ONLY = """
[[gate]]
name = "strict-hi"
kind = "golden"
mode = "strict"
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }

[[mutation]]
name = "flip"
kind = "env"
env = { MUT_FMA = "1" }
expect = { strict-hi = "red" }
"""

# A command probe that measures, then (once, when the marker file exists) edits the tree under test
# before printing: its observation proves the tree it started on, but the tree changed during the run.
EDITS_THE_TREE = (
    "import json, pathlib, mutfake\n"
    "obs = mutfake.generate()\n"
    "marker = pathlib.Path('edit-once')\n"
    "if marker.exists():\n"
    "    marker.unlink()\n"
    "    pathlib.Path('src/mutfake/late.py').write_text('LATE = 1\\n')\n"
    "print(json.dumps(obs))\n"
)


def test_a_tree_edited_while_the_probes_ran_is_an_error_not_a_verdict(project) -> None:
    probe = f"probe = {{ cmd = {json.dumps([sys.executable, '-c', EDITS_THE_TREE])} }}\n"
    project.write_suite('[[gate]]\nname = "edited"\nkind = "golden"\nmode = "strict"\n' + probe)
    project.bless("edited")
    (project.root / "edit-once").write_text("")
    done = project.vtgate("mutate", "--no-auto")
    assert done.returncode == 3, done.stderr
    assert "changed while the probes ran" in done.stderr
    assert (project.root / "src" / "mutfake" / "late.py").exists()  # the edit really happened mid-run


def test_ambient_knobs_are_reported_and_isolate_env_withholds_them(project) -> None:
    project.write_suite(STRICT_ONLY)
    project.bless("strict-hi")
    done, report = project.mutate_json("--no-auto", env={"MUT_FMA": "1"})  # MUT_FMA is named by "flip"
    assert report["ambient_env"] == {"MUT_FMA": "1"}
    assert report["baseline"] == {"strict-hi": "red"}  # the shell's knob flipped the baseline itself
    assert "ambient knobs" not in done.stdout
    done, report = project.mutate_json("--no-auto", "--isolate-env", env={"MUT_FMA": "1"})
    assert done.returncode == 0, done.stderr
    assert report["ambient_env"] == {} and report["baseline"] == {"strict-hi": "green"}


def test_mutate_draws_progress_on_a_terminal_and_not_into_a_pipe(project, terminal) -> None:
    project.write_suite(STRICT_ONLY)
    project.bless("strict-hi")
    code, drawn = terminal.run([VTGATE, "mutate", "--no-auto"], cwd=project.root, env=terminal.env())
    assert code == 0, drawn
    assert "probe runs done" in drawn and "2/2" in drawn  # baseline + the flip mutation
    piped = project.vtgate("mutate", "--no-auto")
    assert piped.returncode == 0, piped.stderr
    assert "probe runs done" not in piped.stderr

