"""Isolated, detached git worktrees under the cache folder, one per concurrent slot.

The user's working tree, index, HEAD, stash and branches are never touched: every evaluation runs in
``<cache>/worktrees/<run>-<slot>``, created with ``git worktree add --detach`` (no branch, no ref),
moved between candidates with a forced detached checkout plus ``git clean -ffdx``, and verified to be
exactly at the candidate and clean before anything runs there (the command-mode stale-artifact
guard). Reverts for masked culprits are applied inside the worktree with ``git revert --no-commit``.
``WorktreePool.close`` removes every worktree and runs ``git worktree prune``; callers reach it on
every exit path (try/finally, including KeyboardInterrupt and SIGTERM, see ``signals``). Every git
step goes through ``vtbisect.gitrepo``."""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from vtbisect.gitrepo import GitError, GitRepo, repository


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
    # What the build step (``vtbisect.build``) prepared for the judge: variables (the per-commit
    # environment's PATH and VIRTUAL_ENV) and the interpreter ``{python}`` names; none without one.
    env: tuple[tuple[str, str], ...] = ()
    python: str | None = None


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
        self._opened: dict[Path, GitRepo] = {}
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

    def _worktree(self, path: Path) -> GitRepo:
        if path not in self._opened:
            self._opened[path] = GitRepo(path)
        return self._opened[path]

    def prepare(self, path: Path, commit: str, reverts: Sequence[str] = ()) -> Prepared:
        """Put the worktree at ``path`` exactly at ``commit`` (clean, detached), then apply reverts."""
        if not (path / ".git").exists():
            with self._git_lock:
                repository(self.repo).add_worktree(path, commit)
                self._created.append(path)
            worktree = self._worktree(path)
        else:
            worktree = self._worktree(path)
            worktree.checkout_detached(commit)
        worktree.clean_everything()
        self.verify_clean_at(worktree, commit)
        for culprit in reverts:
            conflict = worktree.revert_without_commit(culprit, commit)
            if conflict is not None:
                raise RevertConflict(culprit, conflict)
        return Prepared(path=path, commit=commit, reverts=tuple(reverts))

    @staticmethod
    def verify_clean_at(worktree: GitRepo, commit: str) -> None:
        """One ``git status``: HEAD must be the candidate and nothing modified, untracked or ignored."""
        path = worktree.path
        lines = worktree.status_lines()
        head = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), "")
        if head != commit:
            raise StaleWorktreeError(f"worktree {path} is at {head[:10]}, not the candidate {commit[:10]}")
        dirty = "\n".join(line for line in lines if not line.startswith("# "))
        if dirty:
            raise StaleWorktreeError(f"worktree {path} is not clean before the run:\n{dirty}")

    def close(self) -> None:
        """Remove every worktree this run created and prune git's records of them. Idempotent."""
        with self._git_lock:
            for worktree in self._opened.values():
                worktree.close()
            self._opened.clear()
            repo = repository(self.repo)
            for path in self._created:
                try:
                    repo.remove_worktree(path)
                except GitError:
                    shutil.rmtree(path, ignore_errors=True)
            self._created.clear()
            for path in self.root.glob(f"{self.run_id}-*"):
                shutil.rmtree(path, ignore_errors=True)
            repo.prune_worktrees()
