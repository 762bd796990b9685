"""The range: resolve ``GOOD..BAD`` in a git repository and list the candidate commits between them.

Git is reached only through ``vtbisect.gitrepo`` (gitpython). Errors are ``RangeError`` with a
message that says what is wrong and how to fix it; the CLI maps them to exit 2 (usage) or 5
(nothing to bisect)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtgate.exitcodes import ExitCode

from vtbisect.gitrepo import Commit, GitError, GitRepo, NotARepository, repository, toplevel

__all__ = ["Commit", "GitError", "Range", "RangeError"]


class RangeError(Exception):
    """The requested range cannot be bisected; ``exit_code`` says why (usage or nothing to do)."""

    def __init__(self, message: str, exit_code: int = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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
    floor: Commit | None = None  # when GOOD is off BAD's first-parent line: the line's commit judged in its place
    good_merged_by: Commit | None = None  # then: the merge on that line that brought GOOD's side in

    @property
    def base(self) -> Commit:
        """What index -1 of the search stands for: GOOD, or the first-parent commit judged in its place."""
        return self.floor or self.good

    @property
    def pinned_spec(self) -> str:
        """``GOOD..BAD`` as full commit ids: still this range after new commits land on a branch."""
        return f"{self.good.sha}..{self.bad.sha}"

    def index_of(self, sha: str) -> int:
        for i, commit in enumerate(self.candidates):
            if commit.sha == sha:
                return i
        raise KeyError(sha)


def repository_root(path: Path | str) -> Path:
    """The top of the working tree containing ``path``; RangeError when it is not in a git repo."""
    try:
        return toplevel(path)
    except NotARepository as error:
        raise RangeError(
            f"{path} is not inside a git repository: run vtbisect from a clone (or pass --repo DIR)"
        ) from error


def git_common_dir(repo: Path) -> Path:
    return repository(repo).common_dir()


def resolve(repo: Path, rev: str, role: str) -> str:
    """Full 40-hex id of ``rev`` as a commit; RangeError naming ``role`` (GOOD/BAD) when unknown."""
    if not rev or rev.startswith("-"):
        raise RangeError(f"{role} revision {rev!r} is not a revision name")
    sha = repository(repo).resolve_commit(rev)
    if sha is None:
        raise RangeError(
            f"unknown {role} revision {rev!r}: `git rev-parse {rev}` finds no commit in {repo}; fix: name a "
            "commit, branch or tag of this repository (git log --oneline, git tag, git branch -a), or fetch "
            "it first if it only exists on a remote"
        )
    return sha


def describe(repo: Path, sha: str) -> Commit:
    return describe_many(repo, [sha])[0]


def two_arguments_hint(repo: Path, first: str, second: str) -> str | None:
    """``GOOD BAD`` typed as two arguments: the range the user most likely meant, or None."""
    history = repository(repo)
    one, two = history.resolve_commit(first), history.resolve_commit(second)
    if one is None or two is None or one == two:
        return None
    if history.is_ancestor(one, two):
        return f"{first}..{second}"
    if history.is_ancestor(two, one):
        return f"{second}..{first}"
    return None


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
    history = repository(repo)
    shallow = history.is_shallow()
    if shallow and history.resolve_commit(good_rev) is None:
        raise RangeError(_shallow_message(good_rev, "is not in it"))
    good = resolve(repo, good_rev, "GOOD")
    bad = resolve(repo, bad_rev, "BAD")
    if good == bad:
        raise RangeError(f"empty range {spec}: GOOD and BAD are the same commit", ExitCode.NOTHING)
    if shallow:
        _check_inside_shallow_history(history, good_rev, good, bad)
    if not history.is_ancestor(good, bad):
        if history.is_ancestor(bad, good):
            hint = "they look swapped: BAD is an ancestor of GOOD; try " + f"{bad_rev}..{good_rev}"
        else:
            hint = "they are on diverged branches; pick a GOOD that BAD descends from (git merge-base)"
        raise RangeError(f"GOOD {good_rev} ({good[:10]}) is not an ancestor of BAD {bad_rev} ({bad[:10]}): {hint}")
    # The search walks the first-parent chain, along which "bad" is monotone even in a merge-heavy
    # history; a culprit that is a merge is then opened up by the driver (unless --first-parent).
    chain = history.first_parent_chain(good, bad, pathspec)
    good_commit, bad_commit = history.commits([good, bad])
    if bad not in [commit.sha for commit in chain]:
        chain.append(bad_commit)
    floor, merge = _first_parent_floor(history, good_commit, bad)
    return Range(
        repo=repo,
        spec=spec,
        good=good_commit,
        bad=bad_commit,
        candidates=tuple(chain),
        first_parent=first_parent,
        pathspec=tuple(pathspec),
        floor=floor,
        good_merged_by=merge,
    )


def _shallow_message(good_rev: str, what: str) -> str:
    return (f"this is a shallow clone (git clone --depth) and GOOD {good_rev} {what}: the range reaches past the "
            "history this clone has; fix: fetch the whole history first with git fetch --unshallow (or "
            "git fetch --deepen=N until GOOD is in), then run vtbisect again")


def _check_inside_shallow_history(history: GitRepo, good_rev: str, good: str, bad: str) -> None:
    """A shallow clone can bisect a range only when no commit of ``GOOD..BAD`` has its parents cut off."""
    boundary = history.shallow_boundary()
    cut = [sha for sha in history.rev_list(good, bad) if sha in boundary]
    if cut or not history.is_ancestor(good, bad):
        what = (f"lies beyond it: {cut[0][:10]} in GOOD..BAD has its parents cut off" if cut
                else "is not reachable from BAD in it")
        raise RangeError(_shallow_message(good_rev, what))


def _first_parent_floor(history: GitRepo, good: Commit, bad: str) -> tuple[Commit | None, Commit | None]:
    """When GOOD is not on BAD's first-parent line: the newest commit of that line GOOD contains (judged
    in GOOD's place by a search along the line, so no candidate's recorded parent is a commit that is
    not its parent) and the merge on the line that brought GOOD's side in."""
    line = history.first_parent_chain(good.sha, bad)
    if not line or (line[0].parents and line[0].parents[0] == good.sha):
        return None, None
    if not line[0].parents:
        raise RangeError(f"GOOD {good.sha[:10]} is not on BAD's first-parent line, and that line starts at a root "
                         f"commit ({line[0].sha[:10]}) GOOD does not contain; pick a GOOD on BAD's first-parent line "
                         "(git log --first-parent BAD)")
    floor = history.commits([line[0].parents[0]])[0]
    low, high = 0, len(line) - 1  # the oldest commit of the line that contains GOOD: the merge
    while low < high:
        middle = (low + high) // 2
        if history.is_ancestor(good.sha, line[middle].sha):
            high = middle
        else:
            low = middle + 1
    return floor, line[low]


