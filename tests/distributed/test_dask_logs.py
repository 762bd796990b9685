"""Dask's client logs a closed connection with its whole traceback (``distributed.batched`` logs
``Batched Comm Closed`` at INFO with ``exc_info``); a CI run showed it in the middle of vtbisect's
own "the Dask cluster ... was lost mid-run" message. Once vtgate imports ``distributed``, each such
record is one line: the message and the exception, no stack. Run in a fresh interpreter, so the
handler is the one Dask's own logging configuration installs on import."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("distributed")

LOG_A_CLOSED_COMM = """
import logging
from vtgate.run.executor import _import_distributed
_import_distributed()
from distributed.comm.core import CommClosedError
try:
    raise CommClosedError("in <TCP (closed) Client->Scheduler local=tcp://127.0.0.1:1>")
except CommClosedError:
    logging.getLogger("distributed.batched").info("Batched Comm Closed %r", "comm-7", exc_info=True)
logging.getLogger("distributed.client").error("Failed to reconnect to scheduler after %.2f seconds", 3.0)
logging.getLogger("distributed.batched").info("a plain record")
"""


def test_a_dask_record_with_a_traceback_is_one_line_naming_its_exception():
    done = subprocess.run([sys.executable, "-c", LOG_A_CLOSED_COMM], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "Traceback" not in done.stderr
    closed = [line for line in lines if "Batched Comm Closed" in line]
    assert len(closed) == 1, done.stderr
    assert closed[0].endswith("Batched Comm Closed 'comm-7' (CommClosedError: in <TCP (closed) "
                              "Client->Scheduler local=tcp://127.0.0.1:1>)")
    assert any(line.endswith("Failed to reconnect to scheduler after 3.00 seconds") for line in lines)
    assert any(line.endswith("a plain record") for line in lines)


def test_without_vtgate_dasks_own_record_carries_the_traceback():
    """The control: the same record, logged with Dask's configuration alone, prints the stack (so the
    test above would fail if the filter were not installed)."""
    plain = LOG_A_CLOSED_COMM.replace("from vtgate.run.executor import _import_distributed\n_import_distributed()\n",
                                      "import distributed\n")
    done = subprocess.run([sys.executable, "-c", plain], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback (most recent call last)" in done.stderr
