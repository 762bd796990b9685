"""The probes of docs/contracts.md section 5: names, arguments, fields, meta, determinism."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from vtengine import probes
from vtengine.provenance import package_dir, source_tree_hash

META_KEYS = {"engine", "version", "model", "source_tree_hash", "source_root", "knobs", "arms"}


def check_meta(observation: dict) -> None:
    meta = observation["meta"]
    assert set(meta) >= META_KEYS
    assert meta["engine"] == "vtengine" and meta["model"] == "vt-tiny"
    assert meta["source_tree_hash"] == source_tree_hash(package_dir())
    assert meta["knobs"]["VT_CPU_THREADS"] == "1"
    assert meta["arms"] == {"paged_attention": "default", "gemv": "default"}


def test_generate_observation_has_the_contract_fields() -> None:
    obs = probes.generate("hello", 5)
    check_meta(obs)
    assert len(obs["tokens"]) == 5 and len(obs["margins"]) == 5
    assert obs["digests"]["stream"] == hashlib.sha256(np.asarray(obs["tokens"], "<i4").tobytes()).hexdigest()
    assert len(obs["digests"]["logits"]) == 64
    assert set(obs["counters"]) == {"dequant_hits", "dequant_misses", "dequant_evictions"}
    assert isinstance(obs["metrics"]["anchor"], int)


def test_generate_is_deterministic() -> None:
    a, b = probes.generate("hello", 4), probes.generate("hello", 4)
    assert a["digests"] == b["digests"] and a["counters"] == b["counters"]


def test_decode_bench_defaults_are_the_bench_chain() -> None:
    obs = probes.decode_bench(tokens=6)
    check_meta(obs)
    assert obs["tokens"] == probes.generate("bench", 6)["tokens"]


def test_teacher_forced_scores_every_position() -> None:
    obs = probes.teacher_forced("Hi", " there", tokens=4)
    check_meta(obs)
    assert len(obs["tokens"]) == len(obs["margins"]) == 3 + 4  # BOS + "Hi" + 4 reference tokens
    assert obs["metrics"]["reference_tokens"] == 4


def test_decode_paths_agree_case_by_case() -> None:
    inc = probes.decode_paths("hello", 4, path="incremental")
    rec = probes.decode_paths("hello", 4, path="recompute")
    check_meta(inc)
    assert list(inc["cases"]) == ["pos-0", "pos-1", "pos-2", "pos-3"]
    assert inc["cases"] == rec["cases"] and inc["tokens"] == rec["tokens"]


def test_batch_decode_agrees_batched_and_alone() -> None:
    batched = probes.batch_decode(["a", "hello there"], 3, batched=True)
    alone = probes.batch_decode(["a", "hello there"], 3, batched=False)
    check_meta(batched)
    assert "seq-1/pos-2" in batched["cases"] and len(batched["cases"]) == 6
    assert batched["cases"] == alone["cases"]


def test_speculative_probe_matches_greedy_with_counters() -> None:
    spec = probes.speculative("bench", 16, ngram=2, mode="speculative")
    greedy = probes.speculative("bench", 16, ngram=2, mode="greedy")
    check_meta(spec)
    assert spec["cases"] == greedy["cases"]
    assert spec["counters"]["accepted"] > 0
    assert spec["metrics"]["acceptance"] == spec["counters"]["accepted"] / spec["counters"]["proposed"]
    assert greedy["counters"] == {"proposed": 0, "accepted": 0}


def test_attention_cases_ids_and_determinism() -> None:
    obs = probes.attention_cases("dispatch")
    check_meta(obs)
    assert "q=bf16,kv=fp8,hd=32,bs=16,ctx=37" in obs["cases"]
    assert len(obs["cases"]) == 2 * 3 * 2 * 3 * 4
    assert obs == probes.attention_cases("dispatch")


def test_an_attention_body_that_hands_back_float64_changes_its_case_digests(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same values as float64 (a widened output buffer) are another output: the bodies return
    float32, and the case digest carries any other dtype (digest_array alone casts to float32)."""
    original = probes.attention_cases("scalar", head_dims=[7])
    scalar = probes.attend_scalar
    monkeypatch.setattr(probes, "attend_scalar", lambda *args: scalar(*args).astype(np.float64))
    widened = probes.attention_cases("scalar", head_dims=[7])
    assert widened["digests"]["inputs"] == original["digests"]["inputs"]
    assert all(widened["cases"][c] == f"{original['cases'][c]} <f8" for c in original["cases"])
    assert widened["digests"]["cases"] != original["digests"]["cases"]


