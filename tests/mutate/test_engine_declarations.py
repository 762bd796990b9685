"""The engine's own suite (goldens/gates.toml) declares its mutations correctly, checked without
running the matrix (that takes a minute or more; benchmarks/bench_mutate.py runs it): every
declaration validates and names known gates, every run mutation states what it expects of every
gate, the patches apply to this repository and stay inside the source tree the stale guard hashes,
the pin mutations fit the blessed goldens, and env mutations share the runs they can share."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from vtgate.mutate import load_declarations
from vtgate.mutate.controls import compile_pin_op
from vtgate.mutate.copies import patched_files
from vtgate.run.check import plan_check, resolve_pin
from vtgate.run.execute import ProbeKey
from vtgate.suite.load import load_suite, select_gates
from vtgate.suite.records import Suite

REPO = Path(__file__).resolve().parents[2]
FMA = {"VT_CPU_PAGED_ATTN_SCALAR_FMA": "1"}


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(REPO / "goldens" / "gates.toml")


def test_declarations_load_and_cover_the_field_notes(suite: Suite) -> None:
    declarations = load_declarations(suite)  # raises SuiteError on any unknown gate, kind or outcome
    kinds = {m.name: m.kind for m in declarations.mutations}
    assert kinds == {
        "fma-default-on": "env",
        "anchor-probe-old-default": "env",
        "anchor-pinned-to-old-default": "pin",
        "bfdot-default-on": "env",
        "fma-knob-reading-deleted": "patch",
        "draft-band-plus-one": "pin",
        "draft-accepted-plus-one": "pin",
        "dequant-evict-most-recent": "patch",
    }
    assert declarations.arms is not None
    assert declarations.arms.probe.cmd == ("python", "-m", "vtengine", "arms", "--json", "-")
    gates = {spec.name for spec in suite.gates}
    for mutation in declarations.mutations:
        assert set(mutation.expected) <= gates, mutation.name
        assert set(mutation.expected.values()) <= {"red", "green"}
        assert "red" in mutation.expected.values() or mutation.kind == "pin", mutation.name


def test_every_env_and_patch_mutation_states_every_gate_but_the_probe_focused_one(suite: Suite) -> None:
    gates = {spec.name for spec in select_gates(suite, None, None)}  # what vtgate mutate runs: not the opt-in perf tier
    for mutation in load_declarations(suite).mutations:
        if mutation.kind in ("env", "patch") and mutation.name != "anchor-probe-old-default":
            assert set(mutation.expected) == gates, f"{mutation.name} omits {sorted(gates - set(mutation.expected))}"


def test_field_note_expectations(suite: Suite) -> None:
    by_name = {m.name: m for m in load_declarations(suite).mutations}
    fma = by_name["fma-default-on"].expected
    assert fma["attention-dispatch-vs-scalar"] == fma["decode-bench-anchor"] == "red"
    assert by_name["bfdot-default-on"].expected["attention-dispatch-vs-scalar"] == "red"
    assert by_name["fma-knob-reading-deleted"].expected["decode-bench-anchor-fma"] == "red"
    assert by_name["draft-band-plus-one"].expected == {"speculative-draft-band": "green"}
    evict = by_name["dequant-evict-most-recent"].expected
    assert evict["dequant-eviction-counters"] == "red"
    assert {evict[g] for g in ("strict-hello", "decode-bench-anchor", "dequant-budget-invariance")} == {"green"}


def test_patches_apply_to_this_repository_inside_the_hashed_source_tree(suite: Suite) -> None:
    patches = [m.patch for m in load_declarations(suite).mutations if m.patch is not None]
    assert len(patches) == 2
    source_tree = suite.settings.source_tree
    assert source_tree == "engine/vtengine"
    for patch in patches:
        done = subprocess.run(["git", "apply", "--check", str(patch)], cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0, f"{patch.name} no longer applies: {done.stderr.strip()}"
        files = patched_files(patch)
        assert files and all(f.startswith(source_tree + "/") for f in files), files


def test_old_default_anchor_is_what_the_fma_tier_pins(suite: Suite) -> None:
    """The old-default anchor the pin mutation writes and the env mutation must measure is the FMA
    arm's bench stream, the one decode-bench-anchor-fma pins: three places, one number."""
    by_name = {m.name: m for m in load_declarations(suite).mutations}
    fma_golden = json.loads((REPO / "goldens" / "fma" / "decode-bench-anchor-fma.json").read_text())["value"]
    default_golden = resolve_pin(suite.gate("decode-bench-anchor"), suite.root)
    pinned = by_name["anchor-pinned-to-old-default"].pin
    assert pinned is not None and pinned.op == "set"
    assert pinned.params["values"] == {"anchor": fma_golden["anchor"], "digest": fma_golden["digest"]}
    assert fma_golden["anchor"] != default_golden["anchor"]
    observed = by_name["anchor-probe-old-default"].expect_observed["decode-bench-anchor"]
    assert observed == {"metrics.anchor": fma_golden["anchor"], "tokens.82": fma_golden["tokens"][82]}
    assert fma_golden["tokens"][82] != default_golden["tokens"][82]


