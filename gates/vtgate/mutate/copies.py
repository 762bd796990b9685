"""Throw-away copies of the tree under test, for patch mutations: the files git knows about (tracked,
plus untracked ones that are not ignored, as they are on disk, so uncommitted edits come along) are
copied into a fresh temporary folder and the patch is applied there with ``git apply``. The user's
tree, index, HEAD and worktree list are never touched; the whole scratch folder goes away when the
``Scratch`` context ends, however it ends (Ctrl-C included). A ``Scratch`` lists the files once, for
all the copies it makes."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

SKIP_DIRS = frozenset({".git", ".venv", "venv", "__pycache__", "node_modules"})
SCRATCH_PREFIX = "vtgate-mutate-"


class PatchError(Exception):
    """A patch does not apply; the message names the patch and carries git apply's own words."""


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return sorted({name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name})


def _walk_files(root: Path) -> list[str]:
    files = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".")]
        for name in names:
            files.append(str((Path(directory) / name).relative_to(root)))
    return sorted(files)


def project_files(root: Path) -> list[str]:
    """The project's files relative to ``root``: git's view when ``root`` is a git tree, else a walk."""
    names = _git_files(root)
    return names if names is not None else _walk_files(root)


def selected(names: Sequence[str], only: Sequence[str]) -> list[str]:
    """``names`` that are one of ``only`` (files or folders, relative) or under one; all of them when
    ``only`` is empty (``[mutate.code] copy``)."""
    kept = [p.strip("/") for p in only]
    if not kept:
        return list(names)
    return [n for n in names if any(n == p or n.startswith(p + "/") for p in kept)]


def copy_tree(root: Path, destination: Path, names: Sequence[str] | None = None) -> int:
    """Copy the project's files (``names``, default :func:`project_files`) to ``destination``."""
    if names is None:
        names = project_files(root)
    copied = 0
    for name in names:
        source = root / name
        if source.is_symlink():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source), target)
        elif source.is_file():  # tracked but deleted on disk: the user's tree does not have it either
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            continue
        copied += 1
    return copied


def link_artifacts(project: Path, patterns: Sequence[str], destination: Path) -> int:
    """The files of ``[suite] artifacts`` (globs under ``project``) that ``destination`` lacks, hard-linked
    there at the same relative path (copied across file systems): untracked weights a copy would miss."""
    linked = 0
    for pattern in patterns:
        for source in sorted(project.glob(pattern)):
            target = destination / source.relative_to(project)
            if not source.is_file() or target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
            linked += 1
    return linked


def apply_patch(copy: Path, patch: Path, shown: str) -> None:
    """``git apply`` the patch inside ``copy`` (never inside a repository above it)."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(copy.parent)}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch)], cwd=copy, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}"
        raise PatchError(f"patch {shown} does not apply to the tree under test: {said}\n"
                         f"regenerate it on a scratch copy of the current tree: make the change there and "
                         f"run 'git diff > {shown}'")


def patched_files(patch: Path) -> list[str]:
    """The paths a unified diff touches (for reporting whether it reaches the source tree)."""
    touched = []
    for line in patch.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            name = line[4:].split("\t")[0].strip()
            if name != "/dev/null":
                touched.append(name[2:] if name[:2] in ("a/", "b/") else name)
    return sorted(set(touched))


class Scratch:
    """A temporary folder holding every patched copy of one mutate run; removed on exit."""

    def __init__(self, artifacts: Sequence[str] = (), project: Path | None = None, only: Sequence[str] = ()) -> None:
        self.path: Path | None = None
        self.artifacts = tuple(artifacts)  # [suite] artifacts: globs under ``project``, linked into each copy
        self.project = project
        self.only = tuple(only)  # files or folders a copy holds (empty: all of them)
        self._files: dict[Path, list[str]] = {}  # root -> its project files, listed once per run

    def _names(self, root: Path) -> list[str]:
        """The files a copy of ``root`` gets: listed once per run (one 'git ls-files' for all copies)."""
        names = self._files.get(root)
        if names is None:
            names = self._files[root] = selected(project_files(root), self.only)
        return names

    def __enter__(self) -> Scratch:
        self.path = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
        return self

    def patched_copy(self, root: Path, name: str, patch: Path, shown: str) -> Path:
        assert self.path is not None, "use Scratch as a context manager"
        copy = self.path / name
        copy.mkdir()
        copy_tree(root, copy, self._names(root))
        if self.artifacts and self.project is not None:
            link_artifacts(self.project, self.artifacts, copy)
        apply_patch(copy, patch, shown)
        return copy

    def plain_copy(self, root: Path, name: str) -> Path:
        """A copy of the project's files (and linked artifacts) with no patch: the shadow run's start."""
        assert self.path is not None, "use Scratch as a context manager"
        copy = self.path / name
        copy.mkdir()
        copy_tree(root, copy, self._names(root))
        if self.artifacts and self.project is not None:
            link_artifacts(self.project, self.artifacts, copy)
        return copy

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.path is not None and self.path.exists():
            shutil.rmtree(self.path, ignore_errors=True)
            if self.path.exists():  # a probe wrote into it while it went: once more
                shutil.rmtree(self.path, ignore_errors=True)
        self.path = None
