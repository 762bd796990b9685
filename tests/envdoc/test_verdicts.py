"""What envdoc says about what it found: stale rows whose name is still in the source, boolean and
computed defaults, per-read suppressions and path-scoped allowlist entries."""

from __future__ import annotations

import pytest
from vtgate.envdoc import EnvdocError


def test_stale_row_whose_name_is_still_a_literal_in_the_source_says_where_not_delete(project) -> None:
    project.write("app/a.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.write("app/reg.py", 'KNOBS = {\n    "threads": "VT_THREADS",\n}\n')
    project.doc(("VT_A", "(unset)"), ("VT_THREADS", "1"), ("VT_GONE", "0"))
    report = project.run()
    stale = {finding.name: finding for finding in report.of_kind("stale")}
    assert "delete the row" not in stale["VT_THREADS"].message
    assert "string literal at app/reg.py:2" in stale["VT_THREADS"].message
    assert "not in a read form envdoc recognises" in stale["VT_THREADS"].message
    assert "delete the row" in stale["VT_GONE"].message


@pytest.mark.parametrize(
    ("code_default", "doc_default", "mismatch"),
    [("False", "false", False), ("False", "0", False), ("true", "`True`", False), ("1", "yes", False),
     ("False", "true", True), ("0", "off", False), ("2", "true", True)],
)
def test_boolean_defaults_compare_case_insensitively(project, code_default, doc_default, mismatch) -> None:
    project.write("app/a.py", f'import os\nA = os.environ.get("VT_A", "{code_default}")\n')
    project.doc(("VT_A", doc_default))
    assert bool(project.run().of_kind("default_mismatch")) is mismatch


def test_undocumented_read_with_a_computed_default_shows_the_expression(project) -> None:
    project.write("app/a.py", 'import os\nA = os.environ.get("VT_THREADS", str(os.cpu_count()))\nB = os.environ.get("VT_B")\n')
    project.doc(("VT_B", "(unset)"))
    (finding,) = project.run().of_kind("undocumented")
    assert "| VT_THREADS | `str(os.cpu_count())` (computed) |" in finding.message
    assert "(unset)" not in finding.hint


def test_a_suppressed_read_is_not_checked_and_is_listed_with_its_reason(project) -> None:
    project.write(
        "app/a.py",
        "import os\n"
        'A = os.environ.get("VT_A")\n'
        'B = os.environ.get("VT_INTERNAL")  # vtgate: envdoc-ignore[set by our launcher, never by users]\n'
        "# vtgate: envdoc-ignore[test-only hook]\n"
        'C = os.environ.get("VT_TEST_HOOK")\n',
    )
    project.write("src/k.cc", 'auto v = getenv("VT_CC"); // vtgate: envdoc-ignore[CI only]\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run()
    assert report.ok, report.findings
    assert [(s["name"], s["line"], s["reason"]) for s in report.suppressed] == [
        ("VT_INTERNAL", 3, "set by our launcher, never by users"),
        ("VT_TEST_HOOK", 5, "test-only hook"),
        ("VT_CC", 1, "CI only"),
    ]


def test_a_suppression_without_a_reason_is_an_error(project) -> None:
    project.write("app/a.py", 'import os\nA = os.environ.get("VT_A")  # vtgate: envdoc-ignore\n')
    project.doc(("VT_A", "(unset)"))
    with pytest.raises(EnvdocError, match=r"suppression without a reason at app/a\.py:2"):
        project.run()
    project.write("app/a.py", 'import os\nA = os.environ.get("VT_A")  # vtgate: envdoc-ignore[ ]\n')
    with pytest.raises(EnvdocError, match="suppression without a reason"):
        project.run()


def test_allowlist_entry_scoped_by_path_glob(project) -> None:
    project.write("tests/conftest.py", 'import os\nA = os.environ.get("VT_TEST_SEED")\n')
    project.write("engine/run.py", 'import os\nB = os.environ.get("VT_TEST_SEED")\nC = os.environ.get("VT_C")\n')
    project.doc(("VT_C", "(unset)"))
    report = project.run(allowlist=[{"name": "VT_TEST_SEED", "reason": "pytest seed", "paths": ["tests/*"]}])
    assert [(f.kind, f.name, f.file) for f in report.findings] == [("undocumented", "VT_TEST_SEED", "engine/run.py")]


def test_a_marker_inside_a_string_literal_is_not_a_suppression(project) -> None:
    project.write("app/a.py", 'import os\nA = os.environ.get("VT_A")\nDOC = "# vtgate: envdoc-ignore"\n')
    project.write("src/k.cc", 'const char *s = "// vtgate: envdoc-ignore"; auto v = getenv("VT_A");\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run()
    assert report.ok, report.findings
    assert report.suppressed == []
