"""A scratch project in tmp_path for envdoc tests: write sources and a doc table, run the checker."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from vtgate.envdoc import EnvdocConfig, EnvdocReport, EnvRead, run_envdoc
from vtgate.envdoc.model import WrapperSpec
from vtgate.envdoc.pyscan import scan_python_text
from vtgate.envdoc.scan import resolve_wrapper_calls

HEADER = "| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n"


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, relpath: str, text: str | bytes) -> Path:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def doc(self, *rows: str | tuple[str, str], path: str = "docs/ENVIRONMENT.md") -> Path:
        """Rows as ``(name, default)`` or a full ``| ... |`` line."""
        lines = [row if isinstance(row, str) else f"| {row[0]} | {row[1]} | some effect | yes |" for row in rows]
        return self.write(path, "# Knobs\n\n" + HEADER + "".join(line + "\n" for line in lines))

    def run(self, **overrides: Any) -> EnvdocReport:
        return run_envdoc(self.root, EnvdocConfig.load(self.root, overrides or None))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.fixture
def reads_of() -> Any:
    """The function ``reads_of(code, wrappers=(), relpath=...)`` (a fixture: tests import nothing)."""
    return _reads_of


def _reads_of(code: str, wrappers: Iterable[str] = (), relpath: str = "pkg/mod.py") -> list[EnvRead]:
    """Every read in one Python source, wrapper calls resolved against definitions in the same file."""
    specs = [WrapperSpec.parse(text) for text in wrappers]
    scan = scan_python_text(textwrap.dedent(code), relpath, specs)
    assert scan.error is None, scan.error
    return sorted([*scan.reads, *resolve_wrapper_calls([scan], specs)], key=lambda read: read.line)
