"""What the benchmark scripts share: running the installed ``vtgate`` with its CPU time measured, a
snapshot of HEAD to measure (so edits in the working tree cannot trip the stale guard), the host's
load average, and writing a measured section into a doc between markers.

The scripts run as ``.venv/bin/python benchmarks/bench_X.py``, so this folder is on ``sys.path``."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VTGATE = str(Path(sys.executable).parent / "vtgate")
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def load_average() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def timed_vtgate(*args: str) -> tuple[float, float, dict]:
    """Run ``vtgate ARGS --json FILE`` from the repo: (wall seconds, CPU seconds of vtgate and every
    probe process it started, the JSON report)."""
    with tempfile.TemporaryDirectory(prefix="bench-vtgate-") as tmp:
        out = Path(tmp) / "report.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([VTGATE, *args, "--json", str(out)], cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not out.exists():
            raise SystemExit(f"vtgate {args[0]} wrote no report (exit {done.returncode}):\n{done.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, json.loads(out.read_text())


def snapshot_head(destination: Path, *paths: str) -> Path:
    """``paths`` (default: the whole tree) as committed at HEAD, extracted into ``destination``."""
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD", *paths], cwd=REPO, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    return destination


def write_section(doc: Path, text: str, start: str = START, end: str = END) -> None:
    """Replace what stands between ``start`` and ``end`` in ``doc`` with ``text``."""
    content = doc.read_text(encoding="utf-8")
    if start not in content or end not in content:
        raise SystemExit(f"{doc} has no {start} ... {end} markers")
    before, rest = content.split(start, 1)
    _, after = rest.split(end, 1)
    doc.write_text(f"{before}{start}\n{text}\n{end}{after}", encoding="utf-8")
