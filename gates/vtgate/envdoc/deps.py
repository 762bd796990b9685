"""Dependencies: code a tree runs but does not contain. A documented name that no scanned source
reads may be read by a library the tree depends on (``RUST_LOG`` by tracing, ``HF_HOME`` by
huggingface_hub, ``OMP_NUM_THREADS`` by an OpenMP runtime), so envdoc never says "delete the row"
for it while those dependencies are unread:

- :func:`declared` reads the tree's manifests (Cargo.toml, pyproject.toml, requirements*.txt,
  setup.cfg, go.mod, package.json) for the dependencies they declare, so that a stale entry can say
  how many were not scanned and where they are declared;
- :func:`reads_in` looks for the stale names in the folders given with ``--deps DIR`` (a Cargo
  registry, a site-packages, a Go module cache, a vendored checkout): only files that mention a
  name are parsed, with the same scanners as the tree, and a name is "read by a dependency" only
  where one of those scanners finds a read of it; a mention that is not a recognised read is kept
  apart (the row stays, and the message says where the name appears).
"""

from __future__ import annotations

import configparser
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.envdoc.model import FileScan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# Manifest file names (besides Cargo.toml, which envdoc already collects as a build file).
MANIFESTS = {"pyproject.toml": "pyproject", "setup.cfg": "setup.cfg", "go.mod": "go.mod", "package.json": "npm",
             "Pipfile": "Pipfile"}
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_SKIPPED = {"__pycache__", "node_modules", ".git"}


def manifest_kind(name: str) -> str | None:
    """The manifest kind of a file name (``requirements-dev.txt`` is one), else None."""
    if name in MANIFESTS:
        return MANIFESTS[name]
    if name.startswith("requirements") and name.endswith(".txt"):
        return "requirements"
    if name == "Cargo.toml":
        return "Cargo"
    return None


@dataclass
class Declared:
    """Dependencies declared by one manifest."""

    manifest: str  # its display path
    names: list[str] = field(default_factory=list)


def _requirement_names(lines: Iterable[str]) -> list[str]:
    names = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):  # -r other.txt, -e ., --index-url: not a name here
            continue
        match = _REQUIREMENT.match(line)
        if match:
            names.append(match.group(1))
    return names


def _cargo_names(data: dict[str, Any]) -> list[str]:
    names: list[str] = []
    tables = [data, data.get("workspace", {}), *data.get("target", {}).values()]
    for table in tables:
        if not isinstance(table, dict):
            continue
        for key in ("dependencies", "dev-dependencies", "build-dependencies"):
            section = table.get(key)
            if isinstance(section, dict):
                names.extend(str(name) for name, spec in section.items() if not _local(spec))
    return names


def _local(spec: Any) -> bool:
    """A dependency that is a folder of the tree itself (``{ path = "../core" }``, a workspace
    member), not code from elsewhere."""
    return isinstance(spec, dict) and "path" in spec


def _pyproject_names(data: dict[str, Any]) -> list[str]:
    project = data.get("project", {})
    lines = list(project.get("dependencies", []) or [])
    for group in (project.get("optional-dependencies", {}) or {}).values():
        lines.extend(group or [])
    names = _requirement_names(str(line) for line in lines)
    poetry = data.get("tool", {}).get("poetry", {})
    for key in ("dependencies", "dev-dependencies"):
        names.extend(name for name, spec in (poetry.get(key) or {}).items() if name != "python" and not _local(spec))
    for group in (poetry.get("group", {}) or {}).values():
        names.extend(name for name, spec in (group.get("dependencies") or {}).items() if name != "python" and not _local(spec))
    return names


def _go_names(text: str) -> list[str]:
    names: list[str] = []
    block = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if line.startswith("require ("):
            block = True
            continue
        if block and line == ")":
            block = False
            continue
        if block and line:
            names.append(line.split()[0])
        elif line.startswith("require "):
            names.append(line.split()[1])
    return names