def test_pin_mutations_fit_the_blessed_goldens(suite: Suite) -> None:
    for mutation in load_declarations(suite).mutations:
        if mutation.pin is None or mutation.pin.op == "shift-measured":  # that one needs a probe run
            continue
        spec = suite.gate(mutation.pin.gate)
        pin = resolve_pin(spec, suite.root)
        change = compile_pin_op(mutation.pin, spec, pin, {})
        assert change.edits, mutation.name
        for edit in change.edits:
            assert edit.label is None and edit.path[0] in pin, (mutation.name, edit)


class _Recorder:
    """Stands in for the shared pool: records which runs a plan asks for, runs nothing."""

    def __init__(self) -> None:
        self.keys: list[ProbeKey] = []

    def request(self, key: ProbeKey, timeout: float, gate: str = "") -> None:
        self.keys.append(key)


def test_env_mutation_shares_runs_with_the_fma_tier_and_envdoc_with_the_baseline(suite: Suite) -> None:
    recorder = _Recorder()
    baseline = plan_check(suite.gates, suite, REPO, recorder)  # type: ignore[arg-type]
    mutated = plan_check(suite.gates, suite, REPO, recorder, extra_env=FMA)  # type: ignore[arg-type]
    key = {name: [k for _, k, _ in runs] for name, runs in mutated.runs.items()}
    base = {name: [k for _, k, _ in runs] for name, runs in baseline.runs.items()}
    # the FMA tier's own runs under the mutation are its baseline runs ...
    assert key["decode-bench-anchor-fma"] == base["decode-bench-anchor-fma"]
    assert key["argmax-chain-story-fma"] == base["argmax-chain-story-fma"]
    # ... and the default-tier anchor under FMA is the same run as the FMA tier's anchor
    assert key["decode-bench-anchor"] == base["decode-bench-anchor-fma"]
    # the env-doc checker reads files, not the environment: never rerun under an env mutation
    assert key["envdoc"] == base["envdoc"] and key["envdoc"][0].env == ()
    assert dict(key["strict-hello"][0].env) == FMA


def test_every_entry_of_the_engines_ledger_matches_a_generated_mutant_and_records_its_versions(suite: Suite) -> None:
    """An edit near a confirmed mutant (within the three lines of its diff's context) gives it a new
    key: its entry then matches nothing, and the mutant is judged afresh as possibly equivalent. Said
    here, before a full run: move the edit, or re-confirm the entry under its new key."""
    from vtgate.mutate.codemutants import generate
    from vtgate.mutate.coderun import load_ledger, load_scope, unmatched_ledger_entries

    scope = load_scope(suite)
    mutants = generate(suite.root, scope.paths, operators=scope.operators, include_functions=scope.include_functions,
                       exclude_functions=scope.exclude_functions, exclude_files=scope.exclude)
    ledger = suite.root / scope.equivalents
    assert unmatched_ledger_entries(ledger, mutants) == []
    entries = load_ledger(ledger)
    assert entries and all(entry.confirmed_under for entry in entries.values())
