"""``--history DIR``: one JSON file per run (``<UTC time>-<commit>.json``: the run's reports with the
commit they were made at and when), so a nightly job that adds its run each night builds a trend site.
Entries are read back oldest first; each is validated against docs/schemas/report-history.schema.json."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vtgate.htmlsite.inputs import ReportInputError, Reports, Validator, read_json

SCHEMA = 1


@dataclass
class Run:
    """One run: its reports, the commit they were made at (or None) and its UTC time."""

    reports: Reports
    commit: str | None
    time: str
    source: str = ""

    @property
    def label(self) -> str:
        return f"{self.commit[:10] if self.commit else 'no commit'} · {self.time[:16].replace('T', ' ')}"


def head_commit(root: Path) -> str | None:
    """The commit checked out at ``root``, or None outside a git repository (or without git)."""
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", "HEAD"], capture_output=True,
                              text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and len(sha) >= 40 else None


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat()  # microseconds: runs of one second keep their order


def entry_record(run: Run) -> dict[str, Any]:
    return {"schema": SCHEMA, "kind": "history-run", "commit": run.commit, "time": run.time,
            "reports": run.reports.as_mapping()}


def add_run(history: Path, run: Run) -> Path:
    """Write ``run`` into ``history`` (created if missing), atomically; returns the file."""
    history.mkdir(parents=True, exist_ok=True)
    stamp = datetime.fromisoformat(run.time).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"{stamp}-{run.commit[:12] if run.commit else 'nocommit'}.json"
    target = history / name
    handle, temporary = tempfile.mkstemp(dir=history, prefix=".entry-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(entry_record(run), out, indent=1, sort_keys=True)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def read_history(history: Path, validator: Validator) -> list[Run]:
    """Every entry in ``history``, oldest first (by time, then commit)."""
    if not history.exists():
        return []
    if not history.is_dir():
        raise ReportInputError(f"--history {history} is not a folder; fix: name a folder (it is created "
                               "when missing)")
    runs = []
    for path in sorted(history.glob("*.json")):
        data = read_json(path)
        validator.validate("history", data, str(path))
        reports = data["reports"]
        for slot, kind in (("mutate", "mutate"), ("code", "mutate-code"), ("envdoc", "envdoc")):
            if slot in reports:
                validator.validate(kind, reports[slot], f"{path} (reports.{slot})")
        for index, check in enumerate(reports.get("checks", [])):
            validator.validate("check", check, f"{path} (reports.checks[{index}])")
        for index, bisect in enumerate(reports.get("bisects", [])):
            validator.validate("bisect", bisect, f"{path} (reports.bisects[{index}])")
        runs.append(Run(Reports.from_mapping(data["reports"]), data["commit"], data["time"], str(path)))
    runs.sort(key=lambda r: (r.time, r.commit or ""))
    return runs
