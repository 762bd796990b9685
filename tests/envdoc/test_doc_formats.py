"""Doc page formats of real projects (issue 24), on excerpts under tests/envdoc/realworld/issue24/docs/
(first line: repository, path, lines, commit, license): Sphinx ``.. envvar::``, RST bold bullets, clap
``--help`` dumps, ``**Environment Variable**: `NAME``` lines, MDX prose with code spans; include
directives followed; names read from prose marked so and never called stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vtgate.envdoc import EnvdocConfig, run_envdoc
from vtgate.envdoc.doctable import parse_docs

HERE = Path(__file__).parent / "realworld" / "issue24"
MANIFEST = json.loads((HERE / "MANIFEST.json").read_text())
# names each page gives as entries (the rest of MANIFEST's "documented" names come from prose)
FROM_PROSE = {
    "docs/ollama_faq_prose_code_spans.mdx": {"OLLAMA_CONTEXT_LENGTH", "OLLAMA_FLASH_ATTENTION"},
    "docs/poetry_configuration_env_lines.md": {"POETRY_VIRTUALENVS_CREATE", "POETRY_VIRTUALENVS_PATH"},
}


@pytest.mark.parametrize("key", sorted(key for key in MANIFEST if key.startswith("docs/")))
def test_every_documented_name_of_the_page_is_read_and_prose_is_marked(key: str) -> None:
    docset = parse_docs([(HERE / key, key)])
    assert docset.warnings == []
    entries = {row.name for row in docset.rows if row.origin != "prose"}
    prose = {row.name for row in docset.rows if row.origin == "prose"}
    expected = set(MANIFEST[key]["documented"])
    assert sorted(expected - entries) == sorted(FROM_PROSE.get(key, set()))
    assert expected <= entries | prose
    assert not entries - expected, "an entry the page does not have"


def test_sphinx_envvar_defaults_rst_underlines_and_definition_lists(tmp_path: Path) -> None:
    page = tmp_path / "envvars.rst"
    page.write_text(
        "Build\n~~~~~\n\n.. envvar:: APP_JOBS\n\n   :Type: ``int``\n   :Default: ``4``\n\n"
        ".. envvar:: APP_SM\n\n   :Default: Total SM count\n\n.. envvar:: APP_P2P\n\n   :Default: ``0`` (or auto-enabled on old GPUs)\n\n"
        "Runtime\n~~~~~~~\n\n* **APP_MODE**: how to run (default ``fast``)\n* **Note**: not a name\n\n"
        "APP_TRACE\n    Trace every call.\n\nSee :envvar:`APP_JOBS`.\n"
    )
    rows = {row.name: row for row in parse_docs([(page, "envvars.rst")]).rows}
    assert sorted(rows) == ["APP_JOBS", "APP_MODE", "APP_P2P", "APP_SM", "APP_TRACE"]
    assert (rows["APP_SM"].compare_default, rows["APP_P2P"].default) == (False, "0")
    assert (rows["APP_JOBS"].default, rows["APP_JOBS"].compare_default, rows["APP_JOBS"].line) == ("4", True, 4)
    assert rows["APP_MODE"].default == "fast"
    assert rows["APP_TRACE"].origin == ""


def test_an_include_directive_is_followed_and_a_missing_one_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.rst").write_text("Knobs\n=====\n\n.. include:: envvars.rst\n.. include:: gone.rst\n")
    (tmp_path / "docs" / "envvars.rst").write_text(".. envvar:: APP_JOBS\n\n   Jobs.\n")
    docset = parse_docs([(tmp_path / "docs" / "index.rst", "docs/index.rst")])
    assert [(row.name, row.file, row.line) for row in docset.rows] == [("APP_JOBS", "docs/envvars.rst", 1)]
    assert docset.warnings == ["docs/index.rst:5: includes gone.rst, which does not exist; not read"]


def test_a_name_from_prose_documents_a_read_and_is_never_stale(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('import os\nos.environ.get("APP_HOST")\n')
    (tmp_path / "FAQ.md").write_text(
        "# FAQ\n\nSet `APP_HOST` to bind elsewhere. Tools like `OTHER_TOOL_KEY` are set by you.\n\n"
        "```shell\nAPP_IN_A_BLOCK=1 app\n```\n"
    )
    report = run_envdoc(tmp_path, EnvdocConfig.load(tmp_path, {"doc": "FAQ.md", "prefix": "APP_"}))
    assert report.findings == []
    assert report.to_json()["from_prose"] == [{"name": "APP_HOST", "doc": "FAQ.md", "doc_line": 3}]
    assert "read from prose" in report.doc_warnings[0]


def test_the_same_name_in_two_help_dumps_is_one_entry_without_a_warning(tmp_path: Path) -> None:
    (tmp_path / "launcher.md").write_text("## MODEL_ID\n```shell\n  --model-id <ID>\n      [env: MODEL_ID=]\n      [default: gpt2]\n```\n")
    (tmp_path / "architecture.md").write_text("```\n  --model-id <ID>\n      [env: MODEL_ID=]\n  --port <PORT>\n      [env: PORT=]\n```\n")
    docset = parse_docs([(tmp_path / "launcher.md", "launcher.md"), (tmp_path / "architecture.md", "architecture.md")])
    assert [(row.name, row.file, row.line, row.default) for row in docset.rows] == [
        ("MODEL_ID", "launcher.md", 4, "gpt2"),
        ("PORT", "architecture.md", 5, ""),
    ]
    assert docset.warnings == []
