"""Where output goes: human text to stderr through rich (NO_COLOR honoured), machine output as JSON
to a file written atomically or to stdout with ``-``. Shared by the vtgate and vtbisect CLIs."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

# rich reads NO_COLOR itself; stderr keeps stdout clean for `--json -`.
console = Console(stderr=True, highlight=False)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so a reader sees either the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def write_json(destination: str | os.PathLike[str], data: Any) -> None:
    """Write ``data`` as JSON to ``destination``; ``-`` means stdout."""
    text = dumps(data)
    if str(destination) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write_text(Path(destination), text)
