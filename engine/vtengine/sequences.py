"""Sequences and processes: what fixed-point gates never run. One engine reused across many calls
and batches of different sizes, each result compared with a fresh engine's; knobs changed between
calls in one process (re-read from the environment each time); several engine processes sharing
one model cache folder at once. Each returns counters of what held (portable: no float bits)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from vtengine.config import ModelConfig
from vtengine.draws import KNOB_VALUES, knobs_of, pairwise
from vtengine.engine import Engine
from vtengine.knobs import Knobs, child_env, scoped_env
from vtengine.model import Model, generate_tensors

SHAPE = ModelConfig(name="sequences", vocab_size=61, d_model=24, n_layers=2, n_heads=6, n_kv_heads=2, d_ff=37,
                    max_context=48, seed=23)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


def _call(engine: Engine, kind: str, prompts: list[list[int]], steps: int) -> list[np.ndarray]:
    if kind == "batch":
        return [g.logits for g in engine.generate_batch(prompts, steps)]
    if kind == "score":
        return [engine.score(p).logits for p in prompts]
    return [np.asarray(engine.speculative(p, steps, ngram=1).tokens) for p in prompts]


def reuse(seed: int, calls: int) -> dict[str, int]:
    """``calls`` calls (batched greedy of 1-4 prompts, scoring, speculative) on one engine, each
    compared bit for bit with the same call on a fresh engine."""
    rng = np.random.Generator(np.random.PCG64(seed))
    model = Model(SHAPE, generate_tensors(SHAPE), quantize=True)
    kept = Engine(model, Knobs())
    same = 0
    for _ in range(calls):
        kind = ("batch", "score", "speculative")[int(rng.integers(3))]
        steps = int(rng.integers(1, 6))
        prompts = [rng.integers(0, SHAPE.vocab_size, int(rng.integers(1, 20))).tolist()
                   for _ in range(int(rng.integers(1, 5)))]
        fresh = Engine(model, Knobs())
        same += all(_same(np.asarray(a), np.asarray(b)) for a, b in
                    zip(_call(kept, kind, prompts, steps), _call(fresh, kind, prompts, steps), strict=True))
    return {"reuse_calls": calls, "reuse_equal_to_fresh": same, "reuse_free_blocks_back": int(
        len(kept.kv.free) == kept.kv.num_blocks)}


def knob_changes(seed: int) -> dict[str, int]:
    """Each pairwise knob row (BLAS left out: its bits are the host's) set in the environment between
    calls in this process: the knobs read back equal the row, and an engine built from the environment
    equals one built from the row's knobs."""
    model = Model(SHAPE, generate_tensors(SHAPE), quantize=True)
    rows = [r for r in pairwise(KNOB_VALUES, np.random.Generator(np.random.PCG64(seed))) if r["VT_CPU_GEMV_BLAS"] == "0"]
    prompt = list(range(7))
    read_back = same = 0
    for row in rows:
        with scoped_env(row):
            from_env = Knobs.from_env()
            engine = Engine(model)  # knobs from the environment, read now
        read_back += int(from_env == replace(knobs_of(row), cache_dir=from_env.cache_dir))
        same += int(_same(engine.generate(prompt, 3).logits, Engine(model, knobs_of(row)).generate(prompt, 3).logits))
    return {"knob_rows": len(rows), "knob_rows_read_back": read_back, "knob_rows_equal": same}


def shared_cache(processes: int, timeout: float = 120.0) -> dict[str, int]:
    """``processes`` engine processes started together on one empty model cache folder (they race to
    generate and write the model), then again on the filled folder: every greedy chain equals the
    first one, the folder ends with one model file and no temporary file."""
    args = [sys.executable, "-m", "vtengine", "generate", "--prompt", "shared", "--tokens", "6", "--json", "-"]
    chains, ok = [], 0
    with tempfile.TemporaryDirectory(prefix="vt-shared-") as folder:
        env = child_env({"VT_CACHE_DIR": folder, "NO_COLOR": "1"})
        for _ in range(2):
            running = [subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                       for _ in range(processes)]
            for proc in running:
                try:
                    out, _ = proc.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.communicate()
                    continue
                if proc.returncode == 0:
                    ok += 1
                    chains.append(json.loads(out)["tokens"])
        files = sorted(p.name for p in Path(folder).iterdir())
    return {"processes_run": 2 * processes, "processes_ok": ok,
            "processes_same_chain": sum(c == chains[0] for c in chains) if chains else 0,
            "cache_model_files": sum(f.endswith(".npz") for f in files),
            "cache_temporary_files": sum(f.endswith(".tmp") for f in files)}
