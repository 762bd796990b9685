"""The probe layer: how gates' probes are planned, run and judged. ``check`` plans a check's runs and
judges them (and is the check as an in-process API, ``run_check``); ``execute`` runs each distinct
probe run once (``SharedRuns``, ``run_one``) and guards the tree; ``child`` is the probe process's
entry point (``python -m vtgate.run.child``); ``forkserver`` and ``workers`` are the fork servers and
persistent workers that answer runs faster; ``executor`` chooses where runs happen (local pool or
Dask) and ``remote`` runs them on Dask; ``proctree`` starts every child in its own session and is
the one process-tree killer."""
