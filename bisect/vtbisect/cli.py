"""The ``vtbisect`` app with its commands and ``main(argv)``; the console script enters through vtbisect.__main__ (signals noted from its first line)."""

from __future__ import annotations

from vtgate.cli.exits import run_app

# Each import below registers one command on `app`.
import vtbisect.commands.replay  # noqa: F401, E402
import vtbisect.commands.run  # noqa: F401, E402
from vtbisect.app import app


def main(argv: list[str] | None = None) -> None:
    run_app(app, argv, program="vtbisect")


if __name__ == "__main__":
    main()
