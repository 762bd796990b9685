"""The executor's command-line options (``--executor``, ``--scheduler``, ``--resources``,
``--fallback``), declared
once for every command that can run on a Dask cluster: ``vtgate check``, ``vtgate mutate --code``
and ``vtbisect run`` (docs/distributed.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from vtgate.run.executor import ExecutorSettings, environment_settings, project_table, resolve_settings

EXECUTOR_OPTION = typer.Option(None, "--executor", help="local (default: this machine) or dask "
                               "(docs/distributed.md); default $VT_EXECUTOR, else [tool.vtgate.executor].")
SCHEDULER_OPTION = typer.Option(None, "--scheduler", metavar="tcp://HOST:PORT",
                                help="Dask scheduler (implies --executor dask; default $VT_DASK_SCHEDULER); "
                                     "none: a LocalCluster of -j worker processes.")
RESOURCES_OPTION = typer.Option([], "--resources", metavar="NAME=N",
                                help="Dask worker resources every task needs, e.g. GPU=1 (repeatable); a gate's "
                                     "own resources = {...} are laid over these.")
FALLBACK_OPTION = typer.Option(None, "--fallback", metavar="none|local",
                               help="When the Dask scheduler is lost mid-run: none (default: the run ends, exit 3) "
                                    "or local (the rest runs on this machine); default $VT_DASK_FALLBACK, else "
                                    "[tool.vtgate.executor] fallback.")
OPTION_NAMES = ("--executor", "--scheduler", "--resources", "--fallback")  # where things ran, not what they judged


def executor_settings(executor: str | None, scheduler: str | None, resources: Sequence[str] | None,
                      project: Path, fallback: str | None = None) -> ExecutorSettings:
    """The options, then the environment, then ``project``'s ``[tool.vtgate.executor]`` table."""
    return resolve_settings(executor, scheduler, list(resources or []), environment_settings(), project_table(project),
                            fallback=fallback)