def read_manifest(path: Path, shown: str, kind: str) -> Declared | None:
    """The dependencies ``path`` declares; None when it declares none or cannot be read (a manifest
    envdoc cannot parse only loses the count it would have added to a message)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        if kind == "Cargo":
            names = _cargo_names(tomllib.loads(text))
        elif kind == "pyproject":
            names = _pyproject_names(tomllib.loads(text))
        elif kind == "requirements":
            names = _requirement_names(text.splitlines())
        elif kind == "setup.cfg":
            parser = configparser.ConfigParser()
            parser.read_string(text)
            names = _requirement_names(parser.get("options", "install_requires", fallback="").splitlines())
        elif kind == "go.mod":
            names = _go_names(text)
        elif kind == "npm":
            data = json.loads(text)
            names = [*(data.get("dependencies") or {}), *(data.get("devDependencies") or {})]
        elif kind == "Pipfile":
            data = tomllib.loads(text)
            names = [*(data.get("packages") or {}), *(data.get("dev-packages") or {})]
        else:
            return None
    except (OSError, ValueError, configparser.Error, AttributeError):
        return None
    unique = sorted(set(names))
    return Declared(shown, unique) if unique else None


def declared(manifests: Sequence[tuple[Path, str, str]]) -> list[Declared]:
    """Every manifest among ``manifests`` (path, shown, kind) that declares a dependency."""
    found = [read_manifest(path, shown, kind) for path, shown, kind in manifests]
    return sorted((item for item in found if item is not None), key=lambda item: item.manifest)


def _normal(name: str) -> str:
    """A dependency's name as folders spell it: lower case, ``_`` and ``.`` as ``-``, a Go module by
    its last path part (``github.com/spf13/cobra`` -> ``cobra``)."""
    return re.sub(r"[_.]", "-", name.rsplit("/", 1)[-1].lower())


_VERSIONED = re.compile(r"^(.*?)(?:[-@]v?\d[^/]*|\.dist-info|\.egg-info)$")


def covered(folders: Sequence[Path], names: Iterable[str], depth: int = 3) -> tuple[list[str], list[str]]:
    """Which declared dependencies have a folder below ``folders`` (``tracing-subscriber-0.3.19`` in
    a Cargo registry, ``huggingface_hub`` or ``huggingface_hub-0.24.0.dist-info`` in site-packages,
    ``cobra@v1.8.0`` in a Go module cache, ``candle-core`` in a checkout), looked for ``depth`` levels
    down; returns (found, missing), each sorted. A folder's name is matched, not its contents: this
    says which dependencies were at least offered to the scan."""
    wanted = {_normal(name): name for name in names}
    seen: set[str] = set()
    for folder in folders:
        base = len(folder.parts)
        for directory, dirs, _ in os.walk(folder):
            if len(Path(directory).parts) - base >= depth:
                dirs[:] = []
            dirs[:] = [name for name in dirs if name not in _SKIPPED]
            for name in dirs:
                match = _VERSIONED.match(name)
                seen.add(_normal(match.group(1) if match else name))
    found = sorted(original for normal, original in wanted.items() if normal in seen)
    missing = sorted(original for normal, original in wanted.items() if normal not in seen)
    return found, missing


def _walk(start: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    if start.is_file():
        yield start
        return
    for directory, dirs, files in os.walk(start):
        dirs[:] = sorted(name for name in dirs if name not in _SKIPPED)
        for name in sorted(files):
            if name.endswith(suffixes):
                yield Path(directory) / name


@dataclass
class DependencyScan:
    """What the ``--deps`` folders say about some names."""

    folders: list[str]
    files: int = 0  # source files looked at (by suffix)
    parsed: int = 0  # files that mention a name, parsed
    read: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> first read (file, line)
    mentioned: dict[str, tuple[str, int]] = field(default_factory=dict)  # name -> first mention, no read


Scanner = Callable[[Path, str, Sequence[str]], FileScan]


def reads_in(folders: Sequence[Path], names: Sequence[str], scanner: Scanner, suffixes: tuple[str, ...]) -> DependencyScan:
    """Which of ``names`` the source files below ``folders`` (those ending in ``suffixes``) read, by
    ``scanner(path, shown, words)`` (the tree's own scanners, without wrappers: a dependency's own
    helpers are followed where envdoc follows them unasked), and which they only mention. A file is
    parsed only when its bytes contain one of the names."""
    result = DependencyScan([str(folder) for folder in folders])
    if not names:
        return result
    wanted = set(names)
    needles = [name.encode() for name in wanted]
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(needle) for needle in needles) + rb")\b")
    for folder in folders:
        for path in _walk(folder, suffixes):
            result.files += 1
            try:
                data = path.read_bytes()
            except OSError:
                continue
            hits = {match.group(1).decode() for match in pattern.finditer(data)}
            if not hits:
                continue
            shown = path.as_posix()
            result.parsed += 1
            scan = scanner(path, shown, sorted(hits))
            for read in scan.reads:
                if read.name is not None and read.name in hits and read.name not in result.read:
                    result.read[read.name] = (shown, read.line)
            for name in hits - set(result.read) - set(result.mentioned):
                at = re.search(rb"\b" + re.escape(name.encode()) + rb"\b", data)
                result.mentioned[name] = (shown, data.count(b"\n", 0, at.start() if at else 0) + 1)
    for name in result.read:
        result.mentioned.pop(name, None)
    return result
