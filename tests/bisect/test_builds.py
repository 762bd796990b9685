"""The build step (docs/bisect.md, "Building each candidate"): real C programs built with the system
compiler over real git histories, a setup that fails or hangs, the build cache's hits and misses,
prebuilt artifacts from a local folder (with checksums), ccache, and per-commit environments made by uv
from a lock file with local wheels only."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from tests.bisect.conftest import VTBISECT, History, Ran, git

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs the system C compiler (cc)")

SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "schemas" / "bisect.schema.json").read_text())

PROG = """\
#include <stdio.h>
#include "value.h"
int main(void) {{ printf("%d\\n", VALUE); return 0; }}
/* {note} */
"""
# The build script counts its own runs in $BUILD_COUNT (outside the repository): the test's own tally
# of builds, independent of what vtbisect reports.
BUILD = """\
#!/bin/sh
set -e
if [ -f hang ]; then sleep 30; fi
mkdir -p out
cc -O0 -c -o out/prog.o prog.c
cc -o out/prog out/prog.o
if [ -n "$BUILD_COUNT" ]; then echo "$VTBISECT_COMMIT" >> "$BUILD_COUNT"; fi
"""
JUDGE = """\
#!/bin/sh
test "$(./out/prog)" = 1
"""


def c_repo(history: History) -> str:
    history.commit({"prog.c": PROG.format(note="base"), "value.h": "#define VALUE 1\n", "build.sh": BUILD,
                    "judge.sh": JUDGE, "app.py": "x = 0\n"}, "base: prints 1")
    for name in ("build.sh", "judge.sh"):
        os.chmod(history.path / name, 0o755)
    git(history.path, "add", "-A")
    git(history.path, "commit", "-q", "--amend", "--no-edit")
    history.shas[-1] = git(history.path, "rev-parse", "HEAD")
    return history.shas[-1]


def spread_history(history: History, n: int = 40, culprit: int = 24) -> dict[int, str]:
    """``n`` commits after the base; every fifth touches the C sources (20%), the rest only app.py; the C
    commit at ``culprit`` makes the program print 2."""
    c_repo(history)
    shas = {}
    for i in range(n):
        if i % 5 == 4:
            files = {"prog.c": PROG.format(note=f"change {i}")}
            if i == culprit:
                files["value.h"] = "#define VALUE 2\n"
            shas[i] = history.commit(files, f"c change {i}" + (" (prints 2)" if i == culprit else ""))
        else:
            shas[i] = history.commit({"app.py": f"x = {i}\n"}, f"python change {i}")
    return shas


def build_args(*extra: str) -> list[str]:
    return ["--setup", "./build.sh", "--build-input", "*.c", "--build-input", "*.h", "--build-output", "out",
            *extra, "--", "./judge.sh"]


def counted(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.parametrize("jobs", [1, 2])
def test_build_cache_builds_once_per_distinct_input(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                    tmp_path: Path, jobs: int) -> None:
    """With -j 2 two worktrees needing the same build wait for one another: still one build per state."""
    history = make_history()
    shas = spread_history(history)
    count = tmp_path / "builds.txt"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "-j", str(jobs), *build_args(),
                   env={"BUILD_COUNT": str(count)})
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[24]]
    record = ran.record
    assert record is not None
    jsonschema.validate(record, SCHEMA)
    build = record["build"]
    # every judgement prepared its worktree: a build or a hit
    assert build["cache_hits"] + build["cache_misses"] == record["judgements"] == len(build["events"])
    # the build cache builds each distinct set of inputs once, and the build script agrees
    assert build["builds"] == build["cache_misses"] == build["distinct_inputs"] == len(counted(count))
    assert build["cache_hits"] >= 1
    assert build["build_failures"] == 0
    # a hit ran no setup: each event of kind cache names the commit that built what it restored
    hits = [e for e in build["events"] if e["how"] == "cache"]
    assert all(e["built_at"] in counted(count) for e in hits)
    assert "build step:" in ran.stderr


def test_python_only_history_builds_under_a_third_of_its_judgements(
        make_history: Callable[..., History], vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    """The issue's target, on a history where 80% of the commits touch only Python files: a C series
    (the first 20%) and then Python work, a regression in a Python commit that the program's output
    reveals through ``app.py``. Every judged commit after the C series shares one build."""
    history = make_history()
    c_repo(history)
    shas = {}
    for i in range(50):
        if i < 10:
            shas[i] = history.commit({"prog.c": PROG.format(note=f"c series {i}")}, f"c series {i}")
        else:
            shas[i] = history.commit({"app.py": f"x = {0 if i < 37 else 1}\n# {i}\n"}, f"python change {i}")
    judge = tmp_path / "judge.sh"  # yours, outside the repository: the program's output and app.py
    judge.write_text('#!/bin/sh\ntest "$(./out/prog)" = 1 && grep -q "x = 0" app.py\n')
    judge.chmod(0o755)
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", *build_args()[:-1], str(judge),
                   env={"BUILD_COUNT": str(tmp_path / "n")})
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[37]]
    build = ran.record["build"] if ran.record else {}
    assert build["builds"] <= 0.3 * ran.record["judgements"], ran.stderr
    assert build["builds"] == len(counted(tmp_path / "n")) == build["distinct_inputs"]


def test_setup_failure_is_untestable_and_logged(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                tmp_path: Path) -> None:
    history = make_history()
    c_repo(history)
    history.commit({"app.py": "x = 1\n"}, "python 1")
    broken = history.commit({"prog.c": "int main(void) { return syntax error here; }\n"}, "c: does not compile")
    culprit = history.commit({"prog.c": PROG.format(note="fixed"), "value.h": "#define VALUE 2\n"}, "c: prints 2")
    for i in range(3):
        history.commit({"app.py": f"x = {i + 2}\n"}, f"python {i + 2}")
    evidence = tmp_path / "evidence"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--evidence", str(evidence), *build_args())
    assert ran.code == 1, ran.stderr
    record = ran.record
    assert record is not None
    # the commit that does not build is skipped (never a bad verdict), so the first bad commit is one of the two
    assert record["culprits"][0]["candidates"] == [broken, culprit]
    skipped = [s for s in record["steps"] if s["commit"] == broken]
    assert skipped and all(s["verdict"] == "skip" for s in skipped)
    assert record["build"]["build_failures"] >= 1
    # its setup log (the compiler's error) is kept in the evidence
    log = next(evidence.glob(f"steps/*-{broken[:10]}.log")).read_text()
    assert "setup failed" in log and "error" in log and "syntax" in log
    assert "## Build step" in (evidence / "README-bisect.md").read_text()
    jsonschema.validate(record, SCHEMA)

    # --setup-failure fatal: the same failure stops the run with exit 3 and the log
    fatal = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--no-cache", "--setup-failure", "fatal",
                     *build_args())
    assert fatal.code == 3, fatal.stderr
    assert "--setup-failure fatal" in fatal.stderr and "syntax" in fatal.stderr


def test_setup_timeout_is_a_setup_failure(make_history: Callable[..., History], vtbisect: Callable[..., Ran]) -> None:
    history = make_history()
    c_repo(history)
    hangs = history.commit({"hang": "1\n"}, "build hangs here")
    bad = history.commit({"hang": None, "value.h": "#define VALUE 2\n"}, "prints 2")
    ran = vtbisect(history.path, f"{history.shas[0]}..{bad}", "--setup-timeout", "1", "--setup", "./build.sh",
                   "--", "./judge.sh")  # no build cache: the hang is no build input, a hit would skip the setup
    assert ran.code == 1, ran.stderr
    record = ran.record
    assert record is not None
    assert [s["verdict"] for s in record["steps"] if s["commit"] == hangs] == ["skip"]
    assert record["culprits"][0]["candidates"] == [hangs, bad]


def test_setup_from_the_suites_bisect_table(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                            tmp_path: Path) -> None:
    """``[bisect]`` in the checkout's vtgate.toml gives the same settings as the flags (and vtgate's suite
    loader accepts the table)."""
    history = make_history()
    shas = spread_history(history, n=10, culprit=4)
    (history.path / "vtgate.toml").write_text(
        '[bisect]\nsetup = "./build.sh"\nbuild_inputs = ["*.c", "*.h"]\nbuild_outputs = ["out"]\n')
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--", "./judge.sh")
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[4]]
    assert ran.record is not None and ran.record["build"]["setup"] == ["./build.sh"]
    assert ran.record["build"]["cache_hits"] >= 1

    from vtgate.suite.load import load_suite

    (history.path / "vtgate.toml").write_text((history.path / "vtgate.toml").read_text() + "\n[suite]\n")
    load_suite(history.path / "vtgate.toml")  # no "unknown top-level key 'bisect'"

    (history.path / "vtgate.toml").write_text('[bisect]\nsetpu = "./build.sh"\n')
    typo = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--", "./judge.sh")
    assert typo.code == 2 and "did you mean 'setup'" in typo.stderr


def test_a_changed_setup_is_another_judge(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                          tmp_path: Path) -> None:
    """The setup command and the script it names outside the tree are part of every verdict's cache key."""
    history = make_history()
    c_repo(history)
    history.commit({"value.h": "#define VALUE 2\n"}, "prints 2")
    outside = tmp_path / "mybuild.sh"
    outside.write_text("#!/bin/sh\nmkdir -p out && cc -o out/prog prog.c\n")
    outside.chmod(0o755)
    args = [f"{history.shas[0]}..{history.shas[-1]}", "--setup", str(outside), "--", "./judge.sh"]
    first = vtbisect(history.path, *args)
    again = vtbisect(history.path, *args)
    assert first.record is not None and again.record is not None
    assert first.record["evaluations"] >= 1 and again.record["evaluations"] == 0  # all from the verdict cache
    flags = vtbisect(history.path, *args, env={"CFLAGS": "-O1"})  # what the build reads from the environment
    assert flags.record is not None and flags.record["evaluations"] >= 1, flags.stderr
    outside.write_text(outside.read_text() + "# changed\n")
    changed = vtbisect(history.path, *args)
    assert changed.record is not None and changed.record["evaluations"] >= 1, changed.stderr


