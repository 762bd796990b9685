"""git bisect run's habits, on real histories through the real vtbisect process: the judge runs at
your subdirectory, your untracked scripts are yours, a script without #! runs under /bin/sh, and a
command that cannot run is refused with exit 2 before anything is judged."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SHELL_JUDGE = "grep -q bad a.txt && exit 1\nexit 0\n"


def history(make_history, kit, culprit: int = 6, n: int = 12):
    repo = make_history()
    kit.linear_history(repo, n, {culprit: "a.txt"})
    return repo


def write(path: Path, text: str, mode: int = 0o755, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline=newline) as handle:
        handle.write(text)
    path.chmod(mode)
    return path


def test_the_judge_runs_at_the_same_subdirectory_as_your_current_directory(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    repo.commit({"a.txt": "ok\n", "sub/level.txt": "ok\n"}, "base")
    repo.filler(3)
    repo.commit({"sub/level.txt": "bad\n"}, "break sub/level.txt")
    repo.filler(3)
    judge = write(tmp_path / "judge.sh", "test \"$(basename \"$PWD\")\" = sub || exit 3\n"
                  "grep -q bad level.txt && exit 1\nexit 0\n")
    ran = vtbisect(repo.path / "sub", f"{repo.shas[0]}..HEAD", "--", str(judge))
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["subject"] == "break sub/level.txt"
    recipe = ran.record["recipe"]
    assert recipe["subdir"] == "sub"
    assert recipe["reproduce"].startswith(f"cd {repo.path / 'sub'} && vtbisect run --no-cache ")


def test_an_untracked_script_in_your_tree_is_your_copy_and_the_run_says_so_once(make_history, kit, vtbisect):
    repo = history(make_history, kit)
    write(repo.path / "mytest.sh", "#!/bin/sh\n" + SHELL_JUDGE)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./mytest.sh")
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["commit"] == repo.shas[7]
    note = (f"note: ./mytest.sh is not tracked by git (not at GOOD nor BAD): every candidate runs your copy, "
            f"{repo.path / 'mytest.sh'}, as git bisect run would")
    assert ran.stderr.count(note) == 1, ran.stderr


def test_a_script_without_a_shebang_runs_under_bin_sh(make_history, kit, vtbisect):
    repo = history(make_history, kit)
    write(repo.path / "noshebang.sh", SHELL_JUDGE)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./noshebang.sh")
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["commit"] == repo.shas[7]
    assert "Traceback" not in ran.stderr


def test_a_tracked_script_without_a_shebang_runs_under_bin_sh_at_each_candidate(make_history, kit, vtbisect):
    repo = make_history()
    repo.commit({"a.txt": "ok\n", "check.sh": SHELL_JUDGE}, "base with a shebang-less check")
    (repo.path / "check.sh").chmod(0o755)
    kit.git(repo.path, "add", "check.sh")
    repo.commit({}, "make it executable")
    repo.filler(3)
    repo.commit({"a.txt": "bad\n"}, "break a")
    repo.filler(2)
    ran = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--", "./check.sh")
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["subject"] == "break a"


def test_a_crlf_shebang_is_refused_with_a_message_that_says_crlf(make_history, kit, vtbisect):
    repo = history(make_history, kit)
    write(repo.path / "dos.sh", "#!/bin/sh\n" + SHELL_JUDGE, newline="\r\n")
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./dos.sh")
    assert ran.code == 2
    assert "./dos.sh has Windows line endings (CRLF)" in ran.stderr and "dos2unix ./dos.sh" in ran.stderr
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize("form", ["sh", "python", "pytest"])
def test_interpreter_forms_run_your_untracked_file(make_history, kit, vtbisect, form):
    repo = history(make_history, kit)
    if form == "sh":
        write(repo.path / "judge.sh", SHELL_JUDGE, mode=0o644)
        argv = ["sh", "judge.sh"]
    elif form == "python":
        write(repo.path / "judge.py", "import sys\nsys.exit(1 if open('a.txt').read().strip() == 'bad' else 0)\n",
              mode=0o644)
        argv = [sys.executable, "judge.py"]
    else:
        write(repo.path / "checks" / "test_a.py", "from pathlib import Path\n\n\ndef test_a_is_ok():\n"
              "    assert Path('a.txt').read_text().strip() == 'ok'\n", mode=0o644)
        argv = [str(Path(sys.executable).parent / "pytest"), "-q", "-p", "no:cacheprovider", "checks/test_a.py"]
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", *argv)
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["commit"] == repo.shas[7]
    assert ran.stderr.count("is not tracked by git") == 1


def test_a_folder_as_the_judge_is_refused(make_history, kit, vtbisect):
    repo = history(make_history, kit)
    (repo.path / "tools").mkdir()
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./tools")
    assert ran.code == 2
    assert ("vtbisect: the command './tools' is a folder, not a program; fix: name the script or program inside it "
            "(e.g. -- ./tools/run.sh)") in ran.stderr
    assert not ran.record


@pytest.mark.parametrize(("shebang", "expected"), [
    ("#!/usr/bin/no-such-python3\n", "the interpreter '/usr/bin/no-such-python3' named on the first line of "
                                     "./judge.sh ('#!/usr/bin/no-such-python3') does not exist; fix: correct the #! "
                                     "line (e.g. #!/usr/bin/env python3) or name the interpreter in the command "
                                     "(-- python3 ./judge.sh)"),
    ("#!/usr/bin/env no-such-python3\n", "the interpreter 'no-such-python3' that the first line of ./judge.sh asks "
                                         "env for ('#!/usr/bin/env no-such-python3') is not on PATH; fix: install "
                                         "it, put it on PATH, or change the #! line"),
])
def test_an_interpreter_that_does_not_exist_is_refused(make_history, kit, vtbisect, shebang, expected):
    repo = history(make_history, kit)
    write(repo.path / "judge.sh", shebang + SHELL_JUDGE)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./judge.sh")
    assert ran.code == 2, ran.stderr
    assert f"vtbisect: {expected}" in ran.stderr
    assert not ran.record


def test_a_script_missing_everywhere_is_refused_before_any_judgement(make_history, kit, vtbisect):
    repo = history(make_history, kit)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "./missing.sh")
    assert ran.code == 2
    assert (f"command './missing.sh' not found: no such file in {os.path.realpath(repo.path)}, nor at GOOD or BAD "
            "(missing.sh); fix: check the path (it is relative to your current directory), or commit the script"
            in ran.stderr)
    assert "step" not in ran.stderr
