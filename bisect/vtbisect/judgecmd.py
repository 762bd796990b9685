"""A command judge resolved once, before the first judgement, the way ``git bisect run`` would run it,
and what identifies it outside the candidate tree (the verdict cache key and the evidence).

``git bisect run`` runs the command in *your* working tree with the candidate checked out in it. So:

- the command runs in the candidate's worktree at the same subdirectory as your current directory;
- a path the command names that git tracks (present at GOOD or BAD) is the candidate's copy: a
  relative path is left relative, an absolute path into your checkout is pointed at the worktree;
- a file in your tree that git does not track (an untracked ``./mytest.sh``, or ``judge.py`` in
  ``python judge.py``) stays put across git's checkouts, so every candidate runs *your* copy, by
  absolute path, and the run says so once;
- a script without a ``#!`` line runs under ``/bin/sh`` (the shell git runs the command with does
  that on ENOEXEC; see ``judges.run_child``).

Bad input is refused before anything runs, with exit 2 and the fix: a command that does not exist, a
folder, a ``#!`` line ending in CRLF, an interpreter that does not exist.

Your checkout leaking in: an editable install (``.pth`` / ``direct_url.json``), a ``PYTHONPATH`` or
``PATH`` entry into your checkout would make the judge test your checkout instead of the candidate.
Such entries are found by asking the judge's own Python (its ``sys.path`` and the origins of its
editable distributions' modules) and pointed at the worktree: the matching source roots are put first
on ``PYTHONPATH`` and ``PATH`` entries are rewritten, and the run says so once.

The identity: the argv, the subdirectory, the content hash of every file named that the worktree does
not hold, the interpreters' paths and ``--version``, and the rewrites above."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.exitcodes import ExitCode

from vtbisect.gitrepo import repository

WORKTREE_TOKEN = "<worktree>"
PYTHON_NAME = re.compile(r"^python[0-9.]*$")

# Run by the judge's own Python: where it would import from (sys.path) and, for each editable
# distribution, the origin of each of its top-level modules (import lookups only; nothing is executed).
LEAK_PROBE = r"""
import importlib.metadata as md, importlib.util, json, sys
out = {"executable": sys.executable, "path": [p for p in sys.path if p], "editable": []}
try:
    tops = md.packages_distributions()
except Exception:
    tops = {}
for dist in md.distributions():
    try:
        info = json.loads(dist.read_text("direct_url.json") or "null")
    except ValueError:
        continue
    if not isinstance(info, dict) or not info.get("dir_info", {}).get("editable"):
        continue
    name = dist.metadata["Name"]
    origins = {}
    for module in sorted(m for m, owners in tops.items() if name in owners):
        try:
            spec = importlib.util.find_spec(module)
        except Exception:
            continue
        if spec is None:
            continue
        if spec.origin and spec.origin not in ("built-in", "frozen", "namespace"):
            origins[module] = [spec.origin]
        elif spec.submodule_search_locations:
            origins[module] = list(spec.submodule_search_locations)
    out["editable"].append({"name": name, "url": info.get("url"), "origins": origins})
print(json.dumps(out))
"""


class CommandError(Exception):
    """The command cannot judge anything as given: a usage error (exit 2) with the fix."""

    def __init__(self, message: str, exit_code: int = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class CommandPlan:
    """How each candidate runs the command: argv (``<worktree>`` standing for the candidate's
    worktree), the subdirectory, the import-path and PATH rewrites, and the judge's identity."""

    argv: tuple[str, ...]
    subdir: str
    pythonpath_roots: tuple[str, ...] = ()  # repo-relative source roots put first on PYTHONPATH
    path_rewrites: tuple[tuple[str, str], ...] = ()  # (absolute folder in your checkout, repo-relative)
    identity: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    judge_files: tuple[str, ...] = ()  # absolute paths of the files outside the worktree (evidence copies)

    def argv_for(self, worktree: Path) -> list[str]:
        return [arg.replace(WORKTREE_TOKEN, str(worktree)) for arg in self.argv]

    def cwd_for(self, worktree: Path) -> Path:
        return worktree / self.subdir if self.subdir else worktree

    def env_for(self, env: Mapping[str, str], worktree: Path) -> dict[str, str]:
        """``env`` with your checkout's folders on PATH / PYTHONPATH pointed at the worktree."""
        out = dict(env)
        mapping = dict(self.path_rewrites)

        def moved(entry: str) -> str:
            rel = mapping.get(entry)
            return entry if rel is None else str(worktree / rel) if rel else str(worktree)

        for name in ("PATH", "PYTHONPATH"):
            if out.get(name):
                out[name] = os.pathsep.join(moved(e) for e in out[name].split(os.pathsep))
        if self.pythonpath_roots:
            first = [str(worktree / rel) if rel else str(worktree) for rel in self.pythonpath_roots]
            rest = [out["PYTHONPATH"]] if out.get("PYTHONPATH") else []
            out["PYTHONPATH"] = os.pathsep.join([*first, *rest])
        return out


