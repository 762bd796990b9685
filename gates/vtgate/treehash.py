"""The source tree hash of docs/contracts.md section 2, computed without importing the engine: it is
what proves that a probe really ran the code under ``--root`` (the stale-artifact guard)."""

from __future__ import annotations

import hashlib
from pathlib import Path


def source_tree_hash(directory: str | Path) -> str:
    """sha256 over (relpath NUL sha256(bytes)) of every ``*.py`` below ``directory``, sorted by relpath,
    skipping any path component that starts with "." or equals "__pycache__"."""
    root = Path(directory)
    files: list[tuple[str, Path]] = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if path.is_file():
            files.append((relative.as_posix(), path))
    digest = hashlib.sha256()
    for relpath, path in sorted(files, key=lambda item: item[0]):
        digest.update(relpath.encode("utf-8") + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