def compile_at(history: History, sha: str, target: Path) -> None:
    """The program as built at ``sha``, made outside the repository (what a CI would publish)."""
    source = target.parent / "src"
    source.mkdir(parents=True, exist_ok=True)
    for name in ("prog.c", "value.h"):
        (source / name).write_text(git(history.path, "show", f"{sha}:{name}") + "\n")
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cc", "-o", str(target), str(source / "prog.c")], check=True, cwd=source)


def test_prebuilt_artifacts_from_a_local_folder(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                tmp_path: Path) -> None:
    history = make_history()
    shas = spread_history(history, n=10, culprit=4)
    arts = tmp_path / "arts"
    missing = shas[7]
    for sha in history.shas:
        if sha != missing:
            compile_at(history, sha, arts / sha / "out" / "prog")
    count = tmp_path / "builds.txt"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--artifact", str(arts / "{commit}"),
                   "--setup", "./build.sh", "--", "./judge.sh", env={"BUILD_COUNT": str(count)})
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[4]]
    build = ran.record["build"] if ran.record else {}
    judged = {e["commit"] for e in build["events"]}
    # every judged commit with an artifact installed it, never building; the one without fell back to setup
    assert build["artifacts_installed"] == sum(1 for e in build["events"] if e["commit"] != missing)
    assert counted(count) == [missing] * sum(1 for e in build["events"] if e["commit"] == missing)
    assert (missing in judged) == (build["artifacts_missing"] > 0)

    # a single file with a sha256 checksum file, installed by a command; a wrong checksum is never installed
    files = tmp_path / "files"
    for sha in history.shas:
        prog = files / sha / "prog"
        compile_at(history, sha, prog)
        digest = hashlib.sha256(prog.read_bytes()).hexdigest()
        (files / f"{sha}.sha256").write_text(f"{digest}  prog\n")
    (files / f"{shas[4]}.sha256").write_text("0" * 64 + "  prog\n")  # corrupted: the culprit becomes untestable
    checked = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--no-cache",
                       "--artifact", str(files / "{commit}" / "prog"),
                       "--artifact-checksum", str(files / "{commit}.sha256"),
                       "--artifact-install", "install -D -m 755 {artifact} out/prog",
                       "--artifact-missing", "skip", "--", "./judge.sh")
    assert checked.record is not None, checked.stderr
    steps = {s["commit"]: s["verdict"] for s in checked.record["steps"]}
    assert steps.get(shas[4]) == "skip"
    assert checked.record["culprits"][0]["candidates"] == [shas[4], shas[5]]
    jsonschema.validate(checked.record, SCHEMA)