def test_checkpoint_roundtrip_decodes_like_the_embedded_model_and_reports_each_refusal() -> None:
    written = probes.checkpoint_roundtrip("bench", 6, weights="fp8")
    embedded = probes.generate("bench", 6)
    check_meta(written)
    assert written["tokens"] == embedded["tokens"]
    assert written["digests"]["logits"] == embedded["digests"]["logits"]
    cases = written["cases"]
    assert cases["minimal config"].startswith("rope_theta=10000.0 rms_norm_eps=1e-06")
    assert "expected a positive integer" in cases["hidden_size 0"]
    assert "num_hidden_layers=" in cases["layer past the config"]
    assert "is missing" in cases["fp8 weight without scales"]
    assert "one scale per 128x128 block" in cases["fp8 scales of the weight's shape"]
    sharded = "the same tensors in 2 shards + model.safetensors.index.json"
    assert cases[sharded] == "read identically"
    as_float = probes.checkpoint_roundtrip("bench", 6, weights="float32")
    assert as_float["tokens"] == embedded["tokens"] and as_float["cases"] == {sharded: "read identically"}
    assert as_float["digests"]["config"] != written["digests"]["config"]  # fp8 adds quantization_config


def test_attention_rows_equal_one_row_per_call_and_odd_head_sizes_are_cases() -> None:
    dispatch = probes.attention_cases("dispatch", head_dims=[7, 32])
    rows = probes.attention_cases("rows", head_dims=[7, 32])
    assert len(dispatch["cases"]) == 2 * 3 * 2 * 3 * 4 and "q=bf16,kv=bf16,hd=7,bs=5,ctx=37" in dispatch["cases"]
    assert rows["cases"] == dispatch["cases"]  # the several-rows body's last row is the one-row body's output
    assert rows["digests"]["inputs"] == dispatch["digests"]["inputs"]
    default = probes.attention_cases("dispatch")
    assert default["digests"]["inputs"] != dispatch["digests"]["inputs"]
    with pytest.raises(ValueError, match="impl must be"):
        probes.attention_cases("fast")


def test_engine_contracts_fill_the_context_and_refuse_one_step_past_each_boundary() -> None:
    obs = probes.engine_contracts(context=32)
    check_meta(obs)
    assert len(obs["tokens"]) == 32 - 6 + 1  # BOS + "bench", then up to the last of 32 positions
    cases = obs["cases"]
    assert cases["generate one past the context"].startswith("refused: ValueError: prompt + generated tokens = 33")
    assert cases["forward at position context"] == "refused: ValueError: sequence longer than the model's context 32"
    assert cases["token id 0"] == cases["token id 511"] == "accepted"
    assert cases["token id -1"] == cases["token id 512"] == "refused: ValueError: token ids must lie in [0, 512)"
    assert cases["speculative to the context limit equals greedy"] == "True"
    assert cases["vocab_size 259"] == "accepted" and cases["vocab_size 258"].startswith("refused: VocabError")
    assert cases["gemv_default 1 column"] == "refused: AssertionError: sequential-K layout violated"
    for policy in ("lru", "pin"):
        assert cases[f"dequant {policy}: two blocks fill the budget exactly"] == (
            "hits 2 misses 2 evictions 0 resident 8192")
        assert cases[f"dequant {policy}: one block is the budget"] == "hits 1 misses 1"
    assert cases["dtypes"] == "held norm float32, vector float32, dequantized float32, margins float64"
    counters = obs["counters"]
    assert counters["kv_blocks_full_sequence"] == 2  # 32 positions in blocks of 16
    assert counters["thread_pool_workers_at_1"] == 0 and counters["thread_pool_workers_at_2"] == 2
    assert set(obs["digests"]) >= {"logits", "cases", "rmsnorm", "quantizer", "dequantizer", "numerics"}
    assert obs == {**probes.engine_contracts(context=32), "meta": obs["meta"]}  # deterministic


def test_profile_counts_count_calls_per_phase_and_stage_with_exact_shares() -> None:
    obs = probes.profile_counts("bench", 3)
    check_meta(obs)
    counters = obs["counters"]
    assert counters["profile_shares_exact"] == 1
    assert counters["calls.prefill.lm_head"] == 1 and counters["calls.decode.lm_head"] == 2  # one per forward
    assert counters["profile_table_rows"] == sum(1 for name in counters if name.startswith("calls."))
    assert obs == {**probes.profile_counts("bench", 3), "meta": obs["meta"]}


@pytest.mark.parametrize(
    "call",
    [
        lambda: probes.generate("x", 0),
        lambda: probes.checkpoint_roundtrip("x", 2, weights="int4"),
        lambda: probes.decode_paths("x", 2, path="sideways"),
        lambda: probes.speculative("x", 2, mode="fast"),
        lambda: probes.attention_cases("vector"),
        lambda: probes.batch_decode([], 2),
    ],
)
def test_bad_arguments_raise_value_errors(call) -> None:
    with pytest.raises(ValueError):
        call()


def test_probes_read_knobs_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VT_DEQUANT_CACHE_MB", "0")
    monkeypatch.setenv("VT_CPU_GEMV_BF16_DOT", "1")
    obs = probes.generate("hello", 3)
    assert obs["meta"]["knobs"]["VT_DEQUANT_CACHE_MB"] == "0"
    assert obs["meta"]["arms"]["gemv"] == "bf16_dot"
    assert obs["counters"]["dequant_hits"] == 0
