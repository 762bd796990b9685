"""docs/own-engine.md stays true: its TOML blocks load (gates as a suite, the arms table as
vtgate mutate reads it), and the observation fields it lists are what vtgate.probe writes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from vtgate.mutate.spec import load_declarations
from vtgate.probe import observation
from vtgate.suite.load import load_suite

PAGE = Path(__file__).resolve().parents[2] / "docs" / "own-engine.md"
BLOCK = re.compile(r"```toml\n(.*?)```", re.S)


def _blocks() -> list[str]:
    return BLOCK.findall(PAGE.read_text())


def test_gate_blocks_load_as_suites(tmp_path: Path) -> None:
    gates = [b for b in _blocks() if "[[gate]]" in b]
    assert gates
    for text in gates:
        (tmp_path / "vtgate.toml").write_text(text)
        suite = load_suite(tmp_path / "vtgate.toml")
        assert {g.options.get("mode") for g in suite.gates if g.kind == "golden"} <= {"logits"}


def test_the_hand_written_knob_gates_fit_the_suite_init_writes(tmp_path: Path) -> None:
    """The "Knobs init does not measure" block is appended to the suite of the transformers walk-through:
    it names that suite's probe and gate."""
    text = PAGE.read_text()
    section = text[text.index("### Knobs init does not measure"):]
    (block,) = BLOCK.findall(section[:section.index("\n## ")])
    init_gate = ('[[gate]]\nname = "generate-logits"\nkind = "golden"\nmode = "logits"\n'
                 'probe = "vtgate_probes:generate"\nargs = { prompt = "The quick brown fox", tokens = 16 }\n\n')
    (tmp_path / "vtgate.toml").write_text(init_gate + block)
    suite = load_suite(tmp_path / "vtgate.toml")
    assert suite.gate("bf16-cache-invariance").probe == suite.gate("generate-logits").probe
    declarations = load_declarations(suite)
    assert [m.name for m in declarations.mutations] == ["SVC_ATTN_IMPL-sdpa"]


def test_the_arms_block_gives_one_value_per_mutation(tmp_path: Path) -> None:
    (arms,) = [b for b in _blocks() if 'kind  = "arms"' in b]
    (tmp_path / "vtgate.toml").write_text('[[gate]]\nname = "e"\nkind = "envdoc"\n\n' + arms)
    declarations = load_declarations(load_suite(tmp_path / "vtgate.toml"))
    assert declarations.arms is not None
    assert dict(declarations.arms.on_values) == {"MY_ATTN_IMPL": ("sdpa", "flash")}


def test_the_observation_table_lists_what_the_helper_writes() -> None:
    text = PAGE.read_text()
    table = text[text.index("| field | value |"):text.index("Data of the wrong shape")]
    listed = set(re.findall(r"^\| `(\w+)", table, re.M))
    written = set(observation([0, 1], np.eye(2, 3)))
    assert listed == written