def ccache_stats(folder: Path) -> dict[str, int]:
    done = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True, check=True,
                          env={**os.environ, "CCACHE_DIR": str(folder)})
    return {k: int(v) for k, v in (line.split("\t") for line in done.stdout.splitlines() if "\t" in line)
            if v.isdigit()}


@pytest.mark.skipif(shutil.which("ccache") is None,
                    reason="ccache is not installed (.ci/run installs it: apt-get install -y ccache)")
def test_ccache_serves_a_rebuild_whose_inputs_differ_only_in_comments(
        make_history: Callable[..., History], vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    history = make_history()
    shas = spread_history(history, n=10, culprit=9)  # C commits 4 and 9 change only a comment / the value
    folder = tmp_path / "ccache"
    count = tmp_path / "builds.txt"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", *build_args(),
                   env={"VT_BISECT_CCACHE_DIR": str(folder), "BUILD_COUNT": str(count)})
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[9]]
    build = ran.record["build"] if ran.record else {}
    assert build["compiler_cache"] == "ccache" and build["compiler_cache_dir"] == str(folder)
    stats = ccache_stats(folder)
    compiled = stats.get("direct_cache_hit", 0) + stats.get("preprocessed_cache_hit", 0) + stats.get("cache_miss", 0)
    assert compiled == len(counted(count)) >= 2  # every build's compile went through ccache
    # the comment-only change misses the build cache (other blob) and hits ccache (same preprocessed code)
    assert stats.get("preprocessed_cache_hit", 0) >= 1, stats

    # --compiler-cache off: nothing reaches ccache
    off = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--no-cache", "--no-build-cache",
                   "--compiler-cache", "off", *build_args(), env={"VT_BISECT_CCACHE_DIR": str(folder)})
    assert off.code == 1, off.stderr
    assert ccache_stats(folder) == stats


