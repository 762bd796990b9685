"""Entry point of the ``vtgate`` console script."""

from __future__ import annotations

from vtgate.app import app
from vtgate.clirun import run_app

# Each import below registers one command on `app`; adding a command adds one line here.
from vtgate.commands import bless, check, listing  # noqa: F401,E402  (vtgate check / bless / list)
from vtgate.commands import envdoc as _envdoc  # noqa: F401,E402  (vtgate envdoc)
from vtgate.commands import init as _init  # noqa: F401,E402  (vtgate init)
from vtgate.commands import knobs as _knobs  # noqa: F401,E402  (vtgate knobs)
from vtgate.commands import mutate as _mutate  # noqa: F401,E402  (vtgate mutate)


def main(argv: list[str] | None = None) -> None:
    run_app(app, argv)


if __name__ == "__main__":
    main()
