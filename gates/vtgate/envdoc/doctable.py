"""Read the knob table of docs/ENVIRONMENT.md: a markdown table whose header is
``| name | default | effect | bit-exact with default? |``. Each row documents one env var, or a family
of them when the name ends in ``*`` (``VT_FOO_*``, matched by prefix). Problems in the table are
errors that stop the run (exit 2) and name the file, the line and the fix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from vtgate.envdoc.model import EnvdocError

HEADER = ("name", "default", "effect", "bit-exact with default?")
HEADER_LINE = "| name | default | effect | bit-exact with default? |"
UNSET_MARKERS = {"", "-", "—", "–", "(unset)", "unset", "(none)", "(empty)", "n/a"}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\*?$")
_SEPARATOR_CELL = re.compile(r"^:?-{1,}:?$")


@dataclass(frozen=True)
class DocRow:
    """One documented knob (or a ``PREFIX_*`` family when ``is_pattern``)."""

    name: str
    default: str  # the cell as written, backticks removed
    effect: str
    bit_exact: str
    line: int

    @property
    def is_pattern(self) -> bool:
        return self.name.endswith("*")

    @property
    def pattern_prefix(self) -> str:
        return self.name[:-1]

    @property
    def default_value(self) -> str | None:
        """The default as a value: None when the cell says the knob is unset by default, else the
        text with one pair of surrounding quotes removed (so `"1"`, `'1'` and `1` all mean 1)."""
        text = self.default.strip()
        if text.lower() in UNSET_MARKERS:
            return None
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text

    def covers(self, name: str) -> bool:
        return name.startswith(self.pattern_prefix) if self.is_pattern else name == self.name


def split_row(line: str) -> list[str]:
    """Cells of a markdown table row; ``\\|`` is a literal pipe."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _strip_code(cell: str) -> str:
    text = cell.strip()
    while len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        text = text[1:-1].strip()
    return text


def parse_doc(path: Path, display: str | None = None) -> list[DocRow]:
    """Parse every knob table in ``path``. Errors: the file is missing or unreadable, has no knob
    table, a row has the wrong number of cells or a name that is not an env var name, or a name
    appears in two rows."""
    shown = display or str(path)
    if not path.is_file():
        raise EnvdocError(
            f"{shown} does not exist: create it with a table\n  {HEADER_LINE}\n  |---|---|---|---|\n"
            f"and one row per knob, or point at the right file with --doc FILE "
            f'(or doc = "..." under [tool.vtgate.envdoc] in pyproject.toml)'
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise EnvdocError(
            f"{shown} is not UTF-8 text ({error.reason} at byte {error.start}): save it as UTF-8"
        ) from None
    except OSError as error:
        raise EnvdocError(f"{shown} cannot be read: {error.strerror}") from None
    lines = text.splitlines()
    rows: list[DocRow] = []
    seen: dict[str, DocRow] = {}
    found_table = False
    index = 0
    while index < len(lines):
        cells = split_row(lines[index]) if lines[index].lstrip().startswith("|") else None
        if not cells or tuple(c.lower() for c in cells) != HEADER:
            index += 1
            continue
        found_table = True
        if index + 1 >= len(lines) or not all(_SEPARATOR_CELL.match(c) for c in split_row(lines[index + 1])):
            raise EnvdocError(
                f"{shown}:{index + 2}: the knob table's header must be followed by |---|---|---|---|"
            )
        index += 2
        while index < len(lines) and lines[index].lstrip().startswith("|"):
            row = _parse_row(lines[index], index + 1, shown)
            if row.name in seen:
                first = seen[row.name]
                raise EnvdocError(
                    f"{shown}:{row.line}: duplicate row for {row.name} (first at line {first.line}): "
                    f"keep one row and delete the other"
                )
            seen[row.name] = row
            rows.append(row)
            index += 1
    if not found_table:
        raise EnvdocError(
            f"{shown} has no knob table: add a table whose header is\n  {HEADER_LINE}\n"
            f"followed by |---|---|---|---| and one row per env var the code reads"
        )
    return rows


def _parse_row(line: str, number: int, shown: str) -> DocRow:
    cells = split_row(line)
    if len(cells) != len(HEADER):
        raise EnvdocError(
            f"{shown}:{number}: malformed knob row (has {len(cells)} cells, needs {len(HEADER)}: "
            f"name | default | effect | bit-exact with default?); escape a pipe inside a cell as \\|: {line.strip()}"
        )
    name = _strip_code(cells[0])
    if not _NAME.match(name):
        raise EnvdocError(
            f"{shown}:{number}: {cells[0]!r} is not an env var name (letters, digits, _; a family "
            f"is written PREFIX_*): {line.strip()}"
        )
    return DocRow(name=name, default=_strip_code(cells[1]), effect=cells[2], bit_exact=cells[3], line=number)