def wheel(folder: Path, name: str, version: str, body: str) -> Path:
    """A pure-Python wheel made by hand (a zip with METADATA, WHEEL and a RECORD of sha256 hashes)."""
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": body,
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: vtgate-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    target = folder / f"{name}-{version}-py3-none-any.whl"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return target


def test_environment_per_commit_from_its_lock_file(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                   tmp_path: Path) -> None:
    """A dependency bump is the culprit: each commit's requirements lock makes its own environment (uv, local
    wheels only, offline), one per distinct lock file, and the judge runs under it as {python}."""
    pytest.importorskip("uv", reason="uv is in the test extra (pip install -e '.[test]')")
    wheels = tmp_path / "wheels"
    wheel(wheels, "tinydep", "1.0", "VALUE = 1\n")
    wheel(wheels, "tinydep", "2.0", "VALUE = 2\n")
    history = make_history()
    history.commit({"requirements.lock": "tinydep==1.0\n", "check.py": "import tinydep, sys\n"
                    "sys.exit(0 if tinydep.VALUE == 1 else 1)\n"}, "base")
    shas = {}
    for i in range(8):
        files = {"app.py": f"x = {i}\n"}
        if i == 5:
            files["requirements.lock"] = "tinydep==2.0\n"
        shas[i] = history.commit(files, f"change {i}" + (" (bump tinydep)" if i == 5 else ""))
    env = {"UV_FIND_LINKS": str(wheels), "UV_NO_INDEX": "1", "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv")}
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--lock", "requirements.lock",
                   "--", "{python}", "check.py", env=env)
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [shas[5]]
    build = ran.record["build"] if ran.record else {}
    assert build["envs_created"] == 2  # one per lock file content
    assert build["env_hits"] == len(build["events"]) - 2 >= 1
    jsonschema.validate(ran.record, SCHEMA)


