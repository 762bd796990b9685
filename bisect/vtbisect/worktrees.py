"""Isolated, detached git worktrees under the cache folder, one per concurrent slot.

The user's working tree, index, HEAD, stash and branches are never touched: every evaluation runs in
``<cache>/worktrees/<run>-<slot>``, created with ``git worktree add --detach`` (no branch, no ref),
moved between candidates with a forced detached checkout plus ``git clean -ffdx``, and verified to be
exactly at the candidate and clean before anything runs there (the command-mode stale-artifact
guard). Reverts for masked culprits are applied inside the worktree with ``git revert --no-commit``.
``WorktreePool.close`` removes every worktree and runs ``git worktree prune``; callers reach it on
every exit path (try/finally, including KeyboardInterrupt and SIGTERM, see ``signals``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from vtbisect.revisions import GitError, git


class StaleWorktreeError(RuntimeError):
    """The worktree is not exactly the candidate before a run: a verdict there would be a lie."""


class RevertConflict(RuntimeError):
    """A culprit's revert does not apply at a candidate; carries the commit that conflicted."""

    def __init__(self, commit: str, detail: str) -> None:
        super().__init__(f"reverting {commit[:10]} conflicts: {detail}")
        self.commit = commit


@dataclass(frozen=True)
class Prepared:
    """A worktree at ``commit`` with ``reverts`` applied (uncommitted)."""

    path: Path
    commit: str
    reverts: tuple[str, ...]


class WorktreePool:
    """A fixed number of worktree slots for one run; ``lease()`` hands out one slot at a time."""

    def __init__(self, repo: Path, cache_dir: Path, slots: int) -> None:
        self.repo = repo
        self.root = cache_dir / "worktrees"
        self.root.mkdir(parents=True, exist_ok=True)
        self.run_id = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._git_lock = FileLock(str(cache_dir / "git.lock"))
        self._free = [self.root / f"{self.run_id}-{slot}" for slot in range(slots)]
        self._created: list[Path] = []
        self._cond = threading.Condition()

    @contextmanager
    def lease(self) -> Iterator[Path]:
        with self._cond:
            while not self._free:
                self._cond.wait()
            path = self._free.pop()
        try:
            yield path
        finally:
            with self._cond:
                self._free.append(path)
                self._cond.notify()

    def prepare(self, path: Path, commit: str, reverts: Sequence[str] = ()) -> Prepared:
        """Put the worktree at ``path`` exactly at ``commit`` (clean, detached), then apply reverts."""
        if not (path / ".git").exists():
            with self._git_lock:
                git(self.repo, "worktree", "add", "--detach", "--force", str(path), commit)
                self._created.append(path)
        else:
            git(path, "checkout", "--detach", "--force", "--quiet", commit)
        git(path, "clean", "-ffdxq")
        self.verify_clean_at(path, commit)
        for culprit in reverts:
            argv = ["git", "-C", str(path), "revert", "--no-commit", "--no-edit", culprit]
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode != 0 or git(path, "ls-files", "--unmerged"):
                lines = (done.stderr or done.stdout).strip().splitlines()
                detail = lines[0] if lines else "unmerged paths"
                git(path, "revert", "--abort", check=False)
                git(path, "reset", "--hard", "--quiet", commit)
                raise RevertConflict(culprit, detail)
        return Prepared(path=path, commit=commit, reverts=tuple(reverts))

    @staticmethod
    def verify_clean_at(path: Path, commit: str) -> None:
        """One ``git status``: HEAD must be the candidate and nothing modified, untracked or ignored."""
        lines = git(path, "status", "--porcelain=v2", "--branch", "--ignored", "--untracked-files=all").splitlines()
        head = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), "")
        if head != commit:
            raise StaleWorktreeError(f"worktree {path} is at {head[:10]}, not the candidate {commit[:10]}")
        dirty = "\n".join(line for line in lines if not line.startswith("# "))
        if dirty:
            raise StaleWorktreeError(f"worktree {path} is not clean before the run:\n{dirty}")

    def close(self) -> None:
        """Remove every worktree this run created and prune git's records of them. Idempotent."""
        with self._git_lock:
            for path in self._created:
                try:
                    git(self.repo, "worktree", "remove", "--force", "--force", str(path))
                except GitError:
                    shutil.rmtree(path, ignore_errors=True)
            self._created.clear()
            for path in self.root.glob(f"{self.run_id}-*"):
                shutil.rmtree(path, ignore_errors=True)
            git(self.repo, "worktree", "prune", check=False)
