"""Gate mode's fixed oracle: the suite and its goldens, copied once into the cache folder so every
candidate is judged against the same pins, whatever the candidate's own goldens say.

The oracle comes from the user's current checkout (working files, uncommitted edits included) or,
with ``--suite-from REV``, from a commit. It is laid out like the project (project file, suite file,
goldens folder, any golden path a gate names), in ``<cache>/oracle/<digest>/``, where ``digest``
covers every copied file: it is the oracle part of each verdict's cache key."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtgate.errors import SuiteError
from vtgate.suite.load import load_suite

from vtbisect.cache import file_digest
from vtbisect.gitrepo import repository
from vtbisect.revisions import resolve

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class OracleError(Exception):
    """The suite cannot be found or read; a configuration error (exit 2)."""


@dataclass(frozen=True)
class Oracle:
    suite: Path  # the suite file inside the oracle folder (what --suite gets)
    digest: str
    gates: tuple[str, ...]
    deliberate: frozenset[str]
    source: str  # "checkout" or the commit it was read from
    knob_prefixes: tuple[str, ...] = ("VT_",)  # [suite] knob_prefixes
    named_knobs: frozenset[str] = frozenset()  # variables the suite's gates pin or sweep
    artifacts: tuple[str, ...] = ()  # [suite] artifacts: globs of untracked files, linked into each worktree
    artifacts_root: Path | None = None  # the user's checkout, where those files are


Reader = Callable[[str], bytes | None]
Lister = Callable[[str], list[str]]


def _checkout_io(root: Path) -> tuple[Reader, Lister]:
    def read(rel: str) -> bytes | None:
        path = root / rel
        return path.read_bytes() if path.is_file() else None

    def listing(rel: str) -> list[str]:
        base = root / rel
        if not base.is_dir():
            return []
        return [p.relative_to(root).as_posix() for p in base.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts]

    return read, listing


def _revision_io(repo: Path, sha: str) -> tuple[Reader, Lister]:
    history = repository(repo)

    def read(rel: str) -> bytes | None:
        return history.read_file(sha, rel)

    def listing(rel: str) -> list[str]:
        return history.list_files(sha, rel)

    return read, listing


def _toml(data: bytes, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise OracleError(f"{where}: malformed TOML: {error}") from error


def _oracle_files(read: Reader, listing: Lister, suite_rel: str | None, where: str) -> tuple[list[str], str]:
    """Relative paths to copy and the suite file's relative path."""
    files: list[str] = []
    if suite_rel is None:
        if read("vtgate.toml") is not None:
            suite_rel = "vtgate.toml"
        else:
            project = read("pyproject.toml")
            tool = _toml(project, f"{where}pyproject.toml").get("tool", {}).get("vtgate") if project else None
            if not isinstance(tool, dict):
                raise OracleError(f"no gate suite in {where}: no vtgate.toml and no [tool.vtgate] in pyproject.toml;"
                                  " pass --suite FILE")
            files.append("pyproject.toml")
            pointer = tool.get("suite")
            suite_rel = pointer if isinstance(pointer, str) else "pyproject.toml"
    data = read(suite_rel)
    if data is None:
        raise OracleError(f"suite file {suite_rel} not found in {where}")
    files.append(suite_rel)
    table = _toml(data, f"{where}{suite_rel}")
    if suite_rel == "pyproject.toml":
        table = table.get("tool", {}).get("vtgate", {})
    goldens = str(table.get("suite", {}).get("goldens", "goldens"))
    files.extend(listing(goldens))
    for gate in table.get("gate", []):
        if isinstance(gate, dict) and isinstance(gate.get("golden"), str) and read(gate["golden"]) is not None:
            files.append(gate["golden"])
    return sorted(set(files)), suite_rel


def _stage(files: Iterable[str], read: Reader, target: Path) -> None:
    for rel in files:
        data = read(rel)
        if data is None:
            continue
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def prepare_oracle(repo: Path, cache_dir: Path, *, suite: str | None, suite_from: str | None) -> Oracle:
    """Copy the suite and goldens into ``<cache>/oracle/<digest>/`` and describe them."""
    if suite_from:
        sha = resolve(repo, suite_from, "--suite-from")
        read, listing = _revision_io(repo, sha)
        suite_rel = None if suite is None else suite
        source, where = sha, f"commit {sha[:10]}: "
        root = repo
    else:
        root = repo
        suite_rel = None
        if suite is not None:
            path = Path(suite).resolve()
            if not path.is_file():
                raise OracleError(f"--suite {suite}: no such file")
            try:
                root = load_suite(path).root
            except SuiteError as error:
                raise OracleError(str(error)) from error
            suite_rel = path.relative_to(root).as_posix()
        read, listing = _checkout_io(root)
        source, where = "checkout", f"{root}: "
    files, suite_rel = _oracle_files(read, listing, suite_rel, where)
    (cache_dir / "oracle").mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="staging-", dir=cache_dir / "oracle"))
    try:
        _stage(files, read, staging)
        digest = file_digest([p for p in staging.rglob("*") if p.is_file()], staging)
        final = cache_dir / "oracle" / digest[:16]
        if not final.exists():
            # Another run may stage the same oracle first: identical by digest, so losing is fine.
            with contextlib.suppress(OSError):
                staging.rename(final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    suite_path = final / suite_rel
    try:
        loaded = load_suite(suite_path)
    except SuiteError as error:
        raise OracleError(str(error)) from error
    from vtgate.run.check import suite_knobs

    return Oracle(
        suite=suite_path, digest=digest, gates=tuple(g.name for g in loaded.gates),
        deliberate=frozenset(g.name for g in loaded.gates if g.deliberate_red is not None), source=source,
        knob_prefixes=tuple(loaded.settings.knob_prefixes), named_knobs=suite_knobs(loaded),
        artifacts=loaded.settings.artifacts, artifacts_root=root,
    )
