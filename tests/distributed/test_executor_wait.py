"""DaskExecutor.wait on a real LocalCluster: every result comes back, however its task's end falls
against the wait's polling. Polling ``future.result(timeout=...)`` lost a race in Dask's ``sync()``
(dask/distributed#8514): a timeout that fired as the task finished escaped as an UnboundLocalError,
which a CI run showed as vtbisect's "internal error". With the polling interval shrunk to a few
milliseconds the old loop failed on most waits; the wait now reads ``done()`` locally and fetches
the result only once the task is done."""

from __future__ import annotations

import random
import time

import pytest

pytest.importorskip("distributed")

from vtgate.run import executor as executor_module  # noqa: E402
from vtgate.run.executor import DaskExecutor, ExecutorSettings  # noqa: E402

pytestmark = pytest.mark.slow


def nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_every_wait_returns_its_result_when_tasks_end_between_polls(monkeypatch):
    monkeypatch.setattr(executor_module, "POLL_SECONDS", 0.003)
    monkeypatch.setattr(executor_module, "DONE_POLL_SECONDS", 0.003)
    executor = DaskExecutor(ExecutorSettings(kind="dask"), workers=1)
    try:
        draws = random.Random(8514)
        naps = [round(draws.uniform(0.0, 0.02), 4) for _ in range(150)]
        got = [executor.wait(nap, seconds) for seconds in naps]
    finally:
        executor.close()
    assert got == naps
    assert executor.finished == len(naps)
