"""Large files are parsed with their unrelated top-level blocks blanked out (for speed); the reads
found, their lines and the syntax errors reported must be exactly those of parsing the whole file."""

from __future__ import annotations

import textwrap

import pytest
from vtgate.envdoc.pyscan import blank_unrelated_blocks, scan_python_text

WORDS = ("environ", "getenv")

TRICKY = textwrap.dedent('''
    """Module docstring with code-looking lines at column 0:
    def not_a_function():
        os.environ.get("VT_IN_DOCSTRING")
    """
    import os
    from os import environ as ENV
    env = os.environ
    PREFIX = "VT_"


    def unrelated(a, b):
        """A docstring."""
        return a + b


    @decorator(
        option=1,
    )
    def decorated_unrelated():
        return 1


    def uses_alias_only():
        return ENV.get("VT_VIA_IMPORT_ALIAS")


    def uses_assigned_alias():
        return env.get(PREFIX + "ASSIGNED_ALIAS", "0")


    class Config:
        mode = "x"

        def value(self):
            return os.getenv("VT_IN_METHOD")


    def string_spanning_blocks():
        text = """
    def inside_string():
        pass
    """
        return text


    @decorator
    def decorated_reader():
        return os.environ["VT_DECORATED"]


    def multiline_signature(
        a,
    ):
        return os.environ.get(
            "VT_MULTILINE",
        )
    TOP = os.environ.get("VT_TOP_LEVEL", "1")
    ''')


def reads(text: str, blank_min_lines: int) -> list[tuple[str | None, int, str | None]]:
    result = scan_python_text(text, "pkg/mod.py", blank_min_lines=blank_min_lines)
    assert result.error is None, result.error
    return [(read.name, read.line, read.default) for read in result.reads]


def test_blanking_finds_the_same_reads_at_the_same_lines_as_a_full_parse() -> None:
    assert blank_unrelated_blocks(TRICKY, WORDS, min_lines=0) is not None, "nothing was blanked"
    whole = reads(TRICKY, blank_min_lines=10**9)
    assert whole == reads(TRICKY, blank_min_lines=0)
    assert [name for name, _, _ in whole] == [
        "VT_VIA_IMPORT_ALIAS",
        "VT_ASSIGNED_ALIAS",
        "VT_IN_METHOD",
        "VT_DECORATED",
        "VT_MULTILINE",
        "VT_TOP_LEVEL",
    ]


def test_only_blocks_without_words_are_blanked_and_line_count_is_kept() -> None:
    reduced = blank_unrelated_blocks(TRICKY, WORDS, min_lines=0)
    assert reduced is not None
    assert reduced.count("\n") == TRICKY.count("\n")
    assert (
        "def unrelated" not in reduced
        and "def decorated_unrelated" not in reduced
        and "option=1" not in reduced
    )
    for kept in (
        "def uses_alias_only",
        "def uses_assigned_alias",
        "class Config",
        "@decorator\ndef decorated_reader",
    ):
        assert kept in reduced


def test_a_string_that_crosses_a_block_edge_keeps_the_block() -> None:
    reduced = blank_unrelated_blocks(TRICKY, WORDS, min_lines=0) or ""
    assert 'text = """' in reduced  # odd number of triple quotes up to the column-0 line inside the string


@pytest.mark.parametrize(
    "body",
    [
        # a column-0 continuation inside brackets cuts the block early: the rest does not parse alone
        "def f():\n    x = [\n1, 2]\n    return x\n",
        # a backslash-continued string
        'def g():\n    s = "abc\\\ncol0"\n    return s\n',
    ],
)
def test_misjudged_block_edges_fall_back_to_the_whole_file(body: str) -> None:
    text = body + 'import os\nA = os.environ.get("VT_AFTER")\n'
    assert (
        reads(text, blank_min_lines=0)
        == reads(text, blank_min_lines=10**9)
        == [("VT_AFTER", len(text.splitlines()), None)]
    )


def test_a_syntax_error_in_a_kept_block_is_reported_with_its_line() -> None:
    text = "def unrelated():\n    return 1\n\n\ndef broken(:\n    return os.environ.get('VT_X')\n"
    result = scan_python_text(text, "pkg/broken.py", blank_min_lines=0)
    assert result.error is not None and result.error_line == 5


def test_small_files_are_parsed_whole() -> None:
    assert blank_unrelated_blocks("def f():\n    return 1\n", WORDS) is None