def test_replay_builds_each_commit_as_the_run_did(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                  tmp_path: Path) -> None:
    """The recipe keeps the build step: ``vtbisect replay`` builds the culprit and its parent before judging
    them (without it the judge finds no program and the record would not hold)."""
    history = make_history()
    shas = spread_history(history, n=10, culprit=4)
    evidence = tmp_path / "evidence"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--evidence", str(evidence), *build_args())
    assert ran.code == 1 and [c["commit"] for c in ran.culprits] == [shas[4]], ran.stderr
    assert ran.record is not None and ran.record["recipe"]["build_step"]["setup"] == ["./build.sh"]
    replay = subprocess.run([*VTBISECT, "replay", str(evidence / "bisect-log.txt")], cwd=history.path,
                            capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert replay.returncode == 0, replay.stderr
    assert "the record holds" in replay.stderr + replay.stdout


def test_environment_per_commit_from_a_uv_project_lock(make_history: Callable[..., History],
                                                       vtbisect: Callable[..., Ran], tmp_path: Path) -> None:
    """The same with a uv project: pyproject.toml + uv.lock (written by ``uv lock`` from local wheels),
    each commit's environment by ``uv sync --frozen``."""
    uv = pytest.importorskip("uv", reason="uv is in the test extra (pip install -e '.[test]')")
    wheels = tmp_path / "wheels"
    wheel(wheels, "tinydep", "1.0", "VALUE = 1\n")
    wheel(wheels, "tinydep", "2.0", "VALUE = 2\n")
    env = {"UV_FIND_LINKS": str(wheels), "UV_NO_INDEX": "1", "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv")}
    history = make_history()
    manifest = '[project]\nname = "proj"\nversion = "0.1"\nrequires-python = ">=3.10"\ndependencies = ["tinydep=={v}"]\n'

    def locked(version: str) -> dict[str, str | None]:
        (history.path / "pyproject.toml").write_text(manifest.format(v=version))
        subprocess.run([uv.find_uv_bin(), "lock", "-q"], cwd=history.path, check=True, timeout=120,
                       env={**os.environ, **env})
        return {"pyproject.toml": manifest.format(v=version), "uv.lock": (history.path / "uv.lock").read_text()}

    history.commit({**locked("1.0"), "check.py": "import tinydep, sys\nsys.exit(0 if tinydep.VALUE == 1 else 1)\n"},
                   "base")
    history.commit({"app.py": "x = 1\n"}, "change 1")
    bump = history.commit(locked("2.0"), "bump tinydep")
    history.commit({"app.py": "x = 2\n"}, "change 2")
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--lock", "uv.lock",
                   "--", "{python}", "check.py", env=env)
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [bump]
    build = ran.record["build"] if ran.record else {}
    assert build["envs_created"] == 2 and build["env_hits"] >= 1


