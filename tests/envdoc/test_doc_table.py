"""The ENVIRONMENT.md table: rows, families, defaults as values, and the errors a broken doc gives."""

from __future__ import annotations

import pytest
from vtgate.envdoc import EnvdocError
from vtgate.envdoc.doctable import parse_doc


def test_rows_with_backticks_families_and_escaped_pipes(project) -> None:
    path = project.doc(
        ("`VT_A`", "`1`"),
        ("VT_FAMILY_*", "(unset)"),
        "| VT_PIPE | `a\\|b` | splits on \\| | no |",
    )
    rows = parse_doc(path, "docs/ENVIRONMENT.md")
    assert [(row.name, row.default_value, row.is_pattern, row.line) for row in rows] == [
        ("VT_A", "1", False, 5),
        ("VT_FAMILY_*", None, True, 6),
        ("VT_PIPE", "a|b", False, 7),
    ]


def test_quoted_and_unset_defaults_are_normalised(project) -> None:
    rows = parse_doc(project.doc(("VT_Q", '`"1"`'), ("VT_U", "unset"), ("VT_E", "—")))
    assert [row.default_value for row in rows] == ["1", None, None]


def test_malformed_row_is_an_error_naming_file_line_and_fix(project) -> None:
    path = project.doc(("VT_OK", "1"), "| VT_SHORT | 1 | effect |")
    with pytest.raises(EnvdocError, match=r"docs/ENVIRONMENT\.md:6: malformed knob row \(has 3 cells, needs 4"):
        parse_doc(path, "docs/ENVIRONMENT.md")


def test_a_name_that_is_not_an_env_var_name_is_an_error(project) -> None:
    path = project.doc(("VT BAD NAME", "1"))
    with pytest.raises(EnvdocError, match=r":5: 'VT BAD NAME' is not an env var name"):
        parse_doc(path, "docs/ENVIRONMENT.md")


def test_duplicate_rows_are_an_error_naming_both_lines(project) -> None:
    path = project.doc(("VT_TWICE", "1"), ("VT_OTHER", "0"), ("VT_TWICE", "2"))
    with pytest.raises(EnvdocError, match=r"ENVIRONMENT\.md:7: duplicate row for VT_TWICE \(first at line 5\)"):
        parse_doc(path, "docs/ENVIRONMENT.md")


def test_missing_doc_is_an_error_naming_the_path_and_the_fix(project) -> None:
    with pytest.raises(EnvdocError, match=r"docs/ENVIRONMENT\.md does not exist: create it with a table") as caught:
        parse_doc(project.root / "docs" / "ENVIRONMENT.md", "docs/ENVIRONMENT.md")
    assert "--doc FILE" in str(caught.value)


def test_doc_without_a_knob_table_is_an_error(project) -> None:
    path = project.write("docs/ENVIRONMENT.md", "# Knobs\n\n| a | b |\n|---|---|\n| x | y |\n")
    with pytest.raises(EnvdocError, match="has no knob table"):
        parse_doc(path, "docs/ENVIRONMENT.md")


def test_an_empty_table_has_no_rows(project) -> None:
    assert parse_doc(project.doc()) == []


def test_prose_around_the_table_and_other_tables_are_ignored(project) -> None:
    text = (
        "# Knobs\n\nSome prose | with a pipe.\n\n| other | table |\n|---|---|\n| x | y |\n\n"
        "| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n| VT_ONLY | 0 | e | yes |\n\nMore prose.\n"
    )
    rows = parse_doc(project.write("docs/ENVIRONMENT.md", text))
    assert [(row.name, row.line) for row in rows] == [("VT_ONLY", 11)]
