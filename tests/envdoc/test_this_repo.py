"""envdoc on a copy of this repository's engine and docs/ENVIRONMENT.md: adding an engine knob read
without a row turns it red, naming the knob and its file:line."""

from __future__ import annotations

import shutil
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc

REPO = Path(__file__).resolve().parents[2]
NEW_READ = 'VT_BRAND_NEW_VALUE = os.environ.get("VT_BRAND_NEW", "1")\n'


def copy_engine_and_doc(destination: Path) -> None:
    shutil.copytree(REPO / "engine", destination / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (destination / "docs").mkdir()
    shutil.copy2(REPO / "docs" / "ENVIRONMENT.md", destination / "docs" / "ENVIRONMENT.md")


def add_knob_read(engine: Path) -> tuple[str, int]:
    """Append the new read to the engine's knobs module (or a new engine module); return file, line."""
    knobs = engine / "vtengine" / "knobs.py"
    if not knobs.is_file():
        knobs = engine / "vtengine" / "brand_new_knob.py"
        knobs.parent.mkdir(parents=True, exist_ok=True)
        knobs.write_text('"""A new knob."""\n\nimport os\n', encoding="utf-8")
    text = knobs.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    text += "\nimport os  # noqa: E402\n" + NEW_READ
    knobs.write_text(text, encoding="utf-8")
    return knobs.relative_to(engine.parent).as_posix(), text.count("\n")


def test_a_new_engine_knob_read_without_a_row_turns_envdoc_red(tmp_path: Path) -> None:
    copy_engine_and_doc(tmp_path)
    config = EnvdocConfig.load(REPO, {"sources": ["engine"], "doc": "docs/ENVIRONMENT.md"})
    before = run_envdoc(tmp_path, config)
    assert not any(f.name == "VT_BRAND_NEW" for f in before.findings)

    file, line = add_knob_read(tmp_path / "engine")
    after = run_envdoc(tmp_path, config)

    assert not after.ok
    new = [f for f in after.findings if f.name == "VT_BRAND_NEW"]
    assert [(f.kind, f.file, f.line) for f in new] == [("undocumented", file, line)]
    assert f"{file}:{line}" == new[0].where
    assert {"name": "VT_BRAND_NEW", "file": file, "line": line} in after.to_json()["undocumented"]
    # everything else is exactly as before: one new read, one new finding
    assert len(after.reads) == len(before.reads) + 1
    assert len(after.findings) == len(before.findings) + 1



def test_this_repository_documents_every_knob_it_reads() -> None:
    """The gate issue 4 asks for: green on this repo, with its own configuration."""
    report = run_envdoc(REPO, EnvdocConfig.load(REPO))
    assert report.ok, "\n".join(f"{f.kind} {f.name} at {f.where}: {f.message}" for f in report.findings)
    assert report.to_json()["reads"] >= 1, "the engine's knob reads were not found"
