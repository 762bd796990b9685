"""The vtengine CLI: generate (with --json), score, arms, bench, export; bad input exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

VTENGINE = str(Path(sys.executable).parent / "vtengine")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    full_env.update(env or {})
    return subprocess.run([VTENGINE, *args], capture_output=True, text=True, env=full_env, timeout=120)


def test_generate_prints_the_observation_json_on_stdout() -> None:
    done = run("generate", "--prompt", "hello", "--tokens", "4", "--json", "-")
    assert done.returncode == 0, done.stderr
    obs = json.loads(done.stdout)
    assert len(obs["tokens"]) == 4 and obs["meta"]["engine"] == "vtengine"
    assert "hello" in done.stderr  # the human line goes to stderr


def test_generate_writes_json_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "obs.json"
    done = run("generate", "--prompt", "hi", "--tokens", "2", "--json", str(target))
    assert done.returncode == 0 and done.stdout == ""
    assert len(json.loads(target.read_text())["tokens"]) == 2


def test_bad_token_count_is_a_usage_error() -> None:
    done = run("generate", "--prompt", "hello", "--tokens", "0")
    assert done.returncode == 2 and "--tokens must be >= 1" in done.stderr


def test_bad_knob_is_a_usage_error_naming_it() -> None:
    done = run("generate", "--prompt", "hello", "--tokens", "2", env={"VT_KV_BLOCK_SIZE": "zero"})
    assert done.returncode == 2 and "VT_KV_BLOCK_SIZE" in done.stderr


def test_unknown_model_is_a_usage_error(tmp_path: Path) -> None:
    done = run("generate", "--prompt", "x", "--tokens", "1", "--model", str(tmp_path / "nope"))
    assert done.returncode == 2 and "nope" in done.stderr


def test_arms_reports_the_selection_of_the_environment() -> None:
    done = run("arms", "--json", "-", env={"VT_CPU_PAGED_ATTN_BFDOT": "1"})
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert report["selected"] == {"paged_attention": "bfdot", "gemv": "default"}
    assert len(report["arms"]) == 6


def test_arms_table_shows_whole_knob_names_on_an_80_column_terminal() -> None:
    from vtengine.arms import ARMS

    done = run("arms", env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    for arm in ARMS:
        if arm.knob:  # one row per arm, its knob whole (a user copies it), the selection marked
            row = next(line for line in lines if f" {arm.name} " in line and arm.kernel in line)
            assert arm.knob in row
    assert all(len(line) <= 80 for line in lines)


def test_score_reports_teacher_forced_margins() -> None:
    done = run("score", "--prompt", "Hi", "--reference", " you", "--json", "-")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["margins"]) == 3 + 4


def test_bench_reports_speeds_and_a_profile() -> None:
    done = run("bench", "--prompt-tokens", "4", "--tokens", "4", "--runs", "1", "--json", "-")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["decode_tok_s"] > 0 and result["prefill_tok_s"] > 0
    assert {r["stage"] for r in result["profile"]} >= {"linear", "attention", "lm_head"}


def test_export_writes_a_checkpoint_that_loads_back_to_the_same_weights(tmp_path: Path) -> None:
    from vtengine.model import load_model

    done = run("export", "vt-tiny", str(tmp_path / "ckpt"))
    assert done.returncode == 0, done.stderr
    exported = load_model(str(tmp_path / "ckpt"))
    original = load_model("vt-tiny")
    a, b = exported.dequantized_tensors(), original.dequantized_tensors()
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_a_chain_longer_than_the_context_is_a_usage_error() -> None:
    done = run("generate", "--prompt", "x", "--tokens", "2000")
    assert done.returncode == 2 and "context 1024" in done.stderr


def test_a_bench_longer_than_the_context_is_a_usage_error_naming_the_most_it_can_run() -> None:
    done = run("bench", "--tokens", "5000", "--runs", "1")
    assert done.returncode == 2, done.stderr
    assert "runs past the model's context 1024: give at most --tokens 1009" in done.stderr
    assert "internal error" not in done.stderr
    edge = run("bench", "--prompt-tokens", "16", "--tokens", "1009", "--runs", "1", "--json", "-")
    assert edge.returncode == 0, edge.stderr  # exactly the context: the last decoded position is 1023


def test_sigint_ends_bench_with_130_even_when_the_caller_was_started_with_sigint_ignored() -> None:
    # a probe run under `nohup vtgate ... &` inherits SIGINT ignored; the family resets it for its bench
    script = ("import signal; from vtengine.families import _signalled; "
              "print(_signalled(signal.SIGINT))")
    import signal

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.stdout.strip() == "(130, 'interrupted: vtengine bench\\n')", done.stdout + done.stderr


def small_vocab_checkpoint(directory: Path, vocab_size: int = 128) -> Path:
    """A 1-layer Llama checkpoint whose vocab cannot hold the byte tokenizer's 259 ids."""
    from vtengine.checkpoint import save_checkpoint
    from vtengine.config import ModelConfig
    from vtengine.model import generate_tensors

    config = ModelConfig(
        name="small", vocab_size=vocab_size, d_model=64, n_layers=1, n_heads=4, n_kv_heads=2, d_ff=96, max_context=64
    )
    return save_checkpoint(directory, config, generate_tensors(config))


