"""The range: resolve ``GOOD..BAD`` in a git repository and list the candidate commits between them.

Every git call is an argument list (never a shell string) run with ``git -C <repo>``. Errors are
``RangeError`` with a message that says what is wrong and how to fix it; the CLI maps them to exit 2
(usage) or 5 (nothing to bisect)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtgate.exitcodes import ExitCode


class GitError(RuntimeError):
    """A git command failed; carries its argument list and stderr."""


class RangeError(Exception):
    """The requested range cannot be bisected; ``exit_code`` says why (usage or nothing to do)."""

    def __init__(self, message: str, exit_code: int = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def git(repo: Path | str, *args: str, check: bool = True, input_text: str | None = None) -> str:
    """Run ``git -C repo args...`` and return stdout (stripped of the final newline)."""
    argv = ["git", "-C", str(repo), *args]
    done = subprocess.run(argv, capture_output=True, text=True, input=input_text)
    if check and done.returncode != 0:
        raise GitError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.rstrip("\n")


def git_ok(repo: Path | str, *args: str) -> bool:
    argv = ["git", "-C", str(repo), *args]
    return subprocess.run(argv, capture_output=True).returncode == 0


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    parents: tuple[str, ...]
    tree: str = ""


@dataclass(frozen=True)
class Range:
    """A resolved bracket: GOOD and BAD commits and the candidates ``GOOD..BAD`` oldest first
    (BAD last). ``spec`` is what the user typed."""

    repo: Path
    spec: str
    good: Commit
    bad: Commit
    candidates: tuple[Commit, ...]
    first_parent: bool
    pathspec: tuple[str, ...]

    def index_of(self, sha: str) -> int:
        for i, commit in enumerate(self.candidates):
            if commit.sha == sha:
                return i
        raise KeyError(sha)


def repository_root(path: Path | str) -> Path:
    """The top of the working tree containing ``path``; RangeError when it is not in a git repo."""
    try:
        top = git(path, "rev-parse", "--show-toplevel")
    except (GitError, FileNotFoundError, NotADirectoryError) as error:
        raise RangeError(
            f"{path} is not inside a git repository: run vtbisect from a clone (or pass --repo DIR)"
        ) from error
    return Path(top)


def git_common_dir(repo: Path) -> Path:
    common = Path(git(repo, "rev-parse", "--git-common-dir"))
    return common if common.is_absolute() else (repo / common).resolve()


def resolve(repo: Path, rev: str, role: str) -> str:
    """Full sha of ``rev`` as a commit; RangeError naming ``role`` (GOOD/BAD) when unknown."""
    if not rev or rev.startswith("-"):
        raise RangeError(f"{role} revision {rev!r} is not a revision name")
    out = git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    if not out:
        raise RangeError(f"unknown {role} revision {rev!r}: `git rev-parse {rev}` finds no commit in {repo}")
    return out.strip()


def describe(repo: Path, sha: str) -> Commit:
    return describe_many(repo, [sha])[0]


def split_spec(spec: str) -> tuple[str, str]:
    if ".." not in spec or "..." in spec:
        raise RangeError(f"range {spec!r} must be GOOD..BAD (two dots), e.g. v1.0..HEAD")
    good, bad = spec.split("..", 1)
    if not good or not bad:
        raise RangeError(f"range {spec!r} needs both ends: GOOD..BAD")
    return good, bad


def resolve_range(
    repo: Path, spec: str, *, first_parent: bool = False, pathspec: Sequence[str] = ()
) -> Range:
    """Resolve ``GOOD..BAD`` into candidates along BAD's first-parent chain. ``first_parent`` only
    records that the user asked to stay on the mainline (a merge culprit is then final); with ``pathspec`` only commits touching those paths (BAD is always kept last, so
    the endpoint is judged even when it touches none of them)."""
    good_rev, bad_rev = split_spec(spec)
    good = resolve(repo, good_rev, "GOOD")
    bad = resolve(repo, bad_rev, "BAD")
    if good == bad:
        raise RangeError(f"empty range {spec}: GOOD and BAD are the same commit", ExitCode.NOTHING)
    if not git_ok(repo, "merge-base", "--is-ancestor", good, bad):
        if git_ok(repo, "merge-base", "--is-ancestor", bad, good):
            hint = "they look swapped: BAD is an ancestor of GOOD; try " + f"{bad_rev}..{good_rev}"
        else:
            hint = "they are on diverged branches; pick a GOOD that BAD descends from (git merge-base)"
        raise RangeError(f"GOOD {good_rev} ({good[:10]}) is not an ancestor of BAD {bad_rev} ({bad[:10]}): {hint}")
    # The search walks the first-parent chain, along which "bad" is monotone even in a merge-heavy
    # history; a culprit that is a merge is then opened up by the driver (unless --first-parent).
    args = ["rev-list", "--first-parent", "--reverse", f"{good}..{bad}"]
    if pathspec:
        args += ["--", *pathspec]
    shas = git(repo, *args).split()
    if bad not in shas:
        shas.append(bad)
    candidates = tuple(describe_many(repo, shas))
    return Range(
        repo=repo,
        spec=spec,
        good=describe(repo, good),
        bad=describe(repo, bad),
        candidates=candidates,
        first_parent=first_parent,
        pathspec=tuple(pathspec),
    )


def describe_many(repo: Path, shas: Sequence[str]) -> list[Commit]:
    if not shas:
        return []
    out = git(repo, "show", "-s", "--no-walk=unsorted", "--format=%H%x00%T%x00%P%x00%s%x1e", *shas)
    commits = {}
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        full, tree, parents, subject = record.split("\0", 3)
        commits[full] = Commit(sha=full, subject=subject, parents=tuple(parents.split()), tree=tree)
    return [commits[s] for s in shas]


def tree_of(repo: Path, sha: str) -> str:
    return git(repo, "rev-parse", f"{sha}^{{tree}}")


def deliberate_gates(repo: Path, sha: str) -> set[str]:
    """Gates named by ``Deliberate-Red:`` trailers in the commit message (comma/space separated)."""
    out = git(repo, "show", "-s", "--format=%(trailers:key=Deliberate-Red,valueonly)", sha)
    return {part for part in out.replace(",", " ").split() if part}


def diffstat(repo: Path, sha: str) -> str:
    return git(repo, "show", "--stat", "--format=", "--no-color", sha).strip()


def parent_for(rng: Range, index: int) -> str:
    """The commit judged as the parent of candidate ``index``: the previous candidate, or GOOD."""
    return rng.good.sha if index == 0 else rng.candidates[index - 1].sha
