"""Real git histories built in tmp_path, a real vtbisect process to run on them, and a snapshot of
everything a bisection must never touch in the user's repository."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

VTBISECT = [sys.executable, "-m", "vtbisect"]


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    return done.stdout.strip()


@dataclass
class History:
    """A generated repository: ``commit(files, subject)`` adds one commit; ``shas`` oldest first."""

    path: Path
    shas: list[str] = field(default_factory=list)
    _clock: int = 1_700_000_000

    def commit(self, files: Mapping[str, str | None], subject: str, body: str = "") -> str:
        for name, content in files.items():
            target = self.path / name
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        self._clock += 60
        stamp = f"{self._clock} +0000"
        git(self.path, "add", "-A")
        message = subject + (f"\n\n{body}" if body else "")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message,
            env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
        sha = git(self.path, "rev-parse", "HEAD")
        self.shas.append(sha)
        return sha

    def filler(self, count: int, prefix: str = "filler") -> None:
        for i in range(count):
            self.commit({f"notes/{prefix}-{len(self.shas)}.txt": f"{prefix} {i}\n"}, f"{prefix} {len(self.shas)}")


def new_repo(path: Path) -> History:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")
    return History(path)


@pytest.fixture
def make_history(tmp_path: Path) -> Callable[[str], History]:
    def make(name: str = "repo") -> History:
        return new_repo(tmp_path / name)

    return make


def linear_history(repo: History, n: int, culprits: Mapping[int, str], deliberate: Mapping[int, str] | None = None,
                   untestable: range | None = None) -> None:
    """``n`` commits after a first good commit; at index ``i`` in ``culprits`` the file named by the value
    becomes ``bad``; indices in ``untestable`` carry a ``broken`` marker the judge script turns into 125."""
    repo.commit({"a.txt": "ok\n", "b.txt": "ok\n"}, "base: everything green")
    for i in range(n):
        files: dict[str, str | None] = {f"notes/{i}.txt": f"{i}\n"}
        subject = f"commit {i}"
        body = ""
        if i in culprits:
            files[culprits[i]] = "bad\n"
            subject = f"break {culprits[i]} at {i}"
        if deliberate and i in deliberate:
            body = f"Deliberate-Red: {deliberate[i]}"
        if untestable is not None:
            if i == untestable.start:
                files["broken"] = "1\n"
            if i == untestable.stop:
                files["broken"] = None
        repo.commit(files, subject, body)


JUDGE_SCRIPT = """\
import os, sys, pathlib
here = pathlib.Path('.')
if (here / 'broken').exists():
    sys.exit(125)
bad = [n for n in ('a.txt', 'b.txt') if (here / n).exists() and (here / n).read_text().strip() == 'bad']
sys.exit(1 if bad else 0)
"""

# Flaky: the first judgement of each commit in FLAKY_COMMITS says bad, later ones the truth.
FLAKY_SCRIPT = """\
import os, sys, pathlib
state = pathlib.Path(os.environ['FLAKE_STATE'])
commit = os.environ['VTBISECT_COMMIT']
flaky = set(os.environ.get('FLAKY_COMMITS', '').split())
seen = state / commit
first = not seen.exists()
seen.write_text('x')
if commit in flaky and first:
    sys.exit(1)
bad = pathlib.Path('a.txt').read_text().strip() == 'bad'
sys.exit(1 if bad else 0)
"""


@pytest.fixture
def judge_script(tmp_path: Path) -> Path:
    path = tmp_path / "judge.py"
    path.write_text(JUDGE_SCRIPT)
    return path


@pytest.fixture
def flaky_script(tmp_path: Path) -> Path:
    path = tmp_path / "flaky.py"
    path.write_text(FLAKY_SCRIPT)
    (tmp_path / "flake-state").mkdir()
    return path


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str
    record: dict | None

    @property
    def culprits(self) -> list[dict]:
        assert self.record is not None, self.stderr
        return self.record["culprits"]


def run_vtbisect(repo: Path, *args: str, env: Mapping[str, str] | None = None, json_path: Path | None = None,
                 timeout: float = 600) -> Ran:
    argv = [*VTBISECT, *args]
    if json_path is not None:
        argv[len(VTBISECT) + 1:len(VTBISECT) + 1] = ["--json", str(json_path)]
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "1000", **(env or {})})
    record = json.loads(json_path.read_text()) if json_path is not None and json_path.exists() else None
    return Ran(done.returncode, done.stdout, done.stderr, record)


@pytest.fixture
def vtbisect(tmp_path: Path) -> Callable[..., Ran]:
    """``vtbisect run ARGS... --json <tmp file>``, parsed."""
    counter = iter(range(1000))

    def call(repo: Path, *args: str, env: Mapping[str, str] | None = None, with_json: bool = True) -> Ran:
        json_path = tmp_path / f"out-{next(counter)}.json" if with_json else None
        return run_vtbisect(repo, "run", *args, env=env, json_path=json_path)

    return call


def snapshot(repo: Path) -> dict[str, object]:
    """Everything vtbisect must leave exactly as it was in the user's repository."""
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    files = {}
    for path in sorted(repo.rglob("*")):
        if ".git" in path.relative_to(repo).parts or not path.is_file():
            continue
        files[path.relative_to(repo).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    index = git_dir / "index"
    return {
        "status": git(repo, "status", "--porcelain=v2", "--branch", "--untracked-files=all"),
        "head": git(repo, "rev-parse", "HEAD"),
        "head_ref": (git_dir / "HEAD").read_text(),
        "index": hashlib.sha256(index.read_bytes()).hexdigest() if index.exists() else None,
        "stash": git(repo, "stash", "list"),
        "refs": git(repo, "for-each-ref"),
        "worktrees": git(repo, "worktree", "list", "--porcelain"),
        "files": files,
        "worktree_admin": sorted(p.name for p in (git_dir / "worktrees").glob("*")) if (git_dir / "worktrees").exists() else [],
    }


def leftover_worktrees(repo: Path) -> list[str]:
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    folder = git_dir / "vtbisect" / "worktrees"
    on_disk = [p.name for p in folder.iterdir()] if folder.exists() else []
    listed = git(repo, "worktree", "list", "--porcelain").count("worktree ") - 1
    return on_disk + (["<git worktree list>"] * listed)




@pytest.fixture(scope="session")
def kit() -> object:
    """The helpers above, for test modules (importlib import mode cannot import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(git=git, linear_history=linear_history, snapshot=snapshot,
                           leftover_worktrees=leftover_worktrees, run_vtbisect=run_vtbisect, new_repo=new_repo,
                           VTBISECT=VTBISECT)
