"""Build-aware cut points (docs/bisect.md, "Build-aware cut points") and the build step's space-safe
paths: real C programs built with the system compiler over real git histories, the same bisection with
``--cut-points plain`` beside it; and the pure choice (``build_aware_cut``) over every first-bad position
of generated state layouts, untestable commits included."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from vtbisect.search import CUT_TOLERANCE, MultiGateSearch, Verdict, build_aware_cut

from tests.bisect.conftest import History, Ran, git

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "schemas" / "bisect.schema.json").read_text())

PROG = """\
#include <stdio.h>
#include "value.h"
int main(void) {{ printf("%d\\n", VALUE); return 0; }}
/* {note} */
"""
BUILD = """\
#!/bin/sh
set -e
mkdir -p out
cc -O0 -o out/prog prog.c
if [ -n "$BUILD_COUNT" ]; then echo "$VTBISECT_COMMIT" >> "$BUILD_COUNT"; fi
"""
# The program's output and the Python side: the regression may be in either.
JUDGE = """\
#!/bin/sh
test "$(./out/prog)" = 1 && grep -q "ok = 1" app.py
"""


def c_history(history: History, n: int, culprit: int, *, merge_at: int | None = None) -> dict[int, str]:
    """``n`` commits after the base; every fifth touches the C source (20%), the rest only ``app.py``; the
    Python commit at ``culprit`` breaks ``app.py`` for good. With ``merge_at``, commits from there on are
    made on a branch merged back at the end (the culprit among them when it is at or after ``merge_at``)."""
    history.commit({"prog.c": PROG.format(note="base"), "value.h": "#define VALUE 1\n", "build.sh": BUILD,
                    "judge.sh": JUDGE, "app.py": "ok = 1\n"}, "base")
    for name in ("build.sh", "judge.sh"):
        os.chmod(history.path / name, 0o755)
    git(history.path, "add", "-A")
    git(history.path, "commit", "-q", "--amend", "--no-edit")
    history.shas[-1] = git(history.path, "rev-parse", "HEAD")
    shas = {}
    for i in range(n):
        if merge_at is not None and i == merge_at:
            git(history.path, "checkout", "-q", "-b", "topic")
        if i % 5 == 4:
            shas[i] = history.commit({"prog.c": PROG.format(note=f"change {i}")}, f"c change {i}")
        else:
            shas[i] = history.commit({"app.py": f"ok = {0 if i >= culprit else 1}\n# {i}\n"}, f"python change {i}")
    if merge_at is not None:
        git(history.path, "checkout", "-q", "main")
        history.commit({"notes.txt": "main moves on\n"}, "main: notes")
        git(history.path, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
        history.shas.append(git(history.path, "rev-parse", "HEAD"))
    return shas


def build_args(*extra: str) -> list[str]:
    return ["--setup", "./build.sh", "--build-input", "*.c", "--build-input", "*.h", "--build-output", "out",
            *extra, "--", "./judge.sh"]


def counted(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs the system C compiler (cc)")


def test_build_aware_cuts_find_the_same_culprit_with_fewer_builds(
        make_history: Callable[..., History], vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    """The culprit is a Python commit between two C commits: the plain midpoint builds 4 input states,
    the build-aware cut moves once to a state already built and builds 3. Same culprit, fresh caches."""
    history = make_history()
    shas = c_history(history, 40, 12)
    rng = f"{history.shas[0]}..{history.shas[-1]}"
    runs = {}
    for how in ("plain", "build-aware", "build-aware again"):
        count = tmp_path / f"{how}.count"
        extra = ["--cut-points", "plain"] if how == "plain" else []
        ran = vtbisect(history.path, rng, "--cache-dir", str(tmp_path / how), *build_args(*extra),
                       env={"BUILD_COUNT": str(count)})
        assert ran.code == 1, ran.stderr
        assert ran.record is not None
        jsonschema.validate(ran.record, SCHEMA)
        assert [c["commit"] for c in ran.culprits] == [shas[12]]
        build = ran.record["build"]
        assert build["builds"] == len(counted(count)) == build["distinct_inputs"]
        runs[how] = ran
    plain, aware = runs["plain"].record, runs["build-aware"].record
    assert plain is not None and aware is not None
    assert aware["build"]["builds"] < plain["build"]["builds"], (aware["build"], plain["build"])
    cuts = aware["build"]["cut_points"]
    assert cuts["rule"] == "build-aware" and cuts["moved"] == len(cuts["moves"]) >= 1
    assert cuts["cuts"] >= cuts["moved"]
    for move in cuts["moves"]:
        assert move["plain"] != move["chosen"] and move["reason"] in ("built", "fewer builds")
    assert plain["build"]["cut_points"] == {"rule": "plain", "cuts": 0, "moved": 0, "moves": []}
    assert f"cut points: build-aware, {cuts['moved']} of {cuts['cuts']} moved" in runs["build-aware"].stderr
    assert "cut points: plain" in runs["plain"].stderr
    # deterministic: a second run from a fresh cache judges the same commits in the same order
    again = runs["build-aware again"].record
    assert again is not None
    assert [s["commit"] for s in again["steps"]] == [s["commit"] for s in aware["steps"]]


def test_build_aware_cuts_over_merges_and_untestable_commits(
        make_history: Callable[..., History], vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    """Over the commit graph (a culprit on a merged branch) and with commits that do not build (setup
    failure: skip), the build-aware rule names what the plain one names."""
    history = make_history()
    shas = c_history(history, 30, 21, merge_at=15)
    broken = history.commit({"prog.c": "int main(void) { return syntax error; }\n"}, "c: does not compile")
    history.commit({"prog.c": PROG.format(note="fixed")}, "c: compiles again")
    rng = f"{history.shas[0]}..{history.shas[-1]}"
    found = {}
    for how in ("plain", "build-aware"):
        ran = vtbisect(history.path, rng, "--cache-dir", str(tmp_path / how), *build_args("--cut-points", how))
        assert ran.code == 1, ran.stderr
        assert ran.record is not None
        jsonschema.validate(ran.record, SCHEMA)
        found[how] = [(c["commit"], c.get("note", "")) for c in ran.culprits]
        assert broken not in [c["commit"] for c in ran.culprits]
    assert found["plain"] == found["build-aware"]
    assert found["plain"][0][0] == shas[21] and found["plain"][0][1].startswith("on the branch merged by ")


def test_cut_points_flag_needs_the_build_cache(make_history: Callable[..., History],
                                               vtbisect: Callable[..., Ran]) -> None:
    history = make_history()
    c_history(history, 5, 2)
    rng = f"{history.shas[0]}..{history.shas[-1]}"
    ran = vtbisect(history.path, rng, "--cut-points", "build-aware", "--setup", "./build.sh", "--", "./judge.sh")
    assert ran.code == 2 and "--build-input" in ran.stderr, ran.stderr
    ran = vtbisect(history.path, rng, *build_args("--cut-points", "midpoint"))
    assert ran.code == 2 and "build-aware or plain" in ran.stderr, ran.stderr


UNQUOTED = """\
#!/bin/sh
set -e
mkdir -p $PWD/out
cc -O0 -o $PWD/out/prog $PWD/prog.c
cp $VTBISECT_WORKTREE/value.h $PWD/out/value.h
"""


def test_a_cache_folder_with_spaces_reaches_the_build_without_them(
        make_history: Callable[..., History], vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    """A build script that does not quote its paths (as ultrajson's does not) works with a cache folder
    whose path has spaces: the build sees a space-free symlink, and the run says so."""
    history = make_history()
    shas = c_history(history, 10, 6)
    script = tmp_path / "unquoted.sh"
    script.write_text(UNQUOTED)
    script.chmod(0o755)
    cache = tmp_path / "my cache folder"
    rng = f"{history.shas[0]}..{history.shas[-1]}"
    args = ["--setup", str(script), "--build-input", "*.c", "--build-input", "*.h", "--build-output", "out",
            "--", "./judge.sh"]
    ran = vtbisect(history.path, rng, "--cache-dir", str(cache), *args)
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[6]]
    assert ran.record is not None and ran.record["build"]["build_failures"] == 0
    assert "build scripts seldom quote" in ran.stderr
    assert (cache / "builds").is_dir()  # the real folder holds the build cache
    assert ran.record["recipe"]["cache_dir"] == str(cache.resolve())
    # the contrast: the same script in that folder without the alias fails, so the test shows the fix
    plain = tmp_path / "a b"
    plain.mkdir()
    (plain / "prog.c").write_text(PROG.format(note="x"))
    (plain / "value.h").write_text("#define VALUE 1\n")
    done = subprocess.run([str(script)], cwd=plain, capture_output=True, text=True,
                          env={**os.environ, "PWD": str(plain), "VTBISECT_WORKTREE": str(plain)})
    assert done.returncode != 0


# ---- the pure choice ------------------------------------------------------------------------------------


def layouts() -> list[list[int]]:
    """State per candidate (a new state where a commit changes the build inputs): evenly spread, a C
    series first, random with 20% C commits, and states that come back (a revert of a build change)."""
    out = [[(i + 1) // 5 for i in range(37)], [min(i, 8) for i in range(37)]]
    rng = random.Random(7)
    for _ in range(3):
        state, states = 0, []
        for _ in range(rng.randrange(20, 70)):
            state += rng.random() < 0.2
            states.append(state)
        out.append(states)
    out.append([(i // 4) % 3 for i in range(30)])
    return out


@pytest.mark.parametrize("layout", range(len(layouts())))
def test_every_first_bad_commit_is_found_as_before(layout: int) -> None:
    """For each first-bad position (and with one untestable commit beside it), the build-aware search
    names exactly what the plain one names, and every cut stays within the tolerance or is the plain
    pick. Builds: fewer summed over every position (the rule minimises the expected cost, so one position
    may need one build more)."""
    states = layouts()[layout]
    n = len(states)

    def state(i: int) -> str:
        return "good" if i < 0 else f"s{states[i]}" if states[i] else "good"

    totals = [0, 0]
    for culprit in range(n):
        for untestable in (None, max(0, culprit - 1)):
            results = []
            for aware in (False, True):
                built = {"good"}
                search = MultiGateSearch(["g"], n)

                def choose(lo: int, hi: int, plain: int, free: list[int], built: set[str] = built) -> object:
                    choice = build_aware_cut(lo, hi, plain, free, state, built)
                    assert choice.index in free
                    split = (choice.index - lo) / (hi - lo)
                    assert choice.index == plain or CUT_TOLERANCE <= split <= 1 - CUT_TOLERANCE
                    return choice

                judged = 0
                while not search.done:
                    [index] = search.propose(1, chooser=choose if aware else None)  # type: ignore[arg-type]
                    verdict: Verdict = "skip" if index == untestable else "bad" if index >= culprit else "good"
                    if verdict != "skip":
                        built.add(state(index))
                    search.record(index, {"g": verdict})
                    judged += 1
                outcome = search.outcomes()["g"]
                results.append((outcome.first_bad, outcome.candidates, len(built)))
            assert results[0][:2] == results[1][:2], (layout, culprit, untestable)
            if untestable is None:
                totals[0] += results[0][2]
                totals[1] += results[1][2]
    if layout == 0:  # evenly spread: the layout the plain midpoint serves worst
        assert totals[1] < totals[0], totals
    else:
        assert totals[1] <= totals[0], totals


def test_a_cut_moves_only_for_a_build_saved() -> None:
    states = [i // 5 for i in range(60)]

    def state(i: int) -> str:
        return str(0 if i < 0 else states[i])

    # one state everywhere: nothing to save, the plain pick stays
    choice = build_aware_cut(-1, 59, 29, list(range(59)), lambda i: "same", {"same"})
    assert not choice.moved and choice.reason == ""
    # the plain pick is already built: it stays
    assert not build_aware_cut(19, 40, 30, list(range(20, 40)), state, {"3", "4", "6", "7", "8"}).moved
    # a narrow bracket whose midpoint (25, state 5) needs a build, beside a built state (24, state 4) that
    # splits it 4:7, within 35:65: the cut moves there
    choice = build_aware_cut(20, 31, 25, list(range(21, 31)), state, {"4"})
    assert (choice.index, choice.plain, choice.reason) == (24, 25, "built")
    # an unknown state (None) is never taken for built, and nothing moves for it
    assert not build_aware_cut(20, 31, 25, list(range(21, 31)), lambda i: None, {"4"}).moved
