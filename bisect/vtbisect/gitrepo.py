"""vtbisect's only door to git: a small adapter over gitpython (``git.Repo``, its commit objects and
``repo.git.<command>(...)`` argument lists, never shell strings).

Every other vtbisect module asks this one (tests/bisect/test_git_adapter.py enforces it). A failing
git command becomes ``GitError``, which names the command and carries git's own stderr. One
``GitRepo`` is shared per repository (``repository(path)``); worktrees get their own, closed by
their owner. Reads of git's object database go through one lock per ``GitRepo``: gitpython keeps a
persistent ``git cat-file`` process behind them, which is not safe to share between threads."""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import cast

# gitpython refuses to be imported when it finds no git executable. Import it quietly, so that a
# missing git is a GitError at the first command ("git is not installed ...", exit 3), not a
# traceback from every vtbisect invocation, --help included.
_refresh = os.environ.get("GIT_PYTHON_REFRESH")
os.environ["GIT_PYTHON_REFRESH"] = _refresh or "quiet"
try:
    import git
finally:
    if _refresh is None:
        del os.environ["GIT_PYTHON_REFRESH"]


def git_available() -> bool:
    """Whether a git executable is on PATH (a Dask worker checks before it takes a judgement)."""
    return shutil.which("git") is not None


def run_git(args: Sequence[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One git command as an argument list, for the callers that hold no ``GitRepo``: a Dask worker's
    bare mirror (init, fetch, worktree prune) and the scratch repository a bundle is made in. Returns
    the finished process (git's status and stderr), never raises on git's exit status."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL)


class GitError(RuntimeError):
    """A git command failed. ``command`` is its argument list, ``stderr`` what git said."""

    def __init__(self, command: Sequence[str], status: int | str | None, stderr: str, where: Path | str) -> None:
        self.command = tuple(command)
        self.status = status
        self.stderr = stderr
        self.where = str(where)
        said = stderr or "no message from git"
        code = "" if status is None else f" (exit {status})"
        super().__init__(f"`{shlex.join(self.command)}` failed{code} in {self.where}: {said}")


def _undecorated(text: str, stream: str) -> str:
    """What git wrote on ``stream``, without the ``\\n  stderr: '...'`` wrapping gitpython adds to
    ``CommandError.stderr`` / ``.stdout``."""
    prefix = f"\n  {stream}: '"
    if text.startswith(prefix) and text.endswith("'"):
        text = text[len(prefix):-1]
    return text.strip()


def _stderr_of(error: git.exc.CommandError) -> str:
    return _undecorated(error.stderr or "", "stderr")


@contextmanager
def _translated(where: Path | str) -> Iterator[None]:
    """gitpython's exceptions as ``GitError`` (command, exit status, git's stderr)."""
    try:
        yield
    except git.exc.GitCommandNotFound as error:
        raise GitError(error.command, None, "git is not installed or not on PATH: install git", where) from error
    except git.exc.GitCommandError as error:
        # gitpython types ``status`` as its CommandError base does, where it may be the exception that
        # kept git from starting (GitCommandNotFound, caught above); str() of it reads the same in the message.
        status = str(error.status) if isinstance(error.status, Exception) else error.status
        raise GitError(error.command, status, _stderr_of(error), where) from error
    except (git.exc.BadName, git.exc.BadObject, ValueError) as error:
        # An object read: gitpython answers it through its persistent `git cat-file --batch`.
        raise GitError(("git", "cat-file", "--batch"), None, f"no such object: {error}", where) from error


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    parents: tuple[str, ...]
    tree: str = ""
    date: int = 0  # committer date (seconds): git bisect orders candidates by it


def subject_of(message: str) -> str:
    """git's ``%s``: the message's first paragraph, its lines joined by one space."""
    lines: list[str] = []
    for line in message.split("\n"):
        if line.strip():
            lines.append(line.rstrip())
        elif lines:  # blank lines before the subject are skipped, the first one after ends it
            break
    return " ".join(lines)


def _record(commit: git.Commit) -> Commit:
    # gitpython types a message as str | bytes; one read from the repository is always str (decoded
    # with errors="replace"), bytes only in a Commit built by hand.
    assert isinstance(commit.message, str)
    return Commit(sha=commit.hexsha, subject=subject_of(commit.message),
                  parents=tuple(p.hexsha for p in commit.parents), tree=commit.tree.hexsha,
                  date=int(commit.committed_date))


class NotARepository(Exception):
    """The folder is not inside a git working tree."""


def toplevel(path: Path | str) -> Path:
    """The top of the working tree containing ``path`` (``git rev-parse --show-toplevel``)."""
    if not Path(path).is_dir():
        raise NotARepository(f"{path} is not a folder")
    try:
        repo = git.Repo(str(path), search_parent_directories=True)
    except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as error:
        raise NotARepository(str(error)) from error
    try:
        with _translated(path):
            return Path(repo.git.rev_parse("--show-toplevel"))
    except GitError as error:
        if error.status is None:  # git itself could not run: say that, not "no repository"
            raise
        raise NotARepository(str(error)) from error  # e.g. inside .git itself, or a bare repository
    finally:
        repo.close()


class GitRepo:
    """One repository or worktree opened through gitpython; every method is one git question or action."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self._repo = git.Repo(str(self.path))
        except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as error:
            raise GitError(("git.Repo", str(self.path)), None, f"not a git repository: {error}", self.path) from error
        self._objects = threading.RLock()

    def close(self) -> None:
        """End gitpython's persistent ``git cat-file`` processes for this repository."""
        self._repo.close()

    # ---- names and commits ---------------------------------------------------------------------

    def common_dir(self) -> Path:
        with _translated(self.path):
            common = Path(self._repo.git.rev_parse("--git-common-dir"))
        return common if common.is_absolute() else (self.path / common).resolve()

    def resolve_commit(self, rev: str) -> str | None:
        """Full 40-hex id of ``rev`` as a commit, or None when it names no commit."""
        try:
            out = self._repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        except git.exc.GitCommandError:
            return None
        return out.strip() or None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        with _translated(self.path):
            # gitpython annotates both as Commit, but passes them straight to `git merge-base
            # --is-ancestor` and documents them as revs: any rev string works.
            return self._repo.is_ancestor(cast("git.Commit", ancestor), cast("git.Commit", descendant))

    def merge_base(self, first: str, second: str) -> str | None:
        with _translated(self.path):
            bases = self._repo.merge_base(first, second)
        return bases[0].hexsha if bases else None

    def first_parent_chain(self, good: str, bad: str, pathspec: Sequence[str] = ()) -> list[Commit]:
        """``good..bad`` along bad's first parents, oldest first (only commits touching ``pathspec``)."""
        with self._objects, _translated(self.path):
            found = self._repo.iter_commits(f"{good}..{bad}", paths=list(pathspec), first_parent=True, reverse=True)
            return [_record(commit) for commit in found]

    def commits(self, revs: Sequence[str]) -> list[Commit]:
        with self._objects, _translated(self.path):
            return [_record(self._repo.commit(rev)) for rev in revs]

    def tree_of(self, rev: str) -> str:
        with self._objects, _translated(self.path):
            return self._repo.commit(rev).tree.hexsha

    def trailer_values(self, rev: str, key: str) -> str:
        """The values of ``key:`` trailers in the commit message, as git parses trailers."""
        with _translated(self.path):
            return self._repo.git.show("-s", f"--format=%(trailers:key={key},valueonly)", rev)

    def diffstat(self, rev: str) -> str:
        with _translated(self.path):
            return self._repo.git.show("--stat", "--format=", "--no-color", rev).strip()

    def read_file(self, rev: str, rel: str) -> bytes | None:
        """The bytes of file ``rel`` in commit ``rev``; None when it is not a file there."""
        with self._objects, _translated(self.path):
            try:
                item = self._repo.commit(rev).tree / rel
            except KeyError:
                return None
            return item.data_stream.read() if item.type == "blob" else None

    def list_files(self, rev: str, folder: str) -> list[str]:
        """Every file under ``folder`` in commit ``rev`` (repository-relative paths)."""
        with self._objects, _translated(self.path):
            tree = self._repo.commit(rev).tree
            inside = folder.strip("/")
            if inside not in ("", "."):
                try:
                    tree = tree / inside
                except KeyError:
                    return []
            if tree.type != "tree":
                return []
            # A tree's entries are Blob, Tree or Submodule (edge tuples only with as_edge=True); their
            # paths are str, though gitpython types them as any PathLike.
            return [str(item.path) for item in tree.traverse() if isinstance(item, git.Blob)]

    def blob_entries(self, rev: str) -> list[tuple[str, str, str]]:
        """(path, mode, blob id) of every file in commit ``rev`` (``git ls-tree -r``): read from git's
        objects, no checkout (the build cache's input hash)."""
        with _translated(self.path):
            out = self._repo.git.ls_tree("-r", "--full-tree", "-z", rev)
        return _entries(out, stage=False)

    def index_entries(self) -> list[tuple[str, str, str]]:
        """(path, mode, blob id) of every file in this worktree's index (``git ls-files -s``): the tree a
        ``git revert --no-commit`` left, which no commit holds."""
        with _translated(self.path):
            out = self._repo.git.ls_files("-s", "-z")
        return _entries(out, stage=True)

    def path_kind(self, rev: str, rel: str) -> str | None:
        """``"blob"`` (a file), ``"tree"`` (a folder) or None: what ``rel`` is in commit ``rev``."""
        with self._objects, _translated(self.path):
            try:
                return str((self._repo.commit(rev).tree / rel.strip("/")).type)
            except KeyError:
                return None

    def is_shallow(self) -> bool:
        """A shallow clone (``git clone --depth``): history before its boundary commits is missing."""
        with _translated(self.path):
            return self._repo.git.rev_parse("--is-shallow-repository").strip() == "true"

    def shallow_boundary(self) -> set[str]:
        """The commits whose parents a shallow clone does not have (``<git-dir>/shallow``)."""
        with _translated(self.path):
            git_dir = Path(self._repo.git.rev_parse("--absolute-git-dir"))
        shallow = git_dir / "shallow"
        return set(shallow.read_text().split()) if shallow.is_file() else set()

    def rev_list(self, good: str, bad: str) -> list[str]:
        """Every commit in ``good..bad`` over the whole graph (``git rev-list good..bad``)."""
        with _translated(self.path):
            out = self._repo.git.rev_list(f"{good}..{bad}")
        return out.split()

    def has_local_changes(self) -> bool:
        """Modified, staged or untracked files in the working tree (``git status --porcelain``)."""
        try:
            return bool(self._repo.git.status("--porcelain"))
        except git.exc.GitCommandError:
            return False

    # ---- worktrees (called on the repository) -------------------------------------------------

    def add_worktree(self, path: Path, commit: str) -> None:
        """A detached worktree (no branch, no ref) at ``path`` checked out at ``commit``."""
        with _translated(self.path):
            self._repo.git.worktree("add", "--detach", "--force", str(path), commit)

    def remove_worktree(self, path: Path) -> None:
        with _translated(self.path):
            self._repo.git.worktree("remove", "--force", "--force", str(path))

    def prune_worktrees(self) -> None:
        """Forget worktrees whose folders are gone; never raises (it runs on the way out)."""
        with suppress(git.exc.CommandError):
            self._repo.git.worktree("prune")

    # ---- inside one worktree (called on the worktree's GitRepo) --------------------------------

    def checkout_detached(self, commit: str) -> None:
        with _translated(self.path):
            self._repo.git.checkout("--detach", "--force", "--quiet", commit)

    def clean_everything(self) -> None:
        """Delete untracked and ignored files, nested repositories included (``git clean -ffdx``)."""
        with _translated(self.path):
            self._repo.git.clean("-ffdxq")

    def status_lines(self) -> list[str]:
        """``git status --porcelain=v2 --branch --ignored --untracked-files=all``, one entry per line."""
        with _translated(self.path):
            out = self._repo.git.status("--porcelain=v2", "--branch", "--ignored", "--untracked-files=all")
        return out.splitlines()

    def revert_without_commit(self, culprit: str, head: str) -> str | None:
        """Apply the inverse of ``culprit`` to the working tree; on a conflict put the worktree back
        at ``head`` and return git's first line about it, else None."""
        detail = ""
        try:
            self._repo.git.revert("--no-commit", "--no-edit", culprit)
        except git.exc.GitCommandError as error:
            detail = _stderr_of(error) or _undecorated(error.stdout or "", "stdout")
            failed = True
        else:
            failed = False
        with _translated(self.path):
            unmerged = self._repo.git.ls_files("--unmerged")
        if not failed and not unmerged:
            return None
        lines = detail.splitlines()
        with suppress(git.exc.GitCommandError):
            self._repo.git.revert("--abort")
        with _translated(self.path):
            self._repo.git.reset("--hard", "--quiet", head)
        return lines[0] if lines else "unmerged paths"


_shared: dict[Path, GitRepo] = {}
_shared_lock = threading.Lock()


def _entries(out: str, *, stage: bool) -> list[tuple[str, str, str]]:
    """Parse ``ls-tree -r -z`` (``mode type id\tpath``) or ``ls-files -s -z`` (``mode id stage\tpath``)."""
    found = []
    for record in out.split("\0"):
        if not record or "\t" not in record:
            continue
        head, path = record.split("\t", 1)
        words = head.split()
        if stage:
            found.append((path, words[0], words[1]))
        elif words[1] == "blob":
            found.append((path, words[0], words[2]))
    return found


def repository(path: Path) -> GitRepo:
    """The shared ``GitRepo`` of the repository at ``path`` (opened once per process)."""
    key = Path(path)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = GitRepo(key)
        return _shared[key]


@atexit.register
def close_all() -> None:
    with _shared_lock:
        for repo in _shared.values():
            repo.close()
        _shared.clear()