def test_text_on_a_model_whose_vocab_is_below_the_tokenizer_names_the_vocab_and_the_fix(tmp_path: Path) -> None:
    model = str(small_vocab_checkpoint(tmp_path / "v128"))
    for args in (["generate", "--prompt", "hi", "--tokens", "2"], ["score", "--prompt", "hi", "--reference", "x"]):
        done = run(*args, "--model", model)
        assert done.returncode == 2, done.stderr
        message = " ".join(done.stderr.split())
        assert "vocab_size 128" in message and "vocab_size >= 259" in message and "--ids" in message
        assert "internal error" not in done.stderr


def test_score_ids_teacher_forces_token_ids_on_any_vocab(tmp_path: Path) -> None:
    model = str(small_vocab_checkpoint(tmp_path / "v128"))
    done = run("score", "--ids", "1,5,100,7", "--model", model, "--json", "-")
    assert done.returncode == 0, done.stderr
    obs = json.loads(done.stdout)
    assert len(obs["tokens"]) == 4 and all(0 <= t < 128 for t in obs["tokens"])
    assert obs["metrics"]["reference_tokens"] == 3


def test_score_ids_outside_the_vocab_is_a_usage_error(tmp_path: Path) -> None:
    done = run("score", "--ids", "1,128", "--model", str(small_vocab_checkpoint(tmp_path / "v128")))
    assert done.returncode == 2 and "[0, 128)" in done.stderr


def test_score_ids_gives_the_same_observation_as_the_same_text() -> None:
    from vtengine import tokenizer

    ids = ",".join(str(i) for i in tokenizer.encode("Hi") + tokenizer.encode(" you", bos=False))
    by_ids = json.loads(run("score", "--ids", ids, "--json", "-").stdout)
    by_text = json.loads(run("score", "--prompt", "Hi", "--reference", " you", "--json", "-").stdout)
    assert by_ids["digests"] == by_text["digests"] and by_ids["margins"] == by_text["margins"]


def test_bench_prompt_ids_fit_a_small_vocab(tmp_path: Path) -> None:
    model = str(small_vocab_checkpoint(tmp_path / "v128"))
    done = run("bench", "--model", model, "--prompt-tokens", "40", "--tokens", "2", "--runs", "1", "--json", "-")
    assert done.returncode == 0, done.stderr


def test_score_takes_text_or_ids_but_not_both() -> None:
    assert run("score", "--prompt", "a").returncode == 2
    both = run("score", "--prompt", "a", "--reference", "b", "--ids", "1,2")
    assert both.returncode == 2 and "not both" in " ".join(both.stderr.split())
