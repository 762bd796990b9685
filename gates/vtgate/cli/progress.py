"""Live progress on a terminal, driven by the probe layer's one progress callback: a transient
rich progress bar (runs done / total, what is being measured now) on stderr, erased when the
command ends. Nothing at all in a CI log (``CI`` set), when stderr is not a terminal, or when stdout
carries ``--json -`` (a machine reads this run)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from vtgate.run.execute import Progress as ProgressCallback
from vtgate.run.execute import ProgressUpdate


def in_ci() -> bool:
    """CI services set ``CI`` (``true``, ``1``); ``false``/``0``/empty mean not CI."""
    return (os.environ.get("CI") or "").strip().lower() not in ("", "0", "false", "no")


def progress_wanted(*, json_to_stdout: bool = False, quiet: bool = False) -> bool:
    return not (quiet or json_to_stdout or in_ci()) and sys.stderr.isatty()


@contextmanager
def live_progress(console: Console, enabled: bool, what: str = "probe runs done") -> Iterator[ProgressCallback | None]:
    """Yields the callback to hand to the probe layer (None when progress is not wanted)."""
    if not enabled:
        yield None
        return
    columns = (TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[current]}", markup=False))
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(what, total=None, current="")

        def show(update: ProgressUpdate) -> None:
            bar.update(task, completed=update.done, total=max(update.total, 1), current=update.current)

        yield show