def merged_by(repo: Path, line: Sequence[Commit], sha: str) -> Commit | None:
    """The commit of the first-parent ``line`` (oldest first) that brought ``sha`` in: itself when it
    is on the line, else the oldest merge of the line that contains it; None when none does."""
    history = repository(repo)
    low, high = 0, len(line)
    while low < high:
        middle = (low + high) // 2
        if history.is_ancestor(sha, line[middle].sha):
            high = middle
        else:
            low = middle + 1
    return line[low] if low < len(line) else None


def describe_many(repo: Path, shas: Sequence[str]) -> list[Commit]:
    return repository(repo).commits(shas) if shas else []


def tree_of(repo: Path, sha: str) -> str:
    return repository(repo).tree_of(sha)


def deliberate_gates(repo: Path, sha: str) -> set[str]:
    """Gates named by ``Deliberate-Red:`` trailers in the commit message (comma/space separated)."""
    out = repository(repo).trailer_values(sha, "Deliberate-Red")
    return {part for part in out.replace(",", " ").split() if part}


def diffstat(repo: Path, sha: str) -> str:
    return repository(repo).diffstat(sha)


def merge_base(repo: Path, first: str, second: str) -> str | None:
    return repository(repo).merge_base(first, second)


def has_local_changes(repo: Path) -> bool:
    return repository(repo).has_local_changes()


def pinned_argv(argv: Sequence[str], rng: Range, suite_from: str | None = None) -> list[str]:
    """``argv`` (vtbisect's own arguments) with the range, and ``--suite-from REV``'s revision, replaced
    by full commit ids, so that running it again bisects the same commits whatever the branches
    and tags named have moved to since."""
    pinned = list(argv)
    if rng.spec in pinned:
        pinned[pinned.index(rng.spec)] = rng.pinned_spec
    if suite_from:
        sha = resolve(rng.repo, suite_from, "--suite-from")
        for i, arg in enumerate(pinned):
            if arg == "--suite-from" and i + 1 < len(pinned) and pinned[i + 1] == suite_from:
                pinned[i + 1] = sha
                break
            if arg == f"--suite-from={suite_from}":
                pinned[i] = f"--suite-from={sha}"
                break
    return pinned


def parent_for(rng: Range, index: int) -> str:
    """The commit judged as the parent of candidate ``index``: the previous candidate, or the base
    (GOOD, or the first-parent commit judged in its place)."""
    return rng.base.sha if index == 0 else rng.candidates[index - 1].sha


def commits_between(repo: Path, good: str, bad: str) -> list[str]:
    """Every commit of ``good..bad`` over the whole graph (what a merge ``bad`` brought in over its
    first parent ``good``, itself included)."""
    return repository(repo).rev_list(good, bad)
