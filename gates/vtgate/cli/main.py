"""The ``vtgate`` app with its commands and ``main(argv)``; the console script enters through vtgate.__main__ (signals noted from its first line)."""

from __future__ import annotations

from vtgate.cli.app import app

# Each import below registers one command on `app`; adding a command adds one line here.
from vtgate.cli.commands import bless, check, listing  # noqa: F401,E402  (vtgate check / bless / list)
from vtgate.cli.commands import envdoc as _envdoc  # noqa: F401,E402  (vtgate envdoc)
from vtgate.cli.commands import htmlreport as _htmlreport  # noqa: F401,E402  (vtgate report)
from vtgate.cli.commands import init as _init  # noqa: F401,E402  (vtgate init)
from vtgate.cli.commands import knobs as _knobs  # noqa: F401,E402  (vtgate knobs)
from vtgate.cli.commands import mutate as _mutate  # noqa: F401,E402  (vtgate mutate)
from vtgate.cli.exits import run_app


def main(argv: list[str] | None = None) -> None:
    run_app(app, argv)


if __name__ == "__main__":
    main()
