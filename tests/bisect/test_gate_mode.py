"""Gate mode: each candidate judged by ``vtgate check --root <worktree>`` against a fixed oracle (the
suite and goldens of the user's checkout), on a generated project with a toy engine whose probes
report their source tree hash (docs/contracts.md sections 2-4)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every test bisects real worktrees running vtgate check per candidate: .ci/run runs it with -m slow

VTGATE = str(Path(sys.executable).parent / "vtgate")

TOY_INIT = '''\
"""A toy engine: counters computed from constants in its own files."""
import hashlib
import os
from pathlib import Path

HERE = Path(__file__).parent


def tree_hash() -> str:
    digest = hashlib.sha256()
    files = sorted((p.relative_to(HERE).as_posix(), p) for p in HERE.rglob("*.py")
                   if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(HERE).parts))
    for rel, path in files:
        digest.update(rel.encode() + b"\\0" + hashlib.sha256(path.read_bytes()).digest())
    value = digest.hexdigest()
    return "0" * 64 if os.environ.get("TOY_STALE") else value
'''

TOY_PROBES = '''\
from toyeng import tree_hash
from toyeng.alpha import ALPHA_A, ALPHA_B
from toyeng.beta import BETA


def measure() -> dict:
    return {"counters": {"alpha": ALPHA_A + ALPHA_B, "beta": BETA, "gamma": 3}, "meta": {"source_tree_hash": tree_hash()}}
'''

SUITE = '''\
[suite]
pythonpath = ["src"]
source_tree = "src/toyeng"
timeout = 30

[[gate]]
name = "alpha"
kind = "counters"
counters = ["alpha"]
probe = "toyeng.probes:measure"

[[gate]]
name = "beta"
kind = "counters"
counters = ["beta"]
probe = "toyeng.probes:measure"

[[gate]]
name = "steady"
kind = "counters"
counters = ["gamma"]
probe = "toyeng.probes:measure"
'''


def alpha_file(a: int, b: int) -> str:
    # The two parts live far apart so reverting one never conflicts with a change to the other.
    return f"ALPHA_A = {a}\n" + "\n" * 8 + "# the second part\n" + "\n" * 8 + f"ALPHA_B = {b}\n"


def toy_project(make_history, kit):
    repo = make_history("toy")
    repo.commit({"vtgate.toml": SUITE, "src/toyeng/__init__.py": TOY_INIT, "src/toyeng/probes.py": TOY_PROBES,
                 "src/toyeng/alpha.py": alpha_file(1, 1), "src/toyeng/beta.py": "BETA = 7\n"}, "toy engine")
    done = subprocess.run([VTGATE, "bless", "alpha", "beta", "steady", "--reason", "first measurement"],
                          cwd=repo.path, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    repo.commit({}, "bless the goldens")
    return repo


@pytest.fixture(scope="module")
def toy_history(tmp_path_factory, kit):
    """GOOD = shas[1]; alpha breaks at shas[4] and again (masked) at shas[9]; beta breaks at shas[7];
    shas[5] cannot import (untestable); 'steady' never changes. Built once per module (read-only);
    each test gets its own cache folder."""
    base = tmp_path_factory.mktemp("toy")
    repo = toy_project(lambda name: kit.new_repo(base / name), kit)
    repo.filler(1)                                                             # 2
    repo.filler(1)                                                             # 3
    repo.commit({"src/toyeng/alpha.py": alpha_file(2, 1)}, "alpha: contract the first part")  # 4
    repo.commit({"src/toyeng/beta.py": "BETA = (\n"}, "beta: half-written edit")   # 5 (syntax error)
    repo.commit({"src/toyeng/beta.py": "BETA = 7\n"}, "beta: finish the edit")      # 6
    repo.commit({"src/toyeng/beta.py": "BETA = 8\n"}, "beta: flip the default arm")  # 7
    repo.filler(1)                                                             # 8
    repo.commit({"src/toyeng/alpha.py": alpha_file(2, 5)}, "alpha: flip the second part")  # 9
    repo.filler(2)                                                             # 10, 11
    return repo


@pytest.fixture
def toy(toy_history, tmp_path, monkeypatch):
    monkeypatch.setenv("VT_BISECT_CACHE_DIR", str(tmp_path / "cache"))
    return toy_history


def test_all_red_finds_per_gate_culprits_and_the_masked_one_in_one_run(toy, kit, vtbisect, tmp_path):
    evidence = tmp_path / "evidence"
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--all-red", "--all-culprits", "--evidence", str(evidence))
    assert ran.code == 1, ran.stderr
    found = {(c["commit"], tuple(c["gates"]), c["masked_by"]) for c in ran.culprits}
    assert found == {
        (toy.shas[4], ("alpha",), None),
        (toy.shas[7], ("beta",), None),
        (toy.shas[9], ("alpha",), toy.shas[4]),
    }
    assert ran.record["gates"] == ["alpha", "beta"]
    assert "steady" in ran.record["dropped"]
    # One judgement per commit served both gates: no commit was judged twice without reverts (a
    # culprit's recheck, the default flake check, aside: one each).
    plain = [s["commit"] for s in ran.record["steps"] if not s["reverts"] and not s["cached"] and s["phase"] != "recheck"]
    assert len(plain) == len(set(plain))
    rechecks = [s["commit"] for s in ran.record["steps"] if s["phase"] == "recheck"]
    assert len(rechecks) == len(set(rechecks))
    assert all(set(s["gates"]) == {"alpha", "beta", "steady"} for s in ran.record["steps"] if s["phase"] == "endpoint")
    readme = (evidence / "README-bisect.md").read_text()
    assert "-m vtgate check --suite" in readme and '--root "$WORKTREE"' in readme
    assert "copied once from the checkout" in readme


def test_probe_that_cannot_run_is_untestable_not_bad(toy, kit, vtbisect):
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "beta")
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [toy.shas[7]]
    broken = [s for s in ran.record["steps"] if s["commit"] == toy.shas[5]]
    assert all(s["verdict"] == "skip" for s in broken)


def test_suite_from_a_revision_judges_like_the_checkout(toy, kit, vtbisect):
    # GOOD's suite and goldens equal the checkout's here; see
    # test_candidates_own_goldens_never_judge_them for histories where they differ.
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "beta", "--suite-from", toy.shas[1])
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [toy.shas[7]]


def test_stale_source_tree_is_an_error_never_a_verdict(toy, kit, vtbisect):
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "alpha", "--no-cache", env={"TOY_STALE": "1"})
    assert ran.code == 3
    assert "stale" in ran.stderr
    assert ran.record is None
    assert kit.leftover_worktrees(toy.path) == []


def test_unknown_gate_and_green_gate_at_bad(toy, kit, vtbisect):
    unknown = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "nope")
    assert unknown.code == 2
    assert "unknown gate nope" in unknown.stderr and "alpha" in unknown.stderr
    green = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "steady")
    assert green.code == 2
    assert "gate steady is green at BAD" in green.stderr


def test_gate_red_at_good(toy, kit, vtbisect):
    ran = vtbisect(toy.path, f"{toy.shas[4]}..HEAD", "--gate", "alpha", "-j", "2")
    assert ran.code == 2
    assert "GOOD endpoint" in ran.stderr and "alpha" in ran.stderr


def test_deliberate_red_trailer_names_the_gate(make_history, kit, vtbisect):  # its own history
    repo = toy_project(make_history, kit)
    repo.filler(2)
    repo.commit({"src/toyeng/beta.py": "BETA = 9\n"}, "beta: strict oracle lands red on purpose",
                body="Deliberate-Red: beta")
    repo.filler(2)
    ran = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "beta")
    assert ran.code == 0, ran.stderr
    assert [(c["commit"], c["kind"]) for c in ran.culprits] == [(repo.shas[4], "deliberate")]


def test_all_red_with_nothing_red_at_bad_is_nothing_to_bisect(toy, kit, vtbisect):
    before = kit.snapshot(toy.path)
    ran = vtbisect(toy.path, f"{toy.shas[1]}..{toy.shas[3]}", "--all-red")
    assert ran.code == 5, ran.stderr
    assert "nothing to bisect: no gate is red at BAD" in ran.stderr
    assert kit.snapshot(toy.path) == before and kit.leftover_worktrees(toy.path) == []


def test_all_red_with_every_red_gate_red_at_good_too_is_nothing_to_bisect(toy, kit, vtbisect):
    # alpha is red at shas[4] and at shas[6]; beta and steady are green at shas[6].
    ran = vtbisect(toy.path, f"{toy.shas[4]}..{toy.shas[6]}", "--all-red")
    assert ran.code == 5, ran.stderr
    assert "every gate red at BAD is also red" in ran.stderr
    assert kit.leftover_worktrees(toy.path) == []


def test_green_gate_at_bad_and_red_gate_at_good_leave_nothing_behind(toy, kit, vtbisect):
    before = kit.snapshot(toy.path)
    for spec, gate in ((f"{toy.shas[1]}..HEAD", "steady"), (f"{toy.shas[4]}..HEAD", "alpha")):
        ran = vtbisect(toy.path, spec, "--gate", gate)
        assert ran.code == 2, ran.stderr
    assert kit.snapshot(toy.path) == before and kit.leftover_worktrees(toy.path) == []


def test_pathspec_after_the_dashes_limits_gate_mode_candidates(toy, kit, vtbisect):
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "beta", "--", "src/toyeng/beta.py")
    assert ran.code == 1, ran.stderr
    assert ran.record["candidates"] == 4  # the three beta commits and BAD (always kept)
    assert [c["commit"] for c in ran.culprits] == [toy.shas[7]]


def test_unreadable_suite_is_a_usage_error(toy, kit, vtbisect, tmp_path):
    ran = vtbisect(toy.path, f"{toy.shas[1]}..HEAD", "--gate", "beta", "--suite", str(tmp_path / "missing.toml"))
    assert ran.code == 2, ran.stderr
    assert "missing.toml" in ran.stderr
    assert kit.leftover_worktrees(toy.path) == []


def test_candidates_own_goldens_never_judge_them(make_history, kit, vtbisect):  # its own history
    repo = toy_project(make_history, kit)
    repo.filler(2)                                                             # 2, 3
    repo.commit({"src/toyeng/beta.py": "BETA = 8\n"}, "beta: flip the default arm")  # 4
    done = subprocess.run([VTGATE, "bless", "beta", "--reason", "accept the new arm"], cwd=repo.path,
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    repo.commit({}, "goldens: re-bless beta under the new arm")                # 5
    repo.filler(1)                                                             # 6
    # From shas[5] on, each candidate's own goldens call beta green. The oracle is fixed instead:
    # GOOD's suite and goldens judge every candidate, so the flip at shas[4] is found.
    fixed = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "beta", "--suite-from", repo.shas[1])
    assert fixed.code == 1, fixed.stderr
    assert [c["commit"] for c in fixed.culprits] == [repo.shas[4]]
    # The checkout's oracle is its working files, uncommitted edits included: restore GOOD's goldens
    # in the working tree only and the same culprit is found without --suite-from.
    kit.git(repo.path, "restore", "--source", repo.shas[1], "--worktree", "--", "goldens")
    assert kit.git(repo.path, "status", "--porcelain"), "the goldens are an uncommitted edit"
    before = kit.snapshot(repo.path)
    working = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "beta")
    assert working.code == 1, working.stderr
    assert [c["commit"] for c in working.culprits] == [repo.shas[4]]
    assert kit.snapshot(repo.path) == before


def test_gates_with_one_culprit_are_grouped_and_share_every_judgement(make_history, kit, vtbisect):
    repo = toy_project(make_history, kit)
    repo.filler(3)
    repo.commit({"src/toyeng/alpha.py": alpha_file(3, 1), "src/toyeng/beta.py": "BETA = 9\n"}, "retune both arms")
    repo.filler(3)
    ran = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "alpha", "--gate", "beta")
    assert ran.code == 1, ran.stderr
    assert [(c["commit"], c["gates"]) for c in ran.culprits] == [(repo.shas[5], ["alpha", "beta"])]
    judged = [s["commit"] for s in ran.record["steps"] if s["phase"] != "recheck"]
    assert len(judged) == len(set(judged)), "one judgement per commit served both gates"
    rechecks = [s for s in ran.record["steps"] if s["phase"] == "recheck"]
    assert [(s["commit"], set(s["gates"])) for s in rechecks] == [(repo.shas[5], {"alpha", "beta"})], \
        "the culprit's recheck is one judgement serving both gates"
