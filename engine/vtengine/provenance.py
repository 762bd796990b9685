"""Which engine source actually ran: the source tree hash of docs/contracts.md section 2 over the
directory ``vtengine`` was imported from, and the mixed-imports check (every loaded ``vtengine.*``
module must come from that directory)."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


class MixedImportsError(RuntimeError):
    """Some vtengine modules were loaded from a different tree than the package itself."""


def source_tree_hash(directory: str | Path) -> str:
    """sha256 over (relpath utf-8, NUL, sha256(bytes)) of every ``*.py`` file below ``directory``,
    sorted by POSIX relative path, skipping any path component starting with '.' or equal to
    '__pycache__'."""
    root = Path(directory)
    files: list[tuple[str, Path]] = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if not path.is_file() or any(p.startswith(".") or p == "__pycache__" for p in rel.parts):
            continue
        files.append((rel.as_posix(), path))
    digest = hashlib.sha256()
    for relpath, path in sorted(files, key=lambda item: item[0]):
        digest.update(relpath.encode("utf-8") + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def package_dir() -> Path:
    import vtengine

    return Path(vtengine.__file__).resolve().parent


def check_single_tree(directory: Path | None = None) -> None:
    """Raise :class:`MixedImportsError` if any loaded ``vtengine`` module lies outside ``directory``."""
    root = (directory or package_dir()).resolve()
    strays = []
    for name, module in list(sys.modules.items()):
        if name != "vtengine" and not name.startswith("vtengine."):
            continue
        file = getattr(module, "__file__", None)
        if file is None:
            continue
        if not Path(file).resolve().is_relative_to(root):
            strays.append(f"{name} from {file}")
    if strays:
        raise MixedImportsError(
            f"mixed imports: vtengine is {root} but " + "; ".join(strays)
            + " (put one tree's source root first on PYTHONPATH)"
        )


def source_info() -> dict[str, str]:
    """``source_tree_hash`` and ``source_root`` of the running engine, after the mixed-imports check."""
    root = package_dir()
    check_single_tree(root)
    return {"source_tree_hash": source_tree_hash(root), "source_root": str(root.parent)}
