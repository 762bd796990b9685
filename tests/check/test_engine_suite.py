"""The engine's own suite (goldens/gates.toml) against a snapshot of the committed engine: green as
committed, and every gate kind red on a real engine change (an opt-in arm switched on by its knob, a
cache policy, an undocumented knob read), with the verdict in the kind's terms."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest
from vtgate.run.check import CheckReport, run_check
from vtgate.suite.load import load_suite
from vtgate.suite.records import Suite

# every test here runs real engine probes through whole gates: end to end, run by .ci/run (-m slow)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
FMA = {"VT_CPU_PAGED_ATTN_SCALAR_FMA": "1"}


def _snapshot(destination: Path) -> Path:
    """The source roots, docs/ and pyproject.toml as committed at HEAD (envdoc reads them all):
    immune to edits in the working tree."""
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD", "engine", "gates", "bisect", "docs",
                              "pyproject.toml"],
                             cwd=REPO, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    return destination


@pytest.fixture(scope="module")
def engine_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _snapshot(tmp_path_factory.mktemp("engine-head"))


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite(REPO / "goldens" / "gates.toml")


def _check(suite: Suite, root: Path, *names: str, env: dict[str, str] | None = None) -> CheckReport:
    return run_check(suite, root=root, select=list(names), extra_env=env)


def test_gates_of_the_committed_suite_are_green_and_share_their_runs(suite: Suite, engine_root: Path) -> None:
    # the whole suite green is .ci/run's `vtgate check`; here the cheap gates, one run shared by two
    report = _check(suite, engine_root, "attention-dispatch-vs-scalar", "speculative-equals-greedy",
                    "speculative-draft-band")
    assert {g.name: g.status for g in report.gates} == dict.fromkeys(
        ["attention-dispatch-vs-scalar", "speculative-equals-greedy", "speculative-draft-band"], "green")
    assert report.exit_code == 0
    assert report.shared_runs > 0
    assert report.gate("attention-dispatch-vs-scalar").summary == "144/144 identical (dispatch vs scalar)"


def test_strict_golden_goes_red_when_the_fma_arm_leaks_into_the_default(suite: Suite, engine_root: Path) -> None:
    gate = _check(suite, engine_root, "strict-hello", env=FMA).gates[0]
    assert gate.status == "red"
    assert gate.summary.startswith("73/96 exact — first divergence at position 73: token ")
    assert gate.summary.endswith("golden margin 0.00369")


def test_env_pin_on_a_default_tier_golden_turns_it_red(suite: Suite, engine_root: Path, tmp_path: Path) -> None:
    # the same gate, pinned by env to the opt-in arm, judged against the default-tier golden
    (tmp_path / "goldens" / "default").mkdir(parents=True)
    (tmp_path / "goldens" / "default" / "strict-def-main.json").write_bytes(
        (REPO / "goldens" / "default" / "strict-def-main.json").read_bytes())
    (tmp_path / "vtgate.toml").write_text(
        '[suite]\npythonpath = ["engine"]\nsource_tree = "engine/vtengine"\n\n'
        '[[gate]]\nname = "strict-def-main"\nkind = "golden"\nprobe = "vtengine.probes:generate"\n'
        'args = { prompt = "def main():", tokens = 64 }\nenv = { VT_CPU_PAGED_ATTN_SCALAR_FMA = "1" }\n'
        'env_reason = "what happens when a gate measures the FMA arm against a default-tier pin"\n'
    )
    gate = run_check(load_suite(tmp_path / "vtgate.toml"), root=engine_root).gates[0]
    assert gate.status == "red"
    assert gate.summary.startswith("23/64 exact — first divergence at position 22: token 176 -> 223")


def test_teacher_forced_chain_counts_the_fma_near_tie_flips(suite: Suite, engine_root: Path) -> None:
    gate = _check(suite, engine_root, "argmax-chain-fox", env=FMA).gates[0]
    assert gate.status == "red"
    assert gate.summary.startswith("174/177 (3 near-tie, 0 hard) — first hard flip none; worst near-tie margin "
                                   "0.0138 at position 170 [allowed: 0 near-tie, 0 hard]; margins moved at ")


def test_fma_tier_gate_tolerates_its_arm_but_not_f32_activations(suite: Suite, engine_root: Path) -> None:
    spec = suite.gate("argmax-chain-story-fma")
    assert spec.tier == "fma" and spec.env == FMA and "FMA" in (spec.env_reason or "")
    assert _check(suite, engine_root, "argmax-chain-story-fma").gates[0].status == "green"
    red = _check(suite, engine_root, "argmax-chain-story-fma", env={"VT_ACT_DTYPE": "f32"}).gates[0]
    assert red.status == "red"
    assert red.summary.startswith("180/185 (5 near-tie, 0 hard)")


def test_bitident_dispatch_vs_scalar_names_the_leaking_cases(suite: Suite, engine_root: Path) -> None:
    fma = _check(suite, engine_root, "attention-dispatch-vs-scalar", env=FMA).gates[0]
    assert fma.status == "red"
    assert fma.summary.startswith("36/144 identical (dispatch vs scalar) — 108 differ, first q=bf16,kv=bf16,hd=32,bs=1,ctx=7")
    bfdot = _check(suite, engine_root, "attention-dispatch-vs-scalar", env={"VT_CPU_PAGED_ATTN_BFDOT": "1"}).gates[0]
    assert bfdot.status == "red"
    assert bfdot.verdict is not None and bfdot.verdict.cases is not None
    assert all(case.startswith("q=bf16,kv=bf16,") for case in bfdot.verdict.cases.failed_ids)


def _batch_dependent_default(root: Path) -> Path:
    """The snapshot with a default GEMV whose order follows the batch (pair-dot for several rows,
    sequential for one): an engine change that breaks path and batch identity on any IEEE machine,
    unlike the BLAS arm, whose order is the host's."""
    gemv = root / "engine" / "vtengine" / "gemv.py"
    text = gemv.read_text()
    assert '    "default": gemv_default,\n' in text
    gemv.write_text(text.replace('    "default": gemv_default,\n',
                                 '    "default": lambda x, w_t: (gemv_bf16_dot if x.shape[0] > 1 else gemv_default)(x, w_t),\n'))
    return root


