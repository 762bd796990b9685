"""Where output goes, and how: human text to stderr through rich (NO_COLOR honoured), machine output
as JSON to a file written atomically or to stdout with ``-``. Shared by the vtgate and vtbisect CLIs.

Data is never markup. The console parses no markup at all, so a commit subject ``[core] fix``, a path
under a folder ``[core]`` or a message naming ``[tool.vtgate]`` prints exactly as it is. The program's
own styling is explicit: ``say(("configuration error", "bold red"), ": ", message)`` styles the
literal and prints the message as text. Lines wrap at spaces only, and tables are printed wide enough
for their no-wrap columns, so a name a user copies (a gate, a knob, a commit, a path) is never folded
or cut with an ellipsis."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

# rich reads NO_COLOR itself; stderr keeps stdout clean for `--json -`; markup=False: see above.
console = Console(stderr=True, highlight=False, markup=False)

# A piece of a line: a str is data, printed as it is; (text, style) is the program's own styled literal.
Part = str | Text | tuple[str, str]


def line(*parts: Part) -> Text:
    """One line from ``parts`` (see ``Part``); nothing in it is parsed as markup."""
    return Text.assemble(*parts)


def word_wrap(text: Text, width: int) -> list[Text]:
    """``text`` broken at spaces into lines of at most ``width`` cells where the words allow it. A word
    (a name, a path, a commit id) is never broken or cut: one longer than ``width`` gets a line of its
    own, longer than the width. rich's own wrapping folds or crops such a word."""
    lines: list[Text] = []
    for paragraph in text.split("\n", allow_blank=True):
        plain = paragraph.plain
        offsets: list[int] = []
        column = 0
        for word in re.finditer(r"\S+\s*", plain):
            size = cell_len(word.group().rstrip())
            if column and column + size > width:
                offsets.append(word.start())
                column = 0
            column += cell_len(word.group())
        for piece in paragraph.divide(offsets):
            piece.rstrip()
            lines.append(piece)
    return lines


def say(*parts: Part, to: Console | None = None, indent: int = 0, wrap: bool = True) -> None:
    """Print one line from ``parts`` on the console (stderr): never parsed as markup, wrapped at spaces
    to the console's width (each line ``indent`` spaces in), never a word cut or folded (``word_wrap``).
    ``wrap=False`` leaves the line whole, for the terminal to wrap (a line a script greps for)."""
    target = to or console
    if not wrap:
        target.print(Text(" " * indent) + line(*parts), soft_wrap=True)
        return
    for piece in word_wrap(line(*parts), max(target.width - indent, 20)):
        target.print(Text(" " * indent) + piece if indent and piece.plain else piece, soft_wrap=True)


def problem(label: str, message: str, *, style: str = "bold red", to: Console | None = None) -> None:
    """``label: message`` with the label styled, e.g. ``problem("configuration error", str(error))``."""
    say((label, style), ": ", message, to=to)


class _AtWidth:
    """A renderable drawn at a fixed width, even one wider than the console (printed with soft wrap,
    so the lines are not cropped to the terminal: the terminal wraps them)."""

    def __init__(self, renderable: RenderableType, width: int) -> None:
        self.renderable = renderable
        self.width = width

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from console.render(self.renderable, options.update_width(self.width))


def _cell_range(console: Console, options: ConsoleOptions, cells: Iterable[RenderableType]) -> tuple[int, int]:
    """The widest cell's (minimum, maximum) width: minimum with words wrapped, maximum unwrapped."""
    low = high = 0
    for cell in cells:
        renderable = console.render_str(cell) if isinstance(cell, str) else cell
        measured = Measurement.get(console, options, renderable)
        low, high = max(low, measured.minimum), max(high, measured.maximum)
    return low, high


def table_width(table: Table, to: Console | None = None) -> int:
    """The narrowest width at which rich draws ``table`` without narrowing a ``no_wrap`` column below its
    widest cell: the table's minimum (every wrappable column at its longest word) plus, for each no-wrap
    column, what its widest cell needs beyond its longest word."""
    target = to or console
    options = target.options.update_width(1_000_000)
    width = Measurement.get(target, options, table).minimum
    for column in table.columns:
        if column.no_wrap:
            headers = [column.header] if table.show_header else []
            low, high = _cell_range(target, options, [*headers, *column.cells])
            width += high - low
    return width


def print_table(table: Table, to: Console | None = None) -> None:
    """Print ``table`` at the console's width, or wider when its no-wrap columns (names a user copies)
    would not fit: then the terminal wraps the long lines and no name is cut."""
    target = to or console
    width = max(target.width, table_width(table, target))
    if width > target.width:
        target.print(_AtWidth(table, width), soft_wrap=True)
    else:
        target.print(table)


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
