"""Patch mutations run the gates from a patched throw-away copy, prove through the source tree hash
that the probes imported the patched code (a run of the wrong code is an error, never a kill), and
refuse a patch that does not apply (exit 2, naming the patch and git apply's own message)."""

from __future__ import annotations

import shutil
import subprocess

from vtgate.treehash import source_tree_hash

FLIP = ("stream = [(seed + 7 * i * i + 3 * i) % 97 for i in range(tokens)]",
        "stream = [(seed + 7 * i * i + 3 * i) % 97 for i in range(tokens)]\n    stream[-1] = (stream[-1] + 1) % 97")

PATCH_MUTATION = """
[[mutation]]
name = "last-token-flipped"
kind = "patch"
patch = "goldens/mutations/flip.diff"
expect = { strict-hi = "red", anchor-hi = "red", draft-band = "green" }
"""


def _independent_patched_hash(project, tmp_path) -> str:
    copy = tmp_path / "independent"
    shutil.copytree(project.root / "src", copy / "src")
    subprocess.run(["git", "apply", str(project.root / "goldens/mutations/flip.diff")], cwd=copy, check=True)
    return source_tree_hash(copy / "src" / "mutfake")


def test_patch_mutation_runs_the_patched_code_and_proves_it(blessed, texts, tmp_path) -> None:
    blessed.patch("flip", FLIP)
    blessed.write_suite(texts.gates + PATCH_MUTATION)
    user_hash = source_tree_hash(blessed.root / "src" / "mutfake")
    done, report = blessed.mutate_json()
    assert done.returncode == 0, done.stderr
    patch = next(m for m in report["mutations"] if m["name"] == "last-token-flipped")
    assert patch["kind"] == "patch" and patch["met"] is True
    assert sorted(patch["kills"]) == ["anchor-hi", "strict-hi"]
    assert patch["summaries"]["strict-hi"].startswith("11/12 exact — first divergence at position 11")
    proof = patch["proof"]
    assert proof["user_tree_hash"] == user_hash
    assert proof["source_tree_hash"] == _independent_patched_hash(blessed, tmp_path)
    assert proof["source_tree_hash"] != user_hash and proof["differs"] is True
    assert proof["files"] == ["src/mutfake/__init__.py"]
    assert "patched copy ran source tree " + proof["source_tree_hash"][:12] in blessed.vtgate("mutate", "-q").stderr


def test_the_users_tree_is_untouched_and_no_copy_is_left(blessed, texts, tmp_path) -> None:
    blessed.patch("flip", FLIP)
    blessed.write_suite(texts.gates + PATCH_MUTATION)
    blessed.commit("with patch")
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    source = (blessed.root / "src/mutfake/__init__.py").read_bytes()
    done, _ = blessed.mutate_json(env={"TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stderr
    assert list(scratch.iterdir()) == []
    assert (blessed.root / "src/mutfake/__init__.py").read_bytes() == source
    assert subprocess.run(["git", "status", "--porcelain"], cwd=blessed.root, capture_output=True,
                          text=True).stdout == ""


def test_uncommitted_edits_come_along_into_the_copy(blessed, texts) -> None:
    """The copy is the tree as it is on disk (tracked and untracked files), not HEAD."""
    blessed.patch("flip", FLIP)
    blessed.write_suite(texts.gates + PATCH_MUTATION)
    extra = blessed.root / "src" / "mutfake" / "extra.py"
    extra.write_text("VALUE = 1\n")  # untracked, not ignored
    done, report = blessed.mutate_json("--no-auto", "--gate", "strict-hi")
    patch = next(m for m in report["mutations"] if m["name"] == "last-token-flipped")
    assert patch["actual"] == {"strict-hi": "red"}
    assert patch["proof"]["user_tree_hash"] == source_tree_hash(blessed.root / "src" / "mutfake")


def test_copy_that_imports_the_wrong_code_is_an_error_not_a_kill(blessed, texts) -> None:
    """pythonpath pointing at the user's tree (absolute) makes the copy's probes import the user's
    code: the stale guard turns every gate of that mutation into an error, and the run exits 3."""
    blessed.patch("flip", FLIP)
    header = texts.header.replace('pythonpath = ["src"]', f'pythonpath = ["{blessed.root / "src"}"]')
    blessed.write_suite(texts.gates + PATCH_MUTATION, header=header)
    done, report = blessed.mutate_json("--no-auto")
    assert done.returncode == 3, done.stderr
    patch = next(m for m in report["mutations"] if m["name"] == "last-token-flipped")
    assert set(patch["actual"].values()) == {"error"}
    assert patch["kills"] == [] and patch["met"] is False
    assert patch["summaries"]["strict-hi"].startswith("stale guard: probe mutfake:generate ran code hashing ")
    assert "last-token-flipped" not in report["kills"]["strict-hi"]


def test_patch_that_does_not_apply_is_a_config_error(blessed, texts) -> None:
    blessed.patch("flip", FLIP)
    source = blessed.root / "src/mutfake/__init__.py"
    source.write_text(source.read_text().replace("% 97 for i in range(tokens)]", "% 89 for i in range(tokens)]"))
    blessed.write_suite(texts.gates + PATCH_MUTATION)
    done = blessed.vtgate("mutate", "-q")
    assert done.returncode == 2
    text = done.stderr
    assert "configuration error: patch goldens/mutations/flip.diff does not apply to the tree under test: " \
           "error: patch failed: src/mutfake/__init__.py:" in text
    assert "error: src/mutfake/__init__.py: patch does not apply" in text
    assert "git diff > goldens/mutations/flip.diff" in text