@pytest.mark.parametrize(("pattern", "matches", "misses"), [
    ("csrc/**", ["csrc/a.cu", "csrc/x/y.h"], ["csrcx/a.cu", "src/csrc/a.cu"]),
    ("*.c", ["a.c", "lib/deep/b.c"], ["a.cc", "a.c.txt"]),
    ("CMakeLists.txt", ["CMakeLists.txt", "sub/CMakeLists.txt"], ["CMakeLists.txt.bak"]),
    ("src/*.h", ["src/a.h"], ["src/x/a.h", "a.h"]),
    ("**/*.h", ["a.h", "x/y/a.h"], ["a.hpp"]),
    ("python/**", ["python/ujson.c"], ["python"]),
])
def test_build_input_globs(pattern: str, matches: list[str], misses: list[str]) -> None:
    from vtbisect.build import glob_pattern

    compiled = glob_pattern(pattern)
    assert [p for p in matches if not compiled.fullmatch(p)] == []
    assert [p for p in misses if compiled.fullmatch(p)] == []


@pytest.mark.parametrize(("args", "message"), [
    (["--build-input", "*.c", "--", "./judge.sh"], "--build-input without --build-output"),
    (["--setup", "./build.sh", "--build-output", "out", "--", "./judge.sh"], "--build-output without --build-input"),
    (["--setup", "./build.sh", "--setup-failure", "sometimes", "--", "./judge.sh"], "use one of skip, fatal"),
    (["--artifact", "/x/{commit}", "--artifact-missing", "build", "--", "./judge.sh"], "no build to fall back to"),
    (["--setup", "./build.sh", "--executor", "dask", "--", "./judge.sh"], "runs on this machine only"),
    (["--setup", "./build.sh", "--build-input", "*.rs", "--build-output", "out", "--", "./judge.sh"],
     "match no file"),
])
def test_build_settings_that_cannot_work_exit_2(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                                args: list[str], message: str) -> None:
    history = make_history()
    c_repo(history)
    history.commit({"value.h": "#define VALUE 2\n"}, "prints 2")
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", *args)
    assert ran.code == 2, ran.stderr
    assert message in " ".join(ran.stderr.split()), ran.stderr


def test_reverted_worktrees_hash_their_index(make_history: Callable[..., History], vtbisect: Callable[..., Ran],
                                             tmp_path: Path) -> None:
    """``--all-culprits`` judges BAD with the first culprit reverted: the build inputs are read from the
    worktree's index (no commit holds that tree), and reverting the C change gives back the inputs of the
    commits before it, so their build is restored instead of building again."""
    history = make_history()
    c_repo(history)
    history.commit({"app.py": "x = 1\n"}, "python 1")
    first = history.commit({"value.h": "#define VALUE 2\n"}, "c: prints 2")
    history.commit({"app.py": "x = 2\n"}, "python 2")
    second = history.commit({"app.py": "x = 3\nbroken = True\n"}, "python: broken")
    history.commit({"app.py": "x = 4\nbroken = True\n"}, "python 4")
    judge = tmp_path / "judge.sh"
    judge.write_text('#!/bin/sh\ntest "$(./out/prog)" = 1 && ! grep -q broken app.py\n')
    judge.chmod(0o755)
    count = tmp_path / "builds.txt"
    ran = vtbisect(history.path, f"{history.shas[0]}..{history.shas[-1]}", "--all-culprits", *build_args()[:-1],
                   str(judge), env={"BUILD_COUNT": str(count)})
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [first, second]
    build = ran.record["build"] if ran.record else {}
    reverted = [e for e in build["events"] if e["reverts"] == [first]]
    assert reverted, build["events"]
    before = history.shas[:history.shas.index(first)]  # value.h says 1 there, as with the revert
    assert all(e["how"] == "cache" and e["built_at"] in before for e in reverted)
    assert build["builds"] == build["distinct_inputs"] == len(counted(count)) == 2
