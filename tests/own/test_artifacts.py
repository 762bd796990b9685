"""[suite] artifacts: files git does not track (exported weights, usually ignored) that the engine
needs. Each glob must match a file (else a configuration error naming it, exit 2), and vtgate
mutate's patched copies get them linked in, so a mutation measures the patched code on the same
weights instead of failing on a missing file."""

from __future__ import annotations

import hashlib
import subprocess

ENGINE = '''\
"""Reads its "weights" from an ignored file, as an exported checkpoint would be."""
from pathlib import Path

from vtgate.treehash import source_tree_hash


def probe():
    weights = [int(x) for x in Path("models/w.txt").read_text().split()]
    return {"tokens": [w + 0 for w in weights], "meta": {"source_tree_hash": source_tree_hash("wengine")}}
'''

SUITE = """
[[gate]]
name  = "g"
kind  = "golden"
probe = "wengine:probe"

[[mutation]]
name   = "shifted"
kind   = "patch"
patch  = "shift.diff"
expect = { g = "red" }
"""


def _header(artifacts: str) -> str:
    return f'[suite]\npythonpath = ["."]\nsource_tree = "wengine"\nknob_prefixes = ["TINY_"]\ntimeout = 60\n{artifacts}\n'


def _git_project(project) -> None:
    root = project.root
    (root / "wengine").mkdir()
    (root / "wengine" / "__init__.py").write_text(ENGINE)
    (root / ".gitignore").write_text("models/\n")
    (root / "models").mkdir()
    (root / "models" / "w.txt").write_text("3 1 4 1 5\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "wengine", ".gitignore"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "engine"], cwd=root, check=True)
    (root / "wengine" / "__init__.py").write_text(ENGINE.replace("w + 0", "w + 1"))
    diff = subprocess.run(["git", "diff"], cwd=root, capture_output=True, text=True, check=True).stdout
    (root / "shift.diff").write_text(diff)
    subprocess.run(["git", "checkout", "-q", "wengine"], cwd=root, check=True)


def test_a_glob_that_matches_nothing_is_a_configuration_error(project) -> None:
    project.write_suite('[[gate]]\nname = "e"\nkind = "envdoc"\n',
                        header=_header('artifacts = ["models/*.safetensors"]'))
    done = project.vtgate("check")
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "[suite] artifacts: 'models/*.safetensors' matches no file under" in said
    assert "or fix the glob" in said


def test_mutate_copies_get_the_untracked_artifacts(project) -> None:
    _git_project(project)
    project.write_suite(SUITE, header=_header('artifacts = ["models/*.txt"]'))
    project.bless("g")
    done = project.vtgate("mutate", "-m", "shifted", "--no-auto")
    assert done.returncode == 0, done.stderr
    assert "shifted (patch) met: kills 1" in " ".join(done.stderr.split())


def test_without_artifacts_the_copy_lacks_the_ignored_weights(project) -> None:
    """The control: the same mutation without the declaration cannot run its probe in the copy."""
    _git_project(project)
    project.write_suite(SUITE, header=_header(""))
    project.bless("g")
    done = project.vtgate("mutate", "-m", "shifted", "--no-auto")
    assert done.returncode != 0
    assert "models/w.txt" in done.stderr


def test_bless_and_mutate_refuse_a_glob_that_matches_nothing_too(project) -> None:
    project.write_suite('[[gate]]\nname = "e"\nkind = "envdoc"\n', header=_header('artifacts = ["models/*.bin"]'))
    for command in (["bless", "e", "--reason", "x"], ["mutate", "--no-auto"]):
        done = project.vtgate(*command)
        assert done.returncode == 2, (command, done.stderr)
        assert "'models/*.bin' matches no file under" in " ".join(done.stderr.split())


def test_a_suite_loads_where_its_artifacts_are_not(project, tmp_path) -> None:
    """Loading alone never looks for the files: vtbisect stages the suite in a folder of its own."""
    from vtgate.suite.load import load_suite

    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "vtgate.toml").write_text(_header('artifacts = ["models/*.bin"]'))
    assert load_suite(staged / "vtgate.toml").settings.artifacts == ("models/*.bin",)


def test_bless_records_the_artifacts_and_check_refuses_other_weights(project) -> None:
    _git_project(project)
    project.write_suite('[[gate]]\nname = "g"\nkind = "golden"\nprobe = "wengine:probe"\n',
                        header=_header('artifacts = ["models/*.txt"]'))
    project.bless("g")
    recorded = project.golden("g")["provenance"]["artifacts"]
    weights = project.root / "models" / "w.txt"
    assert recorded == {"file:models/w.txt": hashlib.sha256(weights.read_bytes()).hexdigest()}
    weights.write_text("3 1 4 1 5 \n")  # other bytes, the same tokens: still not the blessed weights
    done, report = project.check_json()
    assert done.returncode == 3
    (gate,) = report["gates"]
    assert gate["error_kind"] == "artifact" and "artifact file:models/w.txt" in gate["error"]
    weights.write_text("3 1 4 1 5\n")
    done, report = project.check_json()
    assert done.returncode == 0, done.stderr
