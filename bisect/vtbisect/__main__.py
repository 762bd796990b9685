"""``python -m vtbisect`` and the ``vtbisect`` program (its console script is :func:`run`)."""

from vtgate.cli.startup import note_signals


def run() -> None:
    note_signals("vtbisect")
    from vtbisect.cli import main

    main()


if __name__ == "__main__":
    run()