HASHED_UP_TO = 64 << 20  # a bigger file (a model, a data set) is keyed by size and mtime, not read each run
COPIED_UP_TO = 1 << 20  # the evidence keeps a copy of the judge's scripts, not of its data


def file_digest(path: Path) -> str:
    """The file's sha256; for a file over ``HASHED_UP_TO`` bytes, ``stat:<size>:<mtime_ns>`` instead."""
    info = path.stat()
    if info.st_size > HASHED_UP_TO:
        return f"stat:{info.st_size}:{info.st_mtime_ns}"
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def interpreter_version(path: str, env: Mapping[str, str]) -> str:
    """What ``path --version`` prints (stdout and stderr), or why it could not run."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30, env=dict(env),
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"<--version failed: {error}>"
    return (done.stdout + done.stderr).strip()


@dataclass(frozen=True)
class Shebang:
    line: str  # the first line, without "#!"
    interpreter: str  # the program the kernel runs (after /usr/bin/env: the name env looks up)
    via_env: bool


def read_shebang(data: bytes) -> Shebang | None:
    if not data.startswith(b"#!"):
        return None
    line = data[2:].split(b"\n", 1)[0].decode("utf-8", "replace")
    words = line.strip().split()
    if not words:
        return Shebang(line, "", False)
    if Path(words[0]).name == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return Shebang(line, rest[0] if rest else "", True)
    return Shebang(line, words[0], False)


class _Resolver:
    """One command's resolution against the repository (see the module docstring)."""

    def __init__(self, argv: Sequence[str], repo: Path, cwd: Path, env: Mapping[str, str],
                 revisions: Sequence[str]) -> None:
        self.given = tuple(argv)
        self.repo = repo.resolve()
        self.cwd = cwd.resolve()
        self.env = env
        self.revisions = [rev for rev in revisions if rev]
        self.subdir = (self.cwd.relative_to(self.repo).as_posix() if _inside(self.cwd, self.repo)
                       and self.cwd != self.repo else "")
        self.git_dir = repository(self.repo).common_dir().resolve()
        self.notes: list[str] = []
        self.files: dict[str, str] = {}
        self.judge_files: list[str] = []
        self.interpreters: dict[str, dict[str, str]] = {}
        self.resolved: dict[str, str] = {}

    # ---- what git tracks ----------------------------------------------------------------------

    def kind_in_history(self, rel: str) -> str | None:
        history = repository(self.repo)
        for rev in self.revisions:
            kind = history.path_kind(rev, rel)
            if kind is not None:
                return kind
        return None

    def repo_relative(self, path: Path) -> str | None:
        """``path`` relative to the repository when it lies in your checkout (not in its git folder)."""
        resolved = Path(os.path.normpath(path))
        if not _inside(resolved, self.repo) or _inside(resolved, self.git_dir):
            return None
        rel = resolved.relative_to(self.repo).as_posix()
        return "" if rel == "." else rel

    # ---- files the command names ---------------------------------------------------------------

    def interpreter(self, path: str) -> None:
        if path and path not in self.interpreters:
            self.interpreters[path] = {"realpath": os.path.realpath(path),
                                       "version": interpreter_version(path, self.env)}

    def user_file(self, path: Path) -> None:
        """A file outside the worktree that the judge reads: its content is part of the identity."""
        if path.is_file():
            self.files[str(path)] = file_digest(path)
            if path.stat().st_size <= COPIED_UP_TO:
                self.judge_files.append(str(path))

    def check_program(self, shown: str, data: bytes, on_disk: Path | None) -> None:
        """Refuse what cannot run (CRLF, missing interpreter); record the interpreter's identity."""
        if data.startswith(b"\x7fELF"):
            if on_disk is not None:
                self.interpreter(str(on_disk))
            return
        shebang = read_shebang(data)
        if shebang is None:
            self.interpreter("/bin/sh")  # no #! line: run under /bin/sh, as git bisect run does
            return
        if shebang.line.endswith("\r"):
            raise CommandError(
                f"{shown} has Windows line endings (CRLF): its first line is '#!{shebang.line.rstrip()}\\r', so the "
                f"system looks for an interpreter named with a trailing carriage return; fix: convert the file to LF "
                f"line endings (dos2unix {shown}, or git config core.autocrlf input and check it out again)")
        if not shebang.interpreter:
            raise CommandError(f"{shown}: the #! line names no interpreter ('#!{shebang.line}'); fix: "
                               "write e.g. #!/bin/sh or #!/usr/bin/env python3")
        if shebang.via_env:
            found = shutil.which(shebang.interpreter, path=self.env.get("PATH"))
            if found is None:
                raise CommandError(
                    f"the interpreter {shebang.interpreter!r} that the first line of {shown} asks env for "
                    f"('#!{shebang.line}') is not on PATH; fix: install it, put it on PATH, or change the #! line")
            self.interpreter(found)
        elif not Path(shebang.interpreter).is_file():
            raise CommandError(
                f"the interpreter {shebang.interpreter!r} named on the first line of {shown} ('#!{shebang.line}') "
                "does not exist; fix: correct the #! line (e.g. #!/usr/bin/env python3) or name the interpreter "
                f"in the command (-- python3 {shown})")
        else:
            self.interpreter(shebang.interpreter)

    def program(self) -> str:
        """argv[0] as each candidate runs it."""
        name = self.given[0]
        if name == "{python}":  # the candidate's interpreter (vtbisect.build): its identity is the build's
            return name
        if "/" not in name:
            found = shutil.which(name, path=self.env.get("PATH"))
            if found is None:
                raise CommandError(f"command not found: {name!r} (not on PATH); give a path, e.g. ./test.sh")
            rel = self.repo_relative(Path(found).parent)
            if rel is not None and self.kind_in_history(rel) == "tree":
                return name  # found in a folder of your checkout: PATH is rewritten to the worktree's copy
            if not self._is_elf(Path(found)):
                self.user_file(Path(found))
            self.check_program(name, Path(found).read_bytes()[:4096], Path(found))
            self.resolved[name] = found  # where PATH resolves it (PATH itself is not in the identity)
            return name
        return self.path_argument(name, program=True)

    @staticmethod
    def _is_elf(path: Path) -> bool:
        with path.open("rb") as handle:
            return handle.read(4) == b"\x7fELF"

    def path_argument(self, arg: str, *, program: bool = False) -> str:
        """An argument that names a file: the candidate's copy when git tracks it, else yours."""
        user_path = Path(arg) if os.path.isabs(arg) else self.cwd / arg
        rel = self.repo_relative(user_path)
        tracked = self.kind_in_history(rel) if rel is not None and rel else None
        if program and (tracked == "tree" or (tracked is None and user_path.is_dir())):
            raise CommandError(f"the command {arg!r} is a folder, not a program; fix: name the script or "
                               f"program inside it (e.g. -- {arg.rstrip('/')}/run.sh)")
        if tracked == "blob" and rel is not None:
            if program:
                data = repository(self.repo).read_file(self.revisions[-1], rel) or b""
                if not data:
                    data = repository(self.repo).read_file(self.revisions[0], rel) or b""
                self.check_program(arg, data[:4096], None)
            if os.path.isabs(arg):
                self.notes.append(f"{arg} is tracked by git: each candidate runs its own copy of {rel}, "
                                  "as git bisect run would")
                return f"{WORKTREE_TOKEN}/{rel}"
            return arg
        if tracked == "tree":
            return arg  # a folder of the candidate (e.g. pytest tests/)
        if user_path.is_file():
            absolute = str(Path(os.path.normpath(user_path)))
            if program:
                self.check_program(arg, user_path.read_bytes()[:4096], user_path)
                if not os.access(user_path, os.X_OK):
                    raise CommandError(f"{arg} is not executable; fix: chmod +x {arg}, or name its "
                                       f"interpreter (-- sh {arg})")
            if not (program and self._is_elf(user_path)):  # a program binary: its path and --version
                self.user_file(Path(absolute))
            if rel is not None:
                self.notes.append(f"{arg} is not tracked by git (not at GOOD nor BAD): every candidate runs "
                                  f"your copy, {absolute}, as git bisect run would")
            return absolute
        if program:
            where = f"in {self.cwd}" + (f", nor at GOOD or BAD ({rel})" if rel else "")
            raise CommandError(f"command {arg!r} not found: no such file {where}; fix: check the path (it is "
                               "relative to your current directory), or commit the script")
        return arg

    def arguments(self) -> list[str]:
        out = []
        for arg in self.given[1:]:
            if arg.startswith("-") or not arg or "\n" in arg:
                out.append(arg)
                continue
            user_path = Path(arg) if os.path.isabs(arg) else self.cwd / arg
            rel = self.repo_relative(user_path)
            in_history = rel is not None and rel != "" and self.kind_in_history(rel) is not None
            out.append(self.path_argument(arg) if in_history or user_path.is_file() else arg)
        return out

    # ---- your checkout leaking in --------------------------------------------------------------

    def judge_python(self, program: str) -> str | None:
        """The Python the judge runs under: argv[0] itself, its script's interpreter, else python3."""
        path_env = self.env.get("PATH")
        first = shutil.which(program, path=path_env) if "/" not in program else (
            program if os.path.isabs(program) and not program.startswith(WORKTREE_TOKEN) else None)
        if first and PYTHON_NAME.match(Path(first).name):
            return first
        if first and Path(first).is_file():
            shebang = read_shebang(Path(first).read_bytes()[:4096])
            if shebang and PYTHON_NAME.match(Path(shebang.interpreter).name):
                return shutil.which(shebang.interpreter, path=path_env) if shebang.via_env else shebang.interpreter
        return shutil.which("python3", path=path_env) or shutil.which("python", path=path_env)

    def leaks(self, python: str | None, keep: Sequence[Path] = ()) -> tuple[list[str], list[tuple[str, str]], list[str]]:
        """(source roots to put first on PYTHONPATH, PATH/PYTHONPATH rewrites, what was found). Folders
        in ``keep`` (where the judge's own code lives, in gate mode) are left alone."""
        rewrites: dict[str, str] = {}
        found: list[str] = []
        kept = {Path(os.path.realpath(folder)) for folder in keep}
        for name in ("PATH", "PYTHONPATH"):
            for entry in (self.env.get(name) or "").split(os.pathsep):
                if not entry or not os.path.isabs(entry) or Path(os.path.realpath(entry)) in kept:
                    continue
                rel = self.repo_relative(Path(entry))
                if rel is not None and (rel == "" or self.kind_in_history(rel) == "tree"):
                    rewrites[entry] = rel
                    found.append(f"{name} entry {entry}")
        roots: list[str] = []
        if python is not None:
            for module, root, how in self._imports_from_checkout(python):
                rel = self.repo_relative(root)
                if Path(os.path.realpath(root)) in kept:
                    continue
                if rel is None or (rel and self.kind_in_history(rel) != "tree"):
                    continue  # e.g. a virtualenv inside your checkout: yours, not the candidate's code
                if rel not in roots and rel not in rewrites.values():
                    roots.append(rel)
                    found.append(f"{python} imports {module + ' ' if module else ''}from {root} ({how})")
        return roots, sorted(rewrites.items()), found

    def _imports_from_checkout(self, python: str) -> list[tuple[str, Path, str]]:
        """(module, the folder it is imported from, how) for what ``python`` imports from your checkout."""
        with tempfile.TemporaryDirectory(prefix="vtbisect-probe-") as neutral:
            try:
                done = subprocess.run([python, "-c", LEAK_PROBE], capture_output=True, text=True, timeout=120,
                                      env=dict(self.env), cwd=neutral, stdin=subprocess.DEVNULL, check=False)
                report = json.loads(done.stdout) if done.returncode == 0 else None
            except (OSError, subprocess.TimeoutExpired, ValueError):
                report = None
        if not isinstance(report, dict):
            return []
        out: list[tuple[str, Path, str]] = []
        for dist in report.get("editable", []):
            for module, origins in dist.get("origins", {}).items():
                for origin in map(Path, origins):
                    if self.repo_relative(origin) is None:
                        continue
                    # a package's __init__.py or folder: its parent is the root; a module file: its folder
                    package = origin.parent if origin.name == "__init__.py" else origin
                    root = package.parent if origin.name == "__init__.py" or origin.is_dir() else origin.parent
                    out.append((module, root, f"editable install of {dist.get('name')}"))
        for entry in report.get("path", []):  # a .pth line or PYTHONPATH naming a folder of your checkout
            if self.repo_relative(Path(entry)) is not None:
                out.append(("", Path(entry), "a folder on its sys.path"))
        return out

    # ---- the whole plan ------------------------------------------------------------------------

    def leak_note(self, roots: Sequence[str], rewrites: Sequence[tuple[str, str]], found: Sequence[str]) -> None:
        if found:
            what = "; ".join(found)
            fixes = []
            if roots:
                fixes.append("each candidate runs with PYTHONPATH=" + os.pathsep.join(
                    f"{WORKTREE_TOKEN}/{r}" if r else WORKTREE_TOKEN for r in roots) + " first")
            if rewrites:
                fixes.append("those PATH/PYTHONPATH entries point at the worktree instead")
            self.notes.append(f"the judge would see your checkout, not the candidate: {what}; so "
                              + ", and ".join(fixes) + " (the candidate's code is what is judged)")

    def plan(self) -> CommandPlan:
        if not self.given:
            raise CommandError("no command given after --")
        argv = [self.program(), *self.arguments()]
        python = self.judge_python(self.given[0])
        roots, rewrites, found = self.leaks(python)
        self.leak_note(roots, rewrites, found)
        identity = {
            "argv": list(self.given),
            "subdir": self.subdir,
            "resolved": self.resolved,
            "files": dict(sorted(self.files.items())),
            "interpreters": dict(sorted(self.interpreters.items())),
            "python": python and {"path": python, **self.interpreters.get(python, {
                "realpath": os.path.realpath(python), "version": interpreter_version(python, self.env)})},
            "pythonpath_roots": roots,
            "path_rewrites": [list(pair) for pair in rewrites],
        }
        return CommandPlan(argv=tuple(argv), subdir=self.subdir, pythonpath_roots=tuple(roots),
                           path_rewrites=tuple(rewrites), identity=identity, notes=tuple(dict.fromkeys(self.notes)),
                           judge_files=tuple(dict.fromkeys(self.judge_files)))