def test_incremental_vs_recompute_and_batch_invariance_break_under_a_batch_dependent_gemv(
        suite: Suite, tmp_path: Path) -> None:
    root = _batch_dependent_default(_snapshot(tmp_path))
    report = _check(suite, root, "incremental-vs-recompute", "batch-composition-invariance")
    paths, batch = report.gate("incremental-vs-recompute"), report.gate("batch-composition-invariance")
    # position 0 is the prompt's prefill on both paths (several rows, the same order): only decode differs
    assert paths.status == "red"
    assert paths.summary.startswith("1/16 identical (incremental vs recompute) — 15 differ, first pos-1: ")
    assert batch.status == "red"
    assert batch.summary.startswith("0/1 runs identical to baseline — batched=false differs from baseline: cases.seq-0/pos-0 ")


def test_draft_band_goes_red_under_f32_activations(suite: Suite, engine_root: Path) -> None:
    gate = _check(suite, engine_root, "speculative-draft-band", env={"VT_ACT_DTYPE": "f32"}).gates[0]
    assert gate.status == "red"
    assert gate.summary == ("0/2 in band — proposed 9 outside [20, 30] (below lo by 11); "
                            "accepted 3 outside [5, 10] (below lo by 2)")


def test_counters_follow_the_cache_policy(suite: Suite, engine_root: Path) -> None:
    gate = _check(suite, engine_root, "dequant-cache-counters", env={"VT_DEQUANT_CACHE_POLICY": "pin"}).gates[0]
    assert gate.status == "red"
    assert gate.summary.startswith("6/9 counters exact — VT_DEQUANT_CACHE_MB=1/dequant_hits 0 -> 62 (+62)")


def test_envdoc_gate_goes_red_on_an_undocumented_knob(suite: Suite, tmp_path: Path) -> None:
    root = _snapshot(tmp_path)
    knobs = root / "engine" / "vtengine" / "knobs.py"
    knobs.write_text(knobs.read_text() + '\n\ndef _secret() -> str:\n    return os.environ.get("VT_SECRET_KNOB", "0")\n')
    gate = _check(suite, root, "envdoc").gates[0]
    assert gate.status == "red"
    assert "1 undocumented" in gate.summary
    assert gate.summary.endswith("— first: undocumented:VT_SECRET_KNOB (engine/vtengine/knobs.py:" +
                                 f"{len(knobs.read_text().splitlines())})")


def test_a_patched_engine_under_root_is_what_runs(suite: Suite, tmp_path: Path) -> None:
    # a source change in the tree under --root (not in the installed checkout) turns the anchor red
    root = _snapshot(tmp_path)
    probes = root / "engine" / "vtengine" / "probes.py"
    probes.write_text(probes.read_text().replace(
        'def decode_bench(prompt: str = "bench", tokens: int = 60, model: str = "vt-tiny") -> Observation:\n'
        '    """The anchor chain: like :func:`generate` with the bench defaults."""\n'
        "    return generate(prompt, tokens, model)",
        'def decode_bench(prompt: str = "bench", tokens: int = 60, model: str = "vt-tiny") -> Observation:\n'
        '    """The anchor chain: like :func:`generate` with the bench defaults."""\n'
        "    return generate(prompt + \" \", tokens, model)"))
    assert 'generate(prompt + " ", tokens, model)' in probes.read_text()
    gate = _check(suite, root, "decode-bench-anchor").gates[0]
    assert gate.status == "red"
    assert gate.summary.startswith("anchor 870500 -> ")
