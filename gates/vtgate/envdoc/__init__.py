"""vtgate envdoc: every environment variable the source reads has a row in docs/ENVIRONMENT.md, and
every row names a variable that is still read. Python is scanned by parsing (ast), C/C++/CUDA by a
small lexer; the doc table is compared both ways, with literal defaults checked against the doc.

    from vtgate.envdoc import EnvdocConfig, run_envdoc
    report = run_envdoc(root, EnvdocConfig.load(root))
    report.ok, report.summary, report.findings, report.to_json()

The `vtgate envdoc` command and the `envdoc` gate kind are thin wrappers over ``run_envdoc``."""

from __future__ import annotations

import time
from pathlib import Path

from vtgate.envdoc.config import AllowEntry, EnvdocConfig
from vtgate.envdoc.doctable import DocRow, parse_doc
from vtgate.envdoc.model import EnvdocError, EnvRead, WrapperSpec
from vtgate.envdoc.report import EnvdocReport, Finding, compare
from vtgate.envdoc.scan import discover, display_path, resolve_wrapper_calls, scan_all

__all__ = [
    "AllowEntry",
    "DocRow",
    "EnvRead",
    "EnvdocConfig",
    "EnvdocError",
    "EnvdocReport",
    "Finding",
    "WrapperSpec",
    "run_envdoc",
]


def run_envdoc(root: Path, config: EnvdocConfig) -> EnvdocReport:
    """Scan ``config.sources`` under ``root`` and check them against ``root / config.doc``.

    Raises EnvdocError (a configuration problem: missing doc, malformed or duplicate row, missing
    source folder) before scanning anything; everything else is a Finding in the report."""
    started = time.perf_counter()
    root = Path(root)
    doc_path = Path(config.doc) if Path(config.doc).is_absolute() else root / config.doc
    doc_display = display_path(doc_path, root)
    rows = parse_doc(doc_path, doc_display)
    files = discover(root, config.sources, config.include, config.exclude)
    scans = scan_all(files, config.wrappers, config.jobs)
    reads = [read for scan in scans for read in scan.reads]
    reads.extend(resolve_wrapper_calls(scans, config.wrappers))
    reads.sort(key=lambda read: (read.file, read.line))
    report = compare(scans, reads, rows, config, doc_display)
    report.seconds = time.perf_counter() - started
    return report