def resolve_command(argv: Sequence[str], repo: Path, cwd: Path, env: Mapping[str, str],
                    revisions: Sequence[str]) -> CommandPlan:
    """Resolve ``argv`` for a bisection of ``repo`` started in ``cwd`` (``revisions``: GOOD and BAD,
    whose trees say what git tracks). Raises ``CommandError`` (exit 2) for a command that cannot run."""
    return _Resolver(argv, repo, cwd, env, revisions).plan()


def resolve_gate_leaks(repo: Path, env: Mapping[str, str], revisions: Sequence[str], python: str,
                       judge_roots: Sequence[Path]) -> CommandPlan:
    """Gate mode's check for your checkout leaking in: the Python that runs ``vtgate check`` (and its
    probes) asked as a command judge's is (``PYTHONPATH`` / ``PATH`` entries, ``.pth`` lines, editable
    installs into your checkout). vtgate check puts the suite's ``pythonpath`` roots first itself;
    anything else found is pointed at the worktree the same way. ``judge_roots`` (where vtgate and
    vtbisect themselves are imported from) stay: the judge is fixed, only the candidate varies."""
    resolver = _Resolver(("vtgate",), repo, repo, env, revisions)
    roots, rewrites, found = resolver.leaks(python, keep=judge_roots)
    resolver.leak_note(roots, rewrites, found)
    identity = {"pythonpath_roots": roots, "path_rewrites": [list(pair) for pair in rewrites]}
    return CommandPlan(argv=(), subdir="", pythonpath_roots=tuple(roots), path_rewrites=tuple(rewrites),
                       identity=identity, notes=tuple(resolver.notes))
