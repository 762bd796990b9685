"""vtgate.probe: an observation built from (tokens, logits) is valid and carries margins, digests,
per-step cases and meta; wrong shapes are named; torch is never imported by vtgate itself."""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from vtgate.probe import ProbeShapeError, observation
from vtgate.treehash import source_tree_hash


def _rows() -> np.ndarray:
    return np.array([[0.5, 2.0, 1.25, -1.0], [3.0, 2.5, 2.75, 0.0], [1.0, 1.0, 0.5, 0.25]], dtype=np.float32)


def _f32_digest(values: list[float]) -> str:
    return hashlib.sha256(struct.pack(f"<{len(values)}f", *values)).hexdigest()


def test_margins_are_top1_minus_top2_per_step() -> None:
    found = observation([1, 0, 0], _rows())
    assert found["margins"] == [0.75, 0.25, 0.0]


def test_digests_are_sha256_of_little_endian_float32_per_step_and_overall() -> None:
    rows = _rows()
    found = observation([1, 0, 0], rows)
    flat = [float(v) for v in rows.reshape(-1)]
    assert found["digests"]["logits"] == _f32_digest(flat)
    assert found["cases"] == {f"pos-{i}": _f32_digest([float(v) for v in rows[i]]) for i in range(3)}
    assert found["digests"]["stream"] == hashlib.sha256(struct.pack("<3i", 1, 0, 0)).hexdigest()


def test_top_k_record_keeps_ids_and_values_in_descending_order() -> None:
    found = observation([1, 0, 0], _rows(), top_k=2)
    assert found["logits"]["ids"] == [[1, 2], [0, 2], [0, 1]]
    assert found["logits"]["values"] == [[2.0, 1.25], [3.0, 2.75], [1.0, 1.0]]
    assert found["logits"]["vocab"] == 4
    json.dumps(found, allow_nan=False)  # an observation is plain JSON


def test_a_batch_of_one_is_accepted() -> None:
    assert observation([[1, 0, 0]], _rows()[None, ...])["tokens"] == [1, 0, 0]


@pytest.mark.parametrize(("tokens", "logits", "field", "hint"), [
    ([1, 0], _rows(), "logits", "3 rows but tokens has 2"),
    ([1, 0, 0], _rows()[0], "logits", "(steps, vocab)"),
    ([1, "x", 0], _rows(), "tokens", "'x' is not an int"),
    ("abc", _rows(), "tokens", "expected a list of token ids"),
    ([1, 0, 0], np.array([[1.0, np.nan], [0, 1], [0, 1]]), "logits", "NaN"),
])
def test_wrong_shapes_name_the_field(tokens, logits, field: str, hint: str) -> None:
    with pytest.raises(ProbeShapeError) as raised:
        observation(tokens, logits)
    assert str(raised.value).startswith(f"{field}:")
    assert hint in str(raised.value)


def test_meta_names_interpreter_libraries_and_source_tree_hash(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text("X = 1\n")
    meta = observation([1, 0, 0], _rows(), engine="mine", source_tree=tmp_path / "pkg")["meta"]
    assert meta["engine"] == "mine"
    assert meta["interpreter"] == sys.executable
    assert meta["libraries"]["numpy"] == np.__version__
    assert meta["source_tree_hash"] == source_tree_hash(tmp_path / "pkg")


def test_building_an_observation_never_imports_torch() -> None:
    code = ("import sys, numpy as np; from vtgate.probe import observation; "
            "observation([0], np.zeros((1, 3))); print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


class _CharTokenizer:
    """Just enough of a tokenizer for the adapters: one id per byte, mod the vocabulary."""

    def __call__(self, text: str, return_tensors: str = "pt", add_special_tokens: bool = True):
        import torch

        ids = [b % 64 for b in text.encode()] or [0]
        return {"input_ids": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}


def test_transformers_adapters_return_valid_observations() -> None:
    torch = pytest.importorskip("torch", reason="torch is not installed: the transformers adapters cannot run")
    transformers = pytest.importorskip("transformers")
    from vtgate.probe import generate, teacher_forced

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config)
    generated = generate(model, "hello", 5, tokenizer=_CharTokenizer())
    assert len(generated["tokens"]) == 5 and len(generated["margins"]) == 5
    forced = teacher_forced(model, "hello", " world", tokenizer=_CharTokenizer())
    assert len(forced["tokens"]) == len(" world")
    assert all(m >= 0 for m in forced["margins"])


def test_a_probe_callable_returning_a_wrong_type_is_reported_naming_the_field(project) -> None:
    (project.root / "badprobes.py").write_text(
        "def wrong():\n    return {'tokens': [1, 'two'], 'counters': {'hits': 1.5}}\n")
    project.write_suite('[[gate]]\nname = "g"\nkind = "golden"\nprobe = "badprobes:wrong"\n',
                        header='[suite]\npythonpath = ["."]\ntimeout = 60\n')
    done = project.vtgate("bless", "g", "--reason", "first")
    assert done.returncode == 3
    error = done.stderr
    assert "tokens[1] = 'two': tokens must be a list of int (token ids)" in error
    assert "counters['hits'] = 1.5: counters must be an object of name -> int" in error
