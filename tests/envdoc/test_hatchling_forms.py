"""A tree not designed for (issue 24): excerpts of hatchling (pypa/hatch @ ed8e30b, backend/, MIT)
under tests/envdoc/realworld/issue24/hatchling_tree/. Its names are class attributes of a constants class in
another module (``BuildEnvVars.LOCATION``), passed to a helper defined in a third module
(``env_var_enabled(env_var)`` reads ``env_var in os.environ``), built in an f-string with a loop
variable (a family), and imported inside a function; its own env page is a Markdown table."""

from __future__ import annotations

import shutil
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, EnvdocReport, run_envdoc

HERE = Path(__file__).parent / "realworld" / "issue24" / "hatchling_tree"


def _reads(root: Path, doc: str | None = None) -> EnvdocReport:
    if doc is None:
        (root / "ENV.md").write_text("| name | effect |\n|---|---|\n| ZZ_NONE | none |\n")
        doc = "ENV.md"
    return run_envdoc(root, EnvdocConfig.load(root, {"sources": ["src"], "doc": doc, "prefix": ""}))


def _found(report: EnvdocReport) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for read in report.reads:
        found.setdefault(read.name or f"{read.prefix}*{read.suffix}", set()).add(f"{read.file}:{read.line}")
    return found


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(HERE, tmp_path / "t")
    return tmp_path / "t"


def test_class_attribute_constants_of_another_module_through_a_helper_of_a_third(tmp_path: Path) -> None:
    found = _found(_reads(_copy(tmp_path)))
    config = "src/hatchling/builders/config.py"
    plugin = "src/hatchling/builders/plugin/interface.py"
    assert {name: where for name, where in found.items() if name != "*"} == {
        "HATCH_BUILD_NO_HOOKS": {f"{config}:13"},          # same-module helper, imported class constant
        "HATCH_BUILD_HOOKS_ENABLE": {f"{config}:14"},
        "HATCH_BUILD_HOOK_ENABLE_*": {f"{config}:21"},     # f"{PREFIX}{hook_name.upper()}": a family
        "HATCH_BUILD_LOCATION": {f"{plugin}:25", f"{plugin}:26"},  # os.environ[Cls.NAME] / Cls.NAME in os.environ
        "HATCH_BUILD_HOOKS_ONLY": {f"{plugin}:36"},        # the helper imported from builders/config.py
        "HATCH_BUILD_CLEAN": {f"{plugin}:44"},
        "HATCH_BUILD_CLEAN_HOOKS_AFTER": {f"{plugin}:56"},
        # `from hatchling.utils.constants import VersionEnvVars` inside the method
        "HATCH_VERSION_VALIDATE_BUMP": {
            "src/hatchling/version/scheme/plugin/interface.py:12", "src/hatchling/version/scheme/plugin/interface.py:13"
        },
    }


def test_the_helper_called_with_a_non_literal_or_a_missing_attribute_reads_no_name(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "src/hatchling/near.py").write_text(
        "from hatchling.builders.config import env_var_enabled\n"
        "from hatchling.builders.constants import BuildEnvVars\n"
        "class BuildEnvVarsLocal:\n"
        "    LOCATION = 'NOT_READ_LOCAL'\n"
        "def f(name: str) -> None:\n"
        "    env_var_enabled(name)\n"                      # 6: a parameter
        "    env_var_enabled(BuildEnvVars.NO_SUCH)\n"      # 7: not an attribute of the class
        "    enabled = BuildEnvVarsLocal.LOCATION\n"        # 8: not passed to any read
        "    other.env_var_enabled('NOT_READ_MEMBER')\n"  # 9: another object's method
    )
    found = _found(_reads(root))
    assert not [where for wheres in found.values() for where in wheres if where.startswith("src/hatchling/near.py")]
    assert "NOT_READ_LOCAL" not in found and "NOT_READ_MEMBER" not in found


def test_the_projects_own_env_table_is_parsed_and_no_row_is_stale(tmp_path: Path) -> None:
    report = _reads(_copy(tmp_path), doc="docs/build.md")
    assert len(report.rows) == 7 and not report.doc_warnings
    assert [finding.name for finding in report.findings if finding.kind == "stale"] == []
