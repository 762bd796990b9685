"""Every TOML block in the docs is a valid suite: the field notes stay expressible and the examples
stay true as the format evolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from vtgate.suite.load import load_suite

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```toml\n(.*?)```", re.S)


def _blocks() -> list[tuple[str, str]]:
    found = []
    for name in ("suite-format.md", "check.md"):
        for index, text in enumerate(BLOCK.findall((DOCS / name).read_text())):
            found.append((f"{name}#{index}", text))
    return found


@pytest.mark.parametrize(("where", "text"), _blocks(), ids=[w for w, _ in _blocks()])
def test_toml_block_in_the_docs_is_a_valid_suite(where: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "vtgate.toml"
    path.write_text(text)
    suite = load_suite(path)
    assert suite.gates


def test_field_notes_block_covers_every_kind_and_the_marks() -> None:
    _, text = next(b for b in _blocks() if "field notes" in b[1] or "glm-strict-vs-reference" in b[1])
    assert {"golden", "anchor", "band", "bitident", "invariance", "counters", "envdoc"} <= set(
        re.findall(r'kind\s*=\s*"(\w+)"', text))
    assert "deliberate_red" in text and "env_reason" in text and 'mode  = "floor"' in text
