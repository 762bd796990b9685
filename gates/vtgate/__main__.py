"""``python -m vtgate`` and the ``vtgate`` program (its console script is :func:`run`)."""

from vtgate.cli.startup import note_signals


def run() -> None:
    note_signals("vtgate")
    from vtgate.cli.main import main

    main()


if __name__ == "__main__":
    run()
